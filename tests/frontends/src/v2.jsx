// The v2 hooks (@copilotkit/react-core/v2): useFrontendTool, useAgent, useInterrupt, useDefaultRenderTool,
// with the v2 <CopilotKitProvider> and <CopilotChat>.
import {
  CopilotChat,
  CopilotKitProvider,
  useAgent,
  useDefaultRenderTool,
  useFrontendTool,
  useInterrupt,
} from "@copilotkit/react-core/v2";
import { useEffect } from "react";
import { z } from "zod";

import {
  ApprovalCard,
  BACKGROUND_TOOL,
  INITIAL_RECIPE,
  PlanView,
  Shell,
  StateView,
  TaskCard,
  ToolCard,
  useBackground,
} from "./shared.jsx";
import { DOJO_PAGES, DojoChat, DojoHooks } from "./dojo.jsx";

function ChangeBackground({ agent, setBackground }) {
  useFrontendTool({
    ...BACKGROUND_TOOL,
    agentId: agent,
    parameters: z.object({ background: z.string().describe("CSS background") }),
    handler: async ({ background }) => setBackground(background),
  });
  return null;
}

function BackendToolCards() {
  useDefaultRenderTool({
    render: ({ name, status, parameters, result }) => (
      <ToolCard name={name} status={status} args={parameters} result={result} />
    ),
  });
  return null;
}

function SharedState({ agent, initialState, children }) {
  const { agent: shared } = useAgent({ agentId: agent });
  useEffect(() => {
    if (initialState && Object.keys(shared.state ?? {}).length === 0) shared.setState(initialState);
  }, [shared]);
  return (
    <>
      <StateView state={shared.state} />
      {children?.(shared.state ?? {})}
    </>
  );
}

function Approval({ agent }) {
  useInterrupt({
    agentId: agent,
    render: ({ interrupt, resolve, cancel }) => (
      <ApprovalCard
        message={interrupt?.message}
        onApprove={() => resolve({ approved: true })}
        onReject={() => cancel()}
      />
    ),
  });
  return null;
}

function Hooks({ agent, setBackground }) {
  switch (agent) {
    case "agentic_chat": return <ChangeBackground agent={agent} setBackground={setBackground} />;
    case "backend_tool_rendering": return <BackendToolCards />;
    case "shared_state": return <SharedState agent={agent} initialState={{ recipe: INITIAL_RECIPE }} />;
    case "agentic_generative_ui":
      return <SharedState agent={agent}>{(state) => <PlanView steps={state.steps} />}</SharedState>;
    case "human_in_the_loop": return <Approval agent={agent} />;
    case "background_agents": return <Approval agent={agent} />;  // a Confirm intervention, the vended hitl
    default: return DOJO_PAGES.has(agent) ? <DojoHooks agent={agent} setBackground={setBackground} /> : null;
  }
}

// `?thread=<id>`: the chat is that thread's, restored (connect) when the page loads
const thread = new URLSearchParams(window.location.search).get("thread") ?? undefined;

// background_agents' tasks drawn in the chat (CopilotKit's activity message renderers)
const ACTIVITY_RENDERERS = [{ activityType: "background_task", content: z.any(), render: TaskCard }];

export function V2App({ agent }) {
  const [background, setBackground] = useBackground();
  return (
    <CopilotKitProvider runtimeUrl="/api/v2" enableInspector={false} renderActivityMessages={ACTIVITY_RENDERERS}>
      <Shell background={background}>
        <Hooks agent={agent} setBackground={setBackground} />
        {DOJO_PAGES.has(agent) ? <DojoChat agent={agent} /> : (
          <CopilotChat agentId={agent} threadId={thread} />
        )}
      </Shell>
    </CopilotKitProvider>
  );
}
