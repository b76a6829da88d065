// The live machine: the run machine's diagram (run_machine.svg, drawn from core/machine.py's table) with the
// current state highlighted as the run's trace arrives, and the inspector: each Strands event -> the
// transitions it fired -> the AG-UI events it produced, downloadable as the trace (JSON) and as the
// replayable log (JSON Lines, `strands-agui replay`). The server sends both only when it enables
// inspection and the page asks (forwardedProps.strandsAgui.inspect; see server/inspector.py).
"use strict";

import { el, setText } from "./views.js";

export const TRACE_EVENT = "strands_agui.trace";
export const LOG_EVENT = "strands_agui.log";
const $ = (id) => document.getElementById(id);

export async function loadDiagram() {
  const holder = $("machine-diagram");
  try {
    const response = await fetch("/console/run_machine.svg");
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const svg = new DOMParser().parseFromString(await response.text(), "image/svg+xml").documentElement;
    if (svg.nodeName !== "svg") throw new Error("not an SVG document");
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", "The run machine: states and moves");
    holder.replaceChildren(document.importNode(svg, true));
  } catch (err) {
    holder.replaceChildren(el("p", { class: "muted" }, `The machine diagram could not be loaded: ${err.message}`));
  }
}

// A run as the inspector keeps it (one per request the page sent).
export function newRun(input, label) {
  return { runId: input.runId, label, input, status: "running", calls: [], steps: [], events: [], log: null, logNote: "" };
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

const transitionsOf = (run) => (run ? run.steps.flatMap((s) => s.transitions) : []);

// ---- the diagram -----------------------------------------------------------------------------------------
export function renderMachine(run) {
  const moves = transitionsOf(run);
  const current = moves.length ? moves[moves.length - 1].state : "idle";
  const svg = $("machine-diagram").querySelector("svg");
  $("machine-panel").dataset.state = current;
  setText($("machine-state"), run && !run.steps.length && run.status !== "running" ? `${current} (no trace from the server)` : current);
  if (!svg) return;
  const visited = new Set(["idle", ...moves.map((m) => m.state)]);
  for (const node of svg.querySelectorAll("g.state")) {
    const name = node.id.replace(/^state-/, "");
    node.classList.toggle("current", name === current);
    node.classList.toggle("visited", visited.has(name));
  }
  let previous = "idle";
  const taken = new Set();
  let last = null;
  for (const m of moves) {
    last = `move-${m.trigger}-${previous}-${m.state}`;
    taken.add(last);
    previous = m.state;
  }
  for (const edge of svg.querySelectorAll("g.move")) {
    edge.classList.toggle("taken", taken.has(edge.id));
    edge.classList.toggle("last", edge.id === last);
  }
}

// ---- the inspector ---------------------------------------------------------------------------------------
function summarize(event) {
  if (event === null || event === undefined) return "(the run itself)";
  if (typeof event.data === "string") return `text delta ${JSON.stringify(event.data)}`;
  if (typeof event.reasoningText === "string") return `reasoning delta ${JSON.stringify(event.reasoningText)}`;
  if (event.event && typeof event.event === "object") {
    const [kind, body] = Object.entries(event.event)[0] || ["?", {}];
    const tool = body?.start?.toolUse?.name;
    const stop = body?.stopReason;
    return `model ${kind}${tool ? ` (toolUse ${tool})` : ""}${stop ? ` (${stop})` : ""}`;
  }
  if (event.message && typeof event.message === "object") return `message (${event.message.role}, ${(event.message.content || []).length} blocks)`;
  if (typeof event.type === "string") return event.type;
  const flags = Object.keys(event).filter((k) => event[k] === true);
  return flags.length ? flags.join(", ") : Object.keys(event).slice(0, 3).join(", ");
}

const aguiLabel = (ev) => (ev.type === "CUSTOM" ? `CUSTOM ${ev.name}` : ev.type === "RUN_FINISHED" && ev.outcome ? `RUN_FINISHED ${ev.outcome.type}` : ev.type);

function stepRow(step, index) {
  const row = el("li", { class: "step-row", "data-testid": "inspector-step" });
  const line = el("details", {});
  const summary = el("summary", {});
  summary.append(el("span", { class: "step-index muted" }, String(index + 1)),
    el("span", { class: "step-cause", "data-testid": "step-event" }, summarize(step.event)));
  const moves = el("span", { class: "step-moves", "data-testid": "step-transitions" });
  for (const t of step.transitions) moves.append(el("span", { class: "move-chip" }, `${t.trigger} → ${t.state}`));
  // a subagent's own machine (not drawn on the diagram, which is the run's)
  for (const t of step.subagents) moves.append(el("span", { class: "move-chip sub-move", "data-testid": "subagent-move" }, `${t.subagent}: ${t.trigger} → ${t.state}`));
  // an input the state could not take: set aside, moved nothing
  for (const t of step.declined || []) moves.append(el("span", { class: "move-chip declined-move", "data-testid": "declined-move" }, `${t.subagent ? t.subagent + ": " : ""}declined ${t.trigger} in ${t.state}`));
  const out = el("span", { class: "step-agui", "data-testid": "step-agui" });
  summary.append(moves, out);
  line.append(summary, el("pre", { class: "step-json" }, JSON.stringify(step.event, null, 2)));
  row.append(line);
  return row;
}

function refreshRow(row, step) {
  row.dataset.quiet = String(!step.transitions.length && !step.subagents.length && !step.agui.length);  // moved nothing, sent nothing
  const out = row.querySelector(".step-agui");
  for (let i = out.children.length; i < step.agui.length; i++) out.append(el("span", { class: "agui-chip" }, aguiLabel(step.agui[i])));
}

export function renderInspector(thread, selectedRunId) {
  const select = $("inspector-run");
  const runs = thread.runs;
  const options = runs.map((r, i) => `${r.runId}|${i + 1}. ${r.label} (${r.status})`).join("\n");
  if (select.dataset.options !== options) {
    select.dataset.options = options;
    select.replaceChildren(...runs.map((r, i) => el("option", { value: r.runId }, `${i + 1}. ${r.label} · ${r.status}`)));
  }
  const run = runs.find((r) => r.runId === selectedRunId) || runs[runs.length - 1] || null;
  if (run) select.value = run.runId;
  const list = $("inspector");
  if (list.dataset.runId !== (run?.runId || "")) { list.replaceChildren(); list.dataset.runId = run?.runId || ""; }
  if (run) {
    run.steps.forEach((step, i) => {
      const row = list.children[i] || list.appendChild(stepRow(step, i));
      refreshRow(row, step);
    });
  }
  const empty = !run ? "Send a message: each Strands event, the moves it made and the AG-UI events it produced appear here."
    : !run.steps.length && run.status !== "running" ? "This server sent no trace for the run (inspection is off): AG-UI events only." : "";
  setText($("inspector-empty"), empty);
  $("download-trace").disabled = !run || !run.steps.length;
  $("download-log").disabled = !run || !run.log;
  $("download-log").title = run?.logNote || "The run's Strands events as a log: strands-agui replay FILE";
  renderMachine(run);
  return run;
}

// ---- downloads -------------------------------------------------------------------------------------------
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
