// What both pages draw, with the data-testid hooks the browser test reads.
import { useState } from "react";

// The recipe the shared_state page starts from (the user's side of the shared state).
export const INITIAL_RECIPE = {
  title: "Make Your Recipe",
  skill_level: "Intermediate",
  special_preferences: [],
  cooking_time: "45 min",
  ingredients: [{ icon: "🥕", name: "Carrots", amount: "3 large, grated" }],
  instructions: ["Preheat oven to 350°F (175°C)"],
};

export const BACKGROUND_TOOL = {
  name: "change_background",
  description: "Change the background of the chat page. Use any CSS background value.",
};

// The page around the chat: its background is what change_background sets.
export function Shell({ background, children }) {
  return (
    <div data-testid="page" data-background={background} style={{ background, minHeight: "100vh" }}>
      {children}
    </div>
  );
}

export function useBackground() {
  const [background, setBackground] = useState("white");
  const change = (value) => {
    setBackground(value);
    return `the background is now ${value}`;
  };
  return [background, change];
}

export function ToolCard({ name, status, args, result }) {
  return (
    <div data-testid="tool-card" data-tool={name} data-status={status}>
      <b>{name}</b> <code data-testid="tool-args">{JSON.stringify(args ?? {})}</code>
      <pre data-testid="tool-result">{typeof result === "string" ? result : JSON.stringify(result ?? null)}</pre>
    </div>
  );
}

export function StateView({ state }) {
  return <pre data-testid="state">{JSON.stringify(state ?? null)}</pre>;
}

export function PlanView({ steps, testid = "plan" }) {
  return (
    <ol data-testid={testid}>
      {(steps ?? []).map((step, index) => (
        <li key={index} data-testid={`${testid}-step`} data-status={step?.status}>{step?.description}</li>
      ))}
    </ol>
  );
}

export function ApprovalCard({ message, onApprove, onReject }) {
  return (
    <div data-testid="approval">
      <p data-testid="approval-message">{message}</p>
      <button data-testid="approve" onClick={onApprove}>Approve</button>
      <button data-testid="reject" onClick={onReject}>Reject</button>
    </div>
  );
}

// A Strands background task (the `background_task` activity message): its status until it holds the result.
export function TaskCard({ content }) {
  return (
    <div data-testid="task-card" data-status={content?.status}>
      <b>{content?.toolName}</b> <span data-testid="task-status">{content?.status}</span>
      <pre data-testid="task-result">{content?.result ?? content?.error ?? ""}</pre>
    </div>
  );
}
