// The run machine a person reads: a focused view that follows the run (the state it is in, where it came
// from by which move, and the moves it can take next), and the whole machine one click away
// (run_machine.svg, drawn from core/machine.py's table by `make diagrams`), zoomable and panned to the
// current state. Both are read from the trace the server sends when inspection is on (store.js).
"use strict";

import { transitionsOf } from "./store.js";
import { el, setText } from "./dom.js";

const ZOOM_STEP = 1.25;
// The moves of the table as the SVG names them: id "move-<trigger>-<source>-<target>" (names use "_" only).
function movesOf(svg) {
  return [...svg.querySelectorAll("g.move")].map((g) => {
    const [, trigger, source, target] = g.id.split("-");
    return { id: g.id, trigger, source, target };
  }).filter((m) => m.trigger && m.source && m.target);
}

const STATE_WORDS = {
  idle: "before the run", ready: "ready for the model", streaming_text: "the model is writing",
  reasoning: "the model is reasoning", in_tool_call: "the model is writing a tool call",
  awaiting_result: "tools are running", halted: "halted: a frontend tool, a tool that ends the run, or a cancel",
  paused: "paused: waiting for a person's answer", finished: "the run finished", errored: "the run failed",
};

export class MachineView {
  constructor(root) {
    this.root = root;           // {panel, pill, last, focus, full, diagram, zoomIn, zoomOut, zoomFit}
    this.zoom = 1;              // "fit", or screen pixels per SVG unit
    this.moves = [];
    this.shown = null;
  }

  async load() {
    const { diagram } = this.root;
    try {
      const response = await fetch("/console/run_machine.svg");
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const svg = new DOMParser().parseFromString(await response.text(), "image/svg+xml").documentElement;
      if (svg.nodeName !== "svg") throw new Error("not an SVG document");
      svg.removeAttribute("width");
      svg.removeAttribute("height");
      svg.setAttribute("role", "img");
      svg.setAttribute("aria-label", "The run machine: states and moves");
      diagram.replaceChildren(document.importNode(svg, true));
      this.moves = movesOf(diagram.querySelector("svg"));
      this.setZoom(1);
    } catch (err) {
      diagram.replaceChildren(el("p", { class: "muted" }, `The machine diagram could not be loaded: ${err.message}`));
    }
  }

  wire() {
    const { zoomIn, zoomOut, zoomFit, diagram, full } = this.root;
    zoomIn.addEventListener("click", () => this.zoomBy(ZOOM_STEP));
    zoomOut.addEventListener("click", () => this.zoomBy(1 / ZOOM_STEP));
    zoomFit.addEventListener("click", () => this.setZoom("fit"));
    full.addEventListener("toggle", () => { if (full.open) this.centerCurrent(); });
    let from = null;  // drag to pan a zoomed diagram
    diagram.addEventListener("pointerdown", (e) => {
      if (this.zoom !== "fit") { from = { x: e.clientX, y: e.clientY }; diagram.setPointerCapture(e.pointerId); }
    });
    diagram.addEventListener("pointermove", (e) => {
      if (!from) return;
      diagram.scrollLeft -= e.clientX - from.x;
      diagram.scrollTop -= e.clientY - from.y;
      from = { x: e.clientX, y: e.clientY };
    });
    for (const type of ["pointerup", "pointercancel"]) diagram.addEventListener(type, () => { from = null; });
  }

  setZoom(next) {
    const { diagram, zoomFit } = this.root, svg = diagram.querySelector("svg");
    this.zoom = next;
    diagram.dataset.zoom = next === "fit" ? "fit" : "scaled";
    zoomFit.setAttribute("aria-pressed", String(next === "fit"));
    if (!svg) return;
    const width = svg.viewBox.baseVal?.width || 600;
    svg.style.width = next === "fit" ? "" : `${Math.round(width * next)}px`;
    if (next !== "fit") this.centerCurrent();
  }

  zoomBy(factor) {
    const svg = this.root.diagram.querySelector("svg");
    const fitted = svg ? svg.getBoundingClientRect().width / (svg.viewBox.baseVal?.width || 600) : 1;
    this.setZoom(Math.min(4, Math.max(0.3, (this.zoom === "fit" ? fitted : this.zoom) * factor)));
  }

