// The Dojo's v2 pages for the Strands features (apps/dojo/src/app/[integrationId]/feature/(v2)/<feature>/page.tsx),
// with their hooks and testids: what each registers, cut down to what the browser test reads (no Tailwind, no
// carousel, no TipTap editor). The A2UI pages need nothing here: the runtime's A2UI middleware paints surfaces.
import {
  CopilotChat,
  useAgent,
  useConfigureSuggestions,
  useFrontendTool,
  useHumanInTheLoop,
  useInterrupt,
} from "@copilotkit/react-core/v2";
import { useEffect, useMemo, useState } from "react";
import { z } from "zod";

import { BACKGROUND_TOOL, StateView } from "./shared.jsx";

// --- agentic_chat_reasoning / agentic_chat_multimodal: change_background, as the Dojo pages declare it --------
function ChangeBackground({ agent, setBackground }) {
  useFrontendTool({
    ...BACKGROUND_TOOL,
    agentId: agent,
    parameters: z.object({ background: z.string().describe("The background. Prefer gradients.") }),
    handler: async ({ background }) => setBackground(background),
  });
  return null;
}

// --- tool_based_generative_ui: generate_haiku drawn as a card, followUp: false ------------------------------
export function HaikuCard({ haiku }) {
  return (
    <div data-testid="haiku-card" style={{ background: haiku.gradient }}>
      {(haiku.japanese ?? []).map((line, index) => (
        <div key={index}>
          <p data-testid="haiku-japanese-line">{line}</p>
          <p data-testid="haiku-english-line">{haiku.english?.[index]}</p>
        </div>
      ))}
      {haiku.image_name && <span data-testid="haiku-image" data-name={haiku.image_name} />}
    </div>
  );
}

function Haiku({ agent }) {
  const [haikus, setHaikus] = useState([]);
  useFrontendTool({
    agentId: agent,
    name: "generate_haiku",
    parameters: z.object({
      japanese: z.array(z.string()).describe("3 lines of haiku in Japanese"),
      english: z.array(z.string()).describe("3 lines of haiku translated to English"),
      image_name: z.string().describe("One relevant image name"),
      gradient: z.string().describe("CSS Gradient color for the background"),
    }),
    followUp: false,
    handler: async (haiku) => {
      setHaikus((previous) => [haiku, ...previous]);
      return "Haiku generated!";
    },
    render: ({ args }) => (args?.japanese ? <div data-testid="chat-haiku"><HaikuCard haiku={args} /></div> : <></>),
  }, [haikus]);
  return (
    <div data-testid="haiku-carousel">
      {haikus.map((haiku, index) => <div key={index} data-testid={`carousel-item-${index}`}><HaikuCard haiku={haiku} /></div>)}
    </div>
  );
}

// --- interrupt: schedule_meeting's time picker ---------------------------------------------------------------
function slots() {
  const now = new Date();
  const picked = [];
  for (let day = 1; day <= 2; day++) {
    for (const hour of [10, 14]) {
      const d = new Date(now);
      d.setDate(now.getDate() + day);
      d.setHours(hour, 0, 0, 0);
      picked.push({ iso: d.toISOString(), label: d.toLocaleString("en-US", {
        weekday: "short", month: "short", day: "numeric", hour: "numeric", minute: "2-digit" }) });
    }
  }
  return picked;
}

function TimePickerCard({ topic, attendee, onPick, onCancel }) {
  const choices = useMemo(slots, []);
  const [done, setDone] = useState(null);
  if (done) return null;
  return (
    <div data-testid="interrupt-picker">
      <h2 data-testid="interrupt-topic">{topic}</h2>
      {attendee ? <p data-testid="interrupt-attendee">with {attendee}</p> : null}
      {choices.map((slot) => (
        <button key={slot.iso} type="button" data-testid="interrupt-slot" data-label={slot.label}
          onClick={() => { setDone(slot); onPick(slot); }}>{slot.label}</button>
      ))}
      <button type="button" data-testid="interrupt-cancel" onClick={() => { setDone("cancelled"); onCancel(); }}>
        Cancel
      </button>
    </div>
  );
}

