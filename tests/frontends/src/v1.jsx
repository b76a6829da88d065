// The v1 API most CopilotKit apps use: <CopilotKit runtimeUrl agent>, useCopilotAction, useCoAgent,
// useCoAgentStateRender (and useLangGraphInterrupt for the approval), with react-ui's <CopilotChat>.
import {
  CopilotKit,
  useCoAgent,
  useCoAgentStateRender,
  useCopilotAction,
  useLangGraphInterrupt,
} from "@copilotkit/react-core";
import { CopilotChat } from "@copilotkit/react-ui";

import {
  ApprovalCard,
  BACKGROUND_TOOL,
  INITIAL_RECIPE,
  PlanView,
  Shell,
  StateView,
  ToolCard,
  useBackground,
} from "./shared.jsx";

function ChangeBackground({ setBackground }) {
  useCopilotAction({
    ...BACKGROUND_TOOL,
    parameters: [{ name: "background", type: "string", description: "CSS background", required: true }],
    handler: ({ background }) => setBackground(background),
  });
  return null;
}

function BackendToolCards() {
  for (const name of ["get_weather", "render_chart"]) {
    // eslint-disable-next-line react-hooks/rules-of-hooks -- a fixed list: the same hooks every render
    useCopilotAction({
      name,
      available: "disabled",
      render: ({ status, args, result }) => <ToolCard name={name} status={status} args={args} result={result} />,
    });
  }
  return null;
}

function Recipe() {
  const { state } = useCoAgent({ name: "shared_state", initialState: { recipe: INITIAL_RECIPE } });
  return <StateView state={state} />;
}

function Plan() {
  const { state } = useCoAgent({ name: "agentic_generative_ui", initialState: {} });
  // In the chat: v1 freezes this render's state once a later message (the tool result) follows its message.
  useCoAgentStateRender({
    name: "agentic_generative_ui",
    render: ({ state: rendered }) => <PlanView steps={rendered?.steps} testid="chat-plan" />,
  });
  return (
    <>
      <StateView state={state} />
      <PlanView steps={state?.steps} />
    </>
  );
}

function Approval() {
  useLangGraphInterrupt({
    render: ({ event, resolve }) => (
      <ApprovalCard
        message={event.value?.message}
        onApprove={() => resolve({ approved: true })}
        onReject={() => resolve({ approved: false, reason: "rejected in the page" })}
      />
    ),
  });
  return null;
}

function Hooks({ agent, setBackground }) {
  switch (agent) {
    case "agentic_chat": return <ChangeBackground setBackground={setBackground} />;
    case "backend_tool_rendering": return <BackendToolCards />;
    case "shared_state": return <Recipe />;
    case "agentic_generative_ui": return <Plan />;
    case "human_in_the_loop": return <Approval />;
    case "background_agents": return <Approval />;  // a Confirm intervention, the vended hitl
    default: return null;
  }
}

// `?thread=<id>`: the chat is that thread's, restored (agent/connect) when the page loads
const thread = new URLSearchParams(window.location.search).get("thread") ?? undefined;

export function V1App({ agent }) {
  const [background, setBackground] = useBackground();
  return (
    <CopilotKit runtimeUrl="/api/copilotkit" agent={agent} threadId={thread} showDevConsole={false}
      enableInspector={false}>
      <Shell background={background}>
        <Hooks agent={agent} setBackground={setBackground} />
        <CopilotChat />
      </Shell>
    </CopilotKit>
  );
}
