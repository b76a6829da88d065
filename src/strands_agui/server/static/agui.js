// AG-UI on the page: the SSE reader and the reducer. Pure data, no DOM.
//
// A thread is what an AG-UI client holds for one conversation: {threadId, messages, state} as
// @ag-ui/client's defaultApplyEvents builds them (same message shapes, same MESSAGES_SNAPSHOT merge,
// state patches through fast-json-patch as the official client does), plus what the page shows
// around them: notices (errors, halts, outcomes, interrupts) anchored after the message they followed,
// subagent blocks, the frontend background, and the runs with their inspector data.
"use strict";

export const uid = () => (crypto.randomUUID ? crypto.randomUUID()
  : "id-" + Date.now().toString(36) + Math.random().toString(36).slice(2));
export const clone = (value) => JSON.parse(JSON.stringify(value ?? null));

export function newThread(initialState) {
  return {
    threadId: uid(), messages: [], state: clone(initialState || {}), notices: [], subagents: new Map(),
    runs: [], background: "", pendingInterrupts: [],
  };
}

export function currentRun(thread) { return thread.runs[thread.runs.length - 1] || null; }

// A notice is shown after the message that was last when it happened (see views.anchorItem).
export function addNotice(thread, kind, text, extra = {}) {
  const last = thread.messages[thread.messages.length - 1];
  const notice = { id: uid(), kind, text, after: last ? last.id : null, ...extra };
  thread.notices.push(notice);
  return notice;
}

// ---- SSE over fetch: frames split on a blank line, `data:` lines joined, `:` comments ignored ----------
export async function* readEvents(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    buffer += decoder.decode(value || new Uint8Array(), { stream: !done }).replace(/\r\n?/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) !== -1) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = frame.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, ""));
      if (data.length) yield JSON.parse(data.join("\n"));
    }
    if (done) {
      if (buffer.trim() && !buffer.trim().startsWith(":")) throw new Error(`stream ended inside a frame: ${buffer.slice(0, 200)}`);
      return;
    }
  }
}

// ---- the reducer ----------------------------------------------------------------------------------------
export const findCall = (messages, id) => {
  for (const m of messages) for (const c of m.toolCalls || []) if (c.id === id) return c;
  return null;
};
const withSubagent = (ev, message) => (ev.subagentRunId != null ? { ...message, subagentRunId: ev.subagentRunId } : message);

function startText(msgs, ev, role) {
  if (!msgs.some((m) => m.id === ev.messageId)) {
    const m = withSubagent(ev, { id: ev.messageId, role, content: "" });
    if (ev.name !== undefined) m.name = ev.name;
    msgs.push(m);
  }
}

function appendText(msgs, ev) {
  const m = msgs.find((x) => x.id === ev.messageId);
  if (m && m.role !== "activity") m.content = (typeof m.content === "string" ? m.content : "") + ev.delta;
}

function startToolCall(thread, ev) {
  const msgs = thread.messages;
  if (findCall(msgs, ev.toolCallId)) return;
  let parent = ev.parentMessageId && msgs.find((m) => m.id === ev.parentMessageId);
  if (!parent || parent.role !== "assistant") {
    const id = parent || !ev.parentMessageId ? ev.toolCallId : ev.parentMessageId;
    parent = withSubagent(ev, { id, role: "assistant", toolCalls: [] });
    msgs.push(parent);
  }
  (parent.toolCalls ||= []).push({ id: ev.toolCallId, type: "function", function: { name: ev.toolCallName, arguments: "" } });
  const run = currentRun(thread);
  if (run) run.calls.push(ev.toolCallId);
}

function addToolResult(msgs, ev) {
  const result = withSubagent(ev, { id: ev.messageId, role: ev.role || "tool", toolCallId: ev.toolCallId, content: ev.content });
  let i = msgs.findIndex((m) => m.role === "assistant" && (m.toolCalls || []).some((c) => c.id === ev.toolCallId));
  if (i === -1) { msgs.push(result); return; }
  for (i += 1; i < msgs.length && msgs[i].role === "tool"; i++);
  msgs.splice(i, 0, result);
}

function applySnapshot(thread, ev) {
  const incoming = ev.messages.map((m) => { const c = { ...m }; if (c.subagentRunId === null) delete c.subagentRunId; return c; });
  const byId = new Map(incoming.map((m) => [m.id, m]));
  const keepReasoning = !incoming.some((m) => m.role === "reasoning");
  const keepActivity = !incoming.some((m) => m.role === "activity");
  const kept = thread.messages
    .filter((m) => byId.has(m.id) || (keepReasoning && m.role === "reasoning") || (keepActivity && m.role === "activity"))
    .map((m) => byId.get(m.id) || m);
  const known = new Set(kept.map((m) => m.id));
  thread.messages = kept.concat(incoming.filter((m) => !known.has(m.id)));
}

