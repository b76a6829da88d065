// The inspector's downloads: a run's trace (JSON) and its replayable log (JSON Lines, `strands-agui replay`).
"use strict";

import { partialLog } from "./store.js";
import { el } from "./dom.js";

export function traceDocument(thread, run) {
  return {
    strands_agui_trace: 1, threadId: thread.threadId, runId: run.runId, status: run.status, input: run.input,
    steps: run.steps.map((s) => ({ event: s.event, transitions: s.transitions, subagents: s.subagents, declined: s.declined, agui: s.agui })),
  };
}

export function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = el("a", { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// The log to offer for `run`: the server's, else the one the page writes from the trace (a stopped run).
export function logOf(run) {
  if (run?.log) return { text: run.log, partial: false, note: "The run's Strands events as a log: strands-agui replay FILE" };
  const text = run && run.status !== "running" ? partialLog(run) : null;
  if (text) return { text, partial: true, note: "The run ended before the server sent its log: this one holds the events the trace carried (strands-agui replay --partial FILE)" };
  return { text: null, partial: false, note: run?.logNote || (run?.status === "running" ? "The log comes when the run ends" : "The server sent no log for this run") };
}
