// The frontend tools this page runs (a run halts on their calls; the page answers them and sends the result in a
// follow-up run): each returns the tool message content or throws. No DOM but the thread's background it sets.
"use strict";

import { addNotice, currentRun, findCall, uid } from "./store.js";

const FORBIDDEN_CSS = /url\s*\(|image|element\s*\(|var\s*\(|env\s*\(|attr\s*\(|expression|[;{}\\<>@]|\/\*/i;

// A model-chosen background is applied only when it is a CSS colour or a CSS gradient: never url(...),
// image-set(...), a declaration block, an escape or anything else that could make the browser fetch.
export function checkBackground(value) {
  if (typeof value !== "string" || !value.trim()) throw new Error("background must be a CSS colour or gradient");
  const v = value.trim();
  if (v.length > 400 || FORBIDDEN_CSS.test(v)) throw new Error(`refused "${v.slice(0, 80)}": only a CSS colour or gradient is allowed`);
  if (CSS.supports("color", v)) return v;
  if (/^(repeating-)?(linear|radial|conic)-gradient\(/i.test(v) && CSS.supports("background-image", v)) return v;
  throw new Error(`"${v.slice(0, 80)}" is not a CSS colour or gradient`);
}

const FRONTEND_TOOLS = {
  change_background(args, thread) {
    const background = checkBackground(args?.background);
    thread.background = background;
    return `background changed to ${background}`;
  },
  // tool_based_generative_ui: the haiku card is the tool card; the page only acknowledges it
  generate_haiku: () => "Haiku generated!",
  // predictive_state_updates: the document is already in the state (PredictState, then its snapshot): accept it
  write_document: () => JSON.stringify({ accepted: true }),
};

// Answer the run's unanswered frontend tool calls in the page; true when a tool message was added.
export function runFrontendTools(example, t) {
  const declared = new Set((example.frontendTools || []).map((tool) => tool.name));
  const answered = new Set(t.messages.filter((m) => m.role === "tool").map((m) => m.toolCallId));
  const r = currentRun(t);
  const pending = r.outcome?.pendingToolCallIds || r.calls;
  let ran = 0;
  for (const id of pending) {
    const call = findCall(t.messages, id);
    if (!call || answered.has(id) || !declared.has(call.function.name)) continue;
    const tool = FRONTEND_TOOLS[call.function.name];
    if (!tool) { addNotice(t, "error", `No handler in this page for the frontend tool ${call.function.name}.`); continue; }
    const message = { id: uid(), role: "tool", toolCallId: id, content: "" };
    try { message.content = String(tool(JSON.parse(call.function.arguments || "{}"), t)); }
    catch (err) { message.content = `error: ${err.message}`; message.error = err.message; }
    ran += 1;
    addNotice(t, "halt", `The run paused for the frontend tool ${call.function.name}: the page ran it and sends the result.`);
    t.messages.push(message);
  }
  return ran > 0;
}
