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
    setZoom(1);  // readable at any window size: natural size, panned to the current state ("Fit" shows it all)
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
// "fit": the whole machine in the panel's width; a number: that many screen pixels per SVG unit, the panel
// scrolling (drag to pan) around the current state.
let zoom = 1;
const ZOOM_STEP = 1.25;

export function setZoom(next) {
  const holder = $("machine-diagram"), svg = holder.querySelector("svg");
  zoom = next;
  holder.dataset.zoom = next === "fit" ? "fit" : "scaled";
  $("zoom-fit").setAttribute("aria-pressed", String(next === "fit"));
  if (!svg) return;
  const width = svg.viewBox.baseVal?.width || 600;
  svg.style.width = next === "fit" ? "" : `${Math.round(width * next)}px`;
  if (next !== "fit") centerCurrent();
}

function zoomBy(factor) {
  const svg = $("machine-diagram").querySelector("svg");
  const fitted = svg ? svg.getBoundingClientRect().width / (svg.viewBox.baseVal?.width || 600) : 1;
  setZoom(Math.min(4, Math.max(0.3, (zoom === "fit" ? fitted : zoom) * factor)));
}

// Scroll the zoomed diagram so the current state is in view.
function centerCurrent() {
  const holder = $("machine-diagram"), node = holder.querySelector("g.state.current");
  if (!node || zoom === "fit") return;
  const box = node.getBoundingClientRect(), view = holder.getBoundingClientRect();
  holder.scrollLeft += box.left + box.width / 2 - (view.left + view.width / 2);
  holder.scrollTop += box.top + box.height / 2 - (view.top + view.height / 2);
}

// Drag to pan a zoomed diagram.
function enablePan(holder) {
  let from = null;
  holder.addEventListener("pointerdown", (e) => { if (zoom !== "fit") { from = { x: e.clientX, y: e.clientY }; holder.setPointerCapture(e.pointerId); } });
  holder.addEventListener("pointermove", (e) => {
    if (!from) return;
    holder.scrollLeft -= e.clientX - from.x;
    holder.scrollTop -= e.clientY - from.y;
    from = { x: e.clientX, y: e.clientY };
  });
  for (const type of ["pointerup", "pointercancel"]) holder.addEventListener(type, () => { from = null; });
}

export function wireZoom() {
  $("zoom-in").addEventListener("click", () => zoomBy(ZOOM_STEP));
  $("zoom-out").addEventListener("click", () => zoomBy(1 / ZOOM_STEP));
  $("zoom-fit").addEventListener("click", () => setZoom("fit"));
  enablePan($("machine-diagram"));
}

// The last move in words: "end_turn: streaming_text → halted".
function lastMoveText(moves, run) {
  if (!moves.length) return run ? "No move traced for this run yet." : "No move yet: send a message.";
  const m = moves[moves.length - 1], before = moves.length > 1 ? moves[moves.length - 2].state : "idle";
  return `Last move: ${m.trigger}  ${before} → ${m.state}`;
}

export function renderMachine(run) {
  const moves = transitionsOf(run);
  const current = moves.length ? moves[moves.length - 1].state : "idle";
  const svg = $("machine-diagram").querySelector("svg");
  $("machine-panel").dataset.state = current;
  setText($("machine-state"), run && !run.steps.length && run.status !== "running" ? `${current} (no trace from the server)` : current);
  setText($("machine-last"), lastMoveText(moves, run));
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
  if ($("machine-panel").dataset.shown !== current) { $("machine-panel").dataset.shown = current; centerCurrent(); }
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

// A streamed delta: {kind, text} for the model's raw chunk (the text is read there), {kind, text: ""} for the
// typed event Strands derives from it (same words, ignored by the translator), null for anything else.
function deltaOf(event) {
  const delta = event?.event?.contentBlockDelta?.delta;
  if (typeof delta?.text === "string") return { kind: "text", text: delta.text };
  if (typeof delta?.reasoningContent?.text === "string") return { kind: "reasoning", text: delta.reasoningContent.text };
  if (typeof event?.data === "string") return { kind: "text", text: "" };
  if (typeof event?.reasoningText === "string") return { kind: "reasoning", text: "" };
  return null;
}

// Consecutive deltas of one kind become one group (one row, with their text); any other step is its own.
export function groupSteps(steps) {
  const groups = [];
  for (const step of steps) {
    const delta = deltaOf(step.event);
    const last = groups[groups.length - 1];
    if (delta && last?.kind === delta.kind) { last.steps.push(step); last.text += delta.text; continue; }
    groups.push({ kind: delta?.kind || null, text: delta?.text || "", steps: [step] });
  }
  return groups;
}

// Labels in order, repeated ones counted: ["text_delta → streaming_text ×12", ...].
function counted(labels) {
  const counts = new Map();
  for (const l of labels) counts.set(l, (counts.get(l) || 0) + 1);
  return [...counts].map(([l, n]) => (n > 1 ? `${l} ×${n}` : l));
}

function groupRow(group, index) {
  const row = el("li", { class: "step-row", "data-testid": "inspector-step", "data-size": String(group.steps.length) });
  const line = el("details", {});
  const summary = el("summary", {});
  const deltas = group.steps.filter((s) => deltaOf(s.event)?.text !== "").length;
  const cause = group.kind ? `${group.kind} ×${deltas} ${JSON.stringify(group.text)}` : summarize(group.steps[0].event);
  summary.append(el("span", { class: "step-index muted" }, String(index + 1)),
    el("span", { class: `step-cause${group.kind ? " step-text-run" : ""}`, "data-testid": "step-event", title: group.kind ? group.text : "" }, cause));
  const moves = el("span", { class: "step-moves", "data-testid": "step-transitions" });
  for (const t of counted(group.steps.flatMap((s) => s.transitions.map((m) => `${m.trigger} → ${m.state}`)))) moves.append(el("span", { class: "move-chip" }, t));
  // a subagent's own machine (not drawn on the diagram, which is the run's)
  for (const t of counted(group.steps.flatMap((s) => s.subagents.map((m) => `${m.subagent}: ${m.trigger} → ${m.state}`)))) {
    moves.append(el("span", { class: "move-chip sub-move", "data-testid": "subagent-move" }, t));
  }
  // an input the state could not take: set aside, moved nothing
  for (const t of group.steps.flatMap((s) => s.declined || [])) {
    moves.append(el("span", { class: "move-chip declined-move", "data-testid": "declined-move" }, `${t.subagent ? t.subagent + ": " : ""}declined ${t.trigger} in ${t.state}`));
  }
  const out = el("span", { class: "step-agui", "data-testid": "step-agui" });
  for (const t of counted(group.steps.flatMap((s) => s.agui.map(aguiLabel)))) out.append(el("span", { class: "agui-chip" }, t));
  summary.append(moves, out);
  line.append(summary, el("pre", { class: "step-json" }, group.kind ? group.text : JSON.stringify(group.steps[0].event, null, 2)));
  row.append(line);
  row.dataset.quiet = String(group.steps.every((s) => !s.transitions.length && !s.subagents.length && !s.agui.length && !(s.declined || []).length));
  return row;
}

// The row of `group` at `index`, redrawn when the group grew or got new AG-UI events since it was drawn.
function groupKey(group) {
  return `${group.steps.length}:${group.steps.reduce((n, s) => n + s.agui.length, 0)}`;
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
    groupSteps(run.steps).forEach((group, i) => {
      const key = groupKey(group), row = list.children[i];
      if (row?.dataset.key === key) return;
      const fresh = groupRow(group, i);
      fresh.dataset.key = key;
      if (row) row.replaceWith(fresh); else list.append(fresh);
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
