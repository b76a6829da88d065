// Open a log: a run log (.jsonl: the console's Log download, `strands-agui record -o`, a Recorder's) replayed by
// the server (POST /console/replay: the recorded Strands events through the run machine, no model, no tool run)
// and shown as a run through the same views as a live one, with its trace in the inspector.
"use strict";

import { readEvents } from "./transport.js";

export const REPLAY_URL = "/console/replay";

// The RunAgentInput in the log's header (its first line), or null: the messages and state the run started from.
export function logInput(text) {
  try {
    const header = JSON.parse(text.slice(0, text.indexOf("\n") >>> 0));
    return header && header.strands_agui_log && header.input && typeof header.input === "object" ? header.input : null;
  } catch {
    return null;
  }
}

// The console's Trace download (the machine's moves, one JSON document), told apart before any request.
function isTrace(text) {
  try { return Boolean(JSON.parse(text)?.strands_agui_trace); } catch { return false; }
}

// The AG-UI events the log replays to; throws with the server's reason when it is no log.
export async function* replayLog(text, signal) {
  if (isTrace(text)) {
    throw new Error("Could not open the log: this is a trace (the Trace download: the machine's moves), not a run log: open the Log (run-<runId>.jsonl)");
  }
  const response = await fetch(REPLAY_URL, {
    method: "POST", body: text, signal,
    headers: { "Content-Type": "application/x-ndjson", Accept: "text/event-stream" },
  });
  if (!response.ok) {
    const body = await response.text();
    let detail = body;
    try { detail = JSON.parse(body).detail || body; } catch { /* not JSON: the text itself */ }
    throw new Error(`Could not open the log: ${detail}`);
  }
  yield* readEvents(response);
}

// An "Open a log" button (and its hidden file input) after `anchor`; `onLog(name, text)` gets the chosen file.
export function addOpenLog(anchor, onLog) {
  const input = document.createElement("input");
  Object.assign(input, { type: "file", accept: ".jsonl,.ndjson,application/x-ndjson,application/json", hidden: true });
  input.dataset.testid = "open-log-file";
  const button = document.createElement("button");
  Object.assign(button, { type: "button", id: "open-log", textContent: "Open a log",
    title: "Replay a run log (.jsonl) through the run machine and show it here" });
  button.dataset.testid = "open-log";
  button.addEventListener("click", () => input.click());
  input.addEventListener("change", async () => {
    const file = input.files && input.files[0];
    input.value = "";
    if (file) onLog(file.name, await file.text());
  });
  anchor.after(button, input);
  return button;
}
