// The store: what the page holds, and the pure functions that change it (no DOM, no network).
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
    runs: [], background: "", pendingInterrupts: [], busy: false,
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

// ---- runs: what the inspector keeps of each request the page sent -------------------------------------
export const TRACE_EVENT = "strands_agui.trace";
export const LOG_EVENT = "strands_agui.log";

export function newRun(input, label) {
  return { runId: input.runId, label, input, status: "running", calls: [], steps: [], events: [], log: null, logNote: "",
    end: null };
}

// Record one AG-UI event of `run`; trace and log events feed the inspector, the others are attached to the
// newest step (the Strands event that produced them).
export function recordEvent(run, ev) {
  if (ev.type === "CUSTOM" && ev.name === TRACE_EVENT) {
    for (const step of ev.value?.steps || []) {
      // RUN_STARTED precedes the first step (it must open the stream): it belongs to that step
      run.steps.push({ event: step.event, transitions: step.transitions || [], subagents: step.subagents || [],
        declined: step.declined || [], agui: run.steps.length ? [] : run.events.slice() });
    }
    return;
  }
  if (ev.type === "CUSTOM" && ev.name === LOG_EVENT) {
    run.log = ev.value?.log ?? null;
    run.logNote = ev.value?.truncated ? `the log was not sent: ${ev.value.bytes} bytes is over the server's limit` : "";
    return;
  }
  run.events.push(ev);
  if (run.steps.length) run.steps[run.steps.length - 1].agui.push(ev);
}

export const transitionsOf = (run) => (run ? run.steps.flatMap((s) => s.transitions) : []);

// The run's log as the page can write it when the server sent none (a run the user stopped, a stream cut
// short): the header and every Strands event the trace carried, without the end marker (read it with
// `strands-agui replay --partial`). Null when the trace carried no event.
export function partialLog(run) {
  const events = run.steps.map((s) => s.event).filter((e) => e !== null && e !== undefined);
  if (!events.length) return null;
  const header = { strands_agui_log: 1, metadata: { writtenBy: "the console", partial: true }, input: run.input };
  return [header, ...events].map((line) => JSON.stringify(line)).join("\n") + "\n";
}

// How a run ended, in one word the page shows ("stopped": the user pressed Stop; "unreachable": the request
// never reached the server; "error": RUN_ERROR or a broken stream).
export function endRun(thread, run, { terminal, stopped = false, failure = null }) {
  if (!run) return;
  if (stopped) run.status = "stopped";
  else if (failure && !terminal) run.status = failure.unreachable ? "unreachable" : "error";
  else if (run.status === "running") run.status = terminal ? "finished" : "error";
  run.end = { stopped, failure: failure ? String(failure.message || failure) : "" };
  if (stopped) cancelTasks(thread, run);
  for (const block of thread.subagents.values()) {  // a subagent the run left open is not running any more
    if (block.status === "running") block.status = stopped ? "stopped" : "not finished";
  }
  if (run.status !== "interrupt") settleInterrupts(thread, run.status === "finished" ? null : run.status);
}

// A run stopped by its client (the server stops it and cancels the background tasks it started still open, as a
// cancel by id does; the stream that would have said so is gone): its task cards still unsettled say `cancelled`.
const SETTLED_TASK = new Set(["completed", "failed", "cancelled"]);
function cancelTasks(thread, run) {
  const own = new Set(run.events.filter((e) => e.type === "ACTIVITY_SNAPSHOT" && e.activityType === "background_task")
    .map((e) => e.messageId));
  for (const m of thread.messages) {
    if (m.role === "activity" && own.has(m.id) && !SETTLED_TASK.has(m.content?.status)) {
      m.content = { ...m.content, status: "cancelled" };
    }
  }
}

// Interrupt cards no run can answer any more: their run was stopped, failed, or left for a new message.
export function settleInterrupts(thread, why) {
  for (const n of thread.notices) {
    if (n.kind !== "interrupt") continue;
    const open = n.interrupts.some((i) => !n.answered?.[i.id]);
    if (open && why) n.settled = why;
  }
  if (why) thread.pendingInterrupts = [];
}

// The thread's status for the header: {state, text}.
export function threadStatus(thread) {
  const run = currentRun(thread);
  if (thread.busy) return { state: "running", text: run && run.label !== "message" ? `running (${run.label})…` : "running…" };
  if (thread.pendingInterrupts.length) return { state: "waiting", text: "waiting for you" };
  if (!run) return { state: "idle", text: "idle" };
  const words = { finished: "idle", stopped: "stopped by you", error: "error", unreachable: "server unreachable",
    cancelled: "cancelled", interrupt: "waiting for you" };
  const state = { finished: "idle", stopped: "stopped", cancelled: "stopped", interrupt: "waiting" }[run.status] || "error";
  return { state, text: words[run.status] || run.status };
}

// ---- what a tool card says of its call --------------------------------------------------------------------
// The calls a run in flight may still answer: its own, and on a resume the parked ones it continues.
export function liveCalls(t) {
  const r = currentRun(t);
  if (!t.busy || !r || r.status !== "running") return new Set();
  if (!r.input.resume) return new Set(r.calls);
  return new Set(t.messages.flatMap((m) => (m.toolCalls || []).map((c) => c.id)));
}

// The calls a person rejected (or cancelled) on an approval card: not errors.
export function rejectedCalls(t) {
  const out = new Set();
  for (const n of t.notices) {
    if (n.kind !== "interrupt") continue;
    for (const i of n.interrupts) {
      const a = n.answered?.[i.id];
      if (i.toolCallId && a && (a.payload?.approved === false || a.status === "cancelled")) out.add(i.toolCallId);
    }
  }
  return out;
}