function applyActivity(thread, ev) {
  const msgs = thread.messages;
  const i = msgs.findIndex((m) => m.id === ev.messageId);
  if (ev.type === "ACTIVITY_SNAPSHOT") {
    const message = withSubagent(ev, { id: ev.messageId, role: "activity", activityType: ev.activityType, content: clone(ev.content) });
    if (i === -1) msgs.push(message);
    else if (ev.replace !== false) msgs[i] = message;
  } else if (i !== -1 && msgs[i].role === "activity") {
    msgs[i] = { ...msgs[i], content: window.jsonpatch.applyPatch(clone(msgs[i].content), ev.patch || [], true, false).newDocument };
  }
}

function applyState(thread, ev) {
  if (ev.type === "STATE_SNAPSHOT") { thread.state = clone(ev.snapshot); return; }
  try { thread.state = window.jsonpatch.applyPatch(clone(thread.state), ev.delta, true, false).newDocument; }
  catch (err) { addNotice(thread, "error", `STATE_DELTA could not be applied: ${err.message}`); }
}

function applySubagent(thread, ev) {
  if (ev.type === "SUBAGENT_STARTED") {
    const last = thread.messages[thread.messages.length - 1];
    thread.subagents.set(ev.subagentRunId, {
      id: ev.subagentRunId, name: ev.name, description: ev.description || "", status: "running", handoff: ev.metadata?.handoff || null,
      parent: ev.parentSubagentRunId || null, parentToolCallId: ev.parentToolCallId || null, after: last ? last.id : null,
    });
    return;
  }
  const block = thread.subagents.get(ev.subagentRunId);
  if (!block) return;
  if (ev.type === "SUBAGENT_ERROR") Object.assign(block, { status: "error", error: ev.code ? `[${ev.code}] ${ev.message}` : ev.message });
  else Object.assign(block, { status: ev.outcome?.type === "suspended" ? "suspended" : "done", result: ev.result });
}

function finishRun(thread, ev) {
  const run = currentRun(thread);
  const outcome = ev.outcome || { type: "success" };
  if (run) Object.assign(run, { status: outcome.type === "success" ? "finished" : outcome.type, outcome, result: ev.result, usage: ev.usage });
  thread.pendingInterrupts = outcome.type === "interrupt" ? outcome.interrupts : [];
  if (outcome.type === "interrupt") addNotice(thread, "interrupt", "The agent is waiting for your answer.", { interrupts: outcome.interrupts, answered: null });
  else if (outcome.type === "cancelled") addNotice(thread, "cancelled", "The run was cancelled; the agent stopped before finishing.");
  if (typeof ev.metadata?.stop?.note === "string") addNotice(thread, "stop", ev.metadata.stop.note);  // a budget, a filter (docs/events.md)
}

// Apply one AG-UI event to the thread, as @ag-ui/client does (CUSTOM events go to `onCustom`).
export function applyEvent(thread, ev, onCustom = () => {}) {
  switch (ev.type) {
    case "TEXT_MESSAGE_START": startText(thread.messages, ev, ev.role || "assistant"); break;
    case "REASONING_MESSAGE_START": startText(thread.messages, ev, "reasoning"); break;
    case "TEXT_MESSAGE_CONTENT": case "REASONING_MESSAGE_CONTENT": appendText(thread.messages, ev); break;
    case "TOOL_CALL_START": startToolCall(thread, ev); break;
    case "TOOL_CALL_ARGS": { const call = findCall(thread.messages, ev.toolCallId); if (call) call.function.arguments += ev.delta; break; }
    case "TOOL_CALL_RESULT": addToolResult(thread.messages, ev); break;
    case "MESSAGES_SNAPSHOT": applySnapshot(thread, ev); break;
    case "ACTIVITY_SNAPSHOT": case "ACTIVITY_DELTA": applyActivity(thread, ev); break;
    case "STATE_SNAPSHOT": case "STATE_DELTA": applyState(thread, ev); break;
    case "SUBAGENT_STARTED": case "SUBAGENT_FINISHED": case "SUBAGENT_ERROR": applySubagent(thread, ev); break;
    case "RUN_FINISHED": finishRun(thread, ev); break;
    case "RUN_ERROR": {
      const run = currentRun(thread);
      if (run) Object.assign(run, { status: "error", usage: ev.usage });
      addNotice(thread, "error", `RUN_ERROR${ev.code ? ` [${ev.code}]` : ""}: ${ev.message}`);
      break;
    }
    case "CUSTOM": onCustom(ev); break;
  }
}