  // Scroll the zoomed diagram so the current state is in view.
  centerCurrent() {
    const { diagram } = this.root, node = diagram.querySelector("g.state.current");
    if (!node || this.zoom === "fit") return;
    const box = node.getBoundingClientRect(), view = diagram.getBoundingClientRect();
    diagram.scrollLeft += box.left + box.width / 2 - (view.left + view.width / 2);
    diagram.scrollTop += box.top + box.height / 2 - (view.top + view.height / 2);
  }

  // Show `run` (null: none yet); `busy`: its request is still in flight.
  render(run, busy) {
    const moves = transitionsOf(run);
    const current = moves.length ? moves[moves.length - 1].state : "idle";
    const previous = moves.length > 1 ? moves[moves.length - 2].state : "idle";
    const last = moves[moves.length - 1] || null;
    const stopped = run && !busy && ["stopped", "unreachable"].includes(run.status) ? run.status : "";
    const untraced = run && !run.steps.length && !busy;
    const { panel, pill, last: lastLine } = this.root;
    panel.dataset.state = stopped || current;
    setText(pill, stopped ? `stopped in ${current}` : untraced ? `${current} (no trace from the server)` : current);
    setText(lastLine, !moves.length ? (run ? "No move traced for this run yet." : "No move yet: send a message.")
      : `Last move: ${last.trigger}  ${previous} → ${current}`);
    this.renderFocus({ current, previous, last, stopped, untraced, run });
    this.highlight(moves, current);
  }

  renderFocus({ current, previous, last, stopped, untraced, run }) {
    const { focus } = this.root;
    const next = this.moves.filter((m) => m.source === current);
    const key = JSON.stringify([current, previous, last?.trigger, stopped, untraced, !!run, next.length]);
    if (focus.dataset.key === key) return;
    focus.dataset.key = key;
    const from = el("div", { class: "focus-from", "data-testid": "focus-from" });
    if (last) from.append(el("span", { class: "focus-state" }, previous), el("span", { class: "focus-arrow" }, ` ${last.trigger} → `));
    else from.append(el("span", { class: "muted" }, run ? "no move traced yet" : "the run starts here"));
    const now = el("div", { class: "focus-now" });
    now.append(el("span", { class: "focus-current", "data-testid": "focus-current" }, current),
      el("span", { class: "focus-words muted" }, STATE_WORDS[current] || ""));
    const note = stopped === "stopped" ? "You stopped the run here: the server cancels it (no further moves are sent)."
      : stopped ? "The connection to the server was lost here." : untraced ? "This server sends no trace (inspection is off)." : "";
    const exits = el("ul", { class: "focus-next", "data-testid": "focus-next", "aria-label": "Moves it can take next" });
    for (const m of next) exits.append(el("li", { "data-testid": "focus-next-move" }, `${m.trigger} → ${m.target}`));
    if (!next.length) exits.append(el("li", { class: "muted" }, "an end state: no move leaves it"));
    focus.replaceChildren(from, now, ...(note ? [el("p", { class: "focus-note", "data-testid": "focus-note" }, note)] : []),
      el("div", { class: "focus-label muted" }, "next possible moves"), exits);
  }

  highlight(moves, current) {
    const svg = this.root.diagram.querySelector("svg");
    if (!svg) return;
    const visited = new Set(["idle", ...moves.map((m) => m.state)]);
    for (const node of svg.querySelectorAll("g.state")) {
      const name = node.id.replace(/^state-/, "");
      node.classList.toggle("current", name === current);
      node.classList.toggle("visited", visited.has(name));
    }
    let previous = "idle", last = null;
    const taken = new Set();
    for (const m of moves) {
      last = `move-${m.trigger}-${previous}-${m.state}`;
      taken.add(last);
      previous = m.state;
    }
    for (const edge of svg.querySelectorAll("g.move")) {
      edge.classList.toggle("taken", taken.has(edge.id));
      edge.classList.toggle("last", edge.id === last);
      edge.classList.toggle("next", edge.id.split("-")[2] === current);
    }
    if (this.shown !== current) { this.shown = current; this.centerCurrent(); }
  }
}
