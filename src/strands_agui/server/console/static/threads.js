// Server-side threads in the console: the page remembers each example's threadId (localStorage) and, on a
// reload, restores the thread from GET {path}/threads/{threadId} when the server keeps threads
// (`strands-agui serve --threads`; otherwise that answers 404 and the thread starts empty). "Regenerate" drops
// the last answer and runs the last user turn again as a branch (parentRunId), which the server's stored
// thread follows.
"use strict";

import { addNotice } from "./store.js";

const key = (path) => `strands-agui:thread:${path}`;

function storage() {
  try { return window.localStorage; } catch { return null; }  // a sandboxed page may have none
}

export function rememberedThreadId(path) {
  return storage()?.getItem(key(path)) || null;
}

export function rememberThread(path, threadId) {
  storage()?.setItem(key(path), threadId);
}

export function forgetThread(path) {
  storage()?.removeItem(key(path));
}

// Fill `thread` from what the server keeps for it; true when it kept something. While a run is on the thread
// (`liveRun`: the server's runs are resumable), its new messages follow the kept ones and `thread.liveRun` names
// it: the page then attaches to it (console.js, `attach`).
export async function restoreThread(path, thread) {
  const url = `${path.replace(/\/$/, "")}/threads/${encodeURIComponent(thread.threadId)}`;
  const response = await fetch(url, { headers: { Accept: "application/json" } }).catch(() => null);
  if (!response?.ok || thread.messages.length) return false;  // nothing kept, or the user already started
  const kept = await response.json();
  thread.messages = [...(kept.messages || []), ...(kept.liveRun?.messages || [])];
  thread.liveRun = kept.liveRun || null;
  thread.restored = true;  // its earlier runs were not traced in this page: the machine and inspector say so
  restoreSubagents(thread);
  if (kept.state && typeof kept.state === "object") thread.state = kept.state;
  // a run on the thread answers its pending interrupts (a resume) or leaves them (a new message): no card then
  thread.pendingInterrupts = thread.liveRun ? [] : kept.pendingInterrupts || [];
  if (thread.pendingInterrupts.length) {
    addNotice(thread, "interrupt", "The agent is waiting for your answer.",
      { interrupts: thread.pendingInterrupts, answered: null });
  }
  return true;
}

// A restored message keeps its subagentRunId but not the subagent's name (a SUBAGENT_STARTED event, not kept): its
// block comes back as "subagent", holding its messages where they were (a run attached to later names its own).
function restoreSubagents(thread) {
  let previous = null;
  for (const m of thread.messages) {
    const id = m.subagentRunId;
    if (id && !thread.subagents.has(id)) {
      thread.subagents.set(id, { id, name: "subagent", description: "restored after a reload (its name is not kept)",
        status: "done", handoff: null, parent: null, parentToolCallId: null, after: previous });
    }
    previous = m.id;
  }
}

// The messages a regeneration sends (up to the last user message), or null when there is no answer to redo.
export function regeneration(thread) {
  const last = thread.messages.map((m) => m.role).lastIndexOf("user");
  return last < 0 || last === thread.messages.length - 1 ? null : thread.messages.slice(0, last + 1);
}