function MeetingPicker({ agent }) {
  useConfigureSuggestions({
    suggestions: [
      { title: "Book a call with sales", message: "Book an intro call with the sales team to discuss pricing." },
      { title: "Schedule a 1:1 with Alice", message: "Schedule a 1:1 with Alice next week to review Q2 goals." },
    ],
    available: "always",
  });
  useInterrupt({
    agentId: agent,
    renderInChat: true,
    render: ({ interrupt, resolve }) => {
      const reason = interrupt?.metadata?.reason ?? {};
      return (
        <TimePickerCard topic={reason.topic ?? "a call"} attendee={reason.attendee}
          onPick={(slot) => resolve({ chosen_time: slot.iso, chosen_label: slot.label })}
          onCancel={() => resolve({ cancelled: true })} />
      );
    },
  });
  return null;
}

// --- predictive_state_updates: the document from state, write_document confirmed in the chat ----------------
function ConfirmChanges({ respond, status, onReject, onConfirm }) {
  const [accepted, setAccepted] = useState(null);
  return (
    <div data-testid="confirm-changes-modal">
      <h2>Confirm Changes</h2>
      {accepted === null && (
        <>
          <button data-testid="reject-button" disabled={status !== "executing"}
            onClick={() => { setAccepted(false); onReject(); respond?.({ accepted: false }); }}>Reject</button>
          <button data-testid="confirm-button" disabled={status !== "executing"}
            onClick={() => { setAccepted(true); onConfirm(); respond?.({ accepted: true }); }}>Confirm</button>
        </>
      )}
      {accepted !== null && <div data-testid="status-display">{accepted ? "✓ Accepted" : "✗ Rejected"}</div>}
    </div>
  );
}

// The editor shows the agent's document as it changes (the prediction while the call streams, then the
// snapshot); a rejection puts back the last confirmed text, as the Dojo's editor does with its own content (the
// page's `agent.setState` does not reach the thread's agent once the chat has run it).
function DocumentEditor({ agent }) {
  const { agent: shared } = useAgent({ agentId: agent });
  const [confirmed, setConfirmed] = useState("");
  const document = shared.state?.document ?? "";
  const [shown, setShown] = useState(document);
  useEffect(() => {
    if (shared.state?.document === undefined) shared.setState({ document: "" });
  }, [shared]);
  useEffect(() => setShown(document), [document]);
  const render = ({ status, respond }) => (status === "executing" ? (
    <ConfirmChanges respond={respond} status={status}
      onReject={() => { setShown(confirmed); shared.setState({ document: confirmed }); }}
      onConfirm={() => setConfirmed(shared.state?.document ?? "")} />
  ) : <></>);
  useHumanInTheLoop({ agentId: agent, name: "confirm_changes", render }, [confirmed]);
  useHumanInTheLoop({
    agentId: agent,
    name: "write_document",
    description: "Present the proposed changes to the user for review",
    parameters: z.object({ document: z.string().describe("The full updated document in markdown format") }),
    render,
  }, [confirmed]);
  return (
    <>
      <StateView state={shared.state} />
      <pre data-testid="document" data-confirmed={confirmed}>{shown}</pre>
    </>
  );
}

// --- the hooks of each page -----------------------------------------------------------------------------------
export const DOJO_PAGES = new Set(["agentic_chat_reasoning", "tool_based_generative_ui", "interrupt",
  "predictive_state_updates", "agentic_chat_multimodal", "a2ui_fixed_schema", "a2ui_recovery"]);

export function DojoHooks({ agent, setBackground }) {
  switch (agent) {
    case "agentic_chat_reasoning":
    case "agentic_chat_multimodal":
      return <ChangeBackground agent={agent} setBackground={setBackground} />;
    case "tool_based_generative_ui": return <Haiku agent={agent} />;
    case "interrupt": return <MeetingPicker agent={agent} />;
    case "predictive_state_updates": return <DocumentEditor agent={agent} />;
    default: return null;
  }
}

// The chat of a Dojo page: the multimodal one takes attachments.
export function DojoChat({ agent }) {
  return agent === "agentic_chat_multimodal"
    ? <CopilotChat agentId={agent} attachments={{ enabled: true }} />
    : <CopilotChat agentId={agent} />;
}
