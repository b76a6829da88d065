// The run machine a person reads: a focused view that follows the run (the state it is in, where it came
// from by which move, its subagents' own machines beside it, the moves it can take next), a scrubber over the
// recorded moves (the run's and its subagents', in the order the trace gave them) and the whole machine one
// click away (run_machine.svg, drawn from core/machine.py's table by `make diagrams`), in a sheet over the page,
// fitted to the window but never below a readable size, panned to the state shown. All of it is read from the
// trace the server sends when inspection is on (store.js).
"use strict";

import { el, setText } from "./dom.js";
import { focusParts, scrubLabel, timelineOf, viewAt } from "./machine_view.js";

const ZOOM_STEP = 1.25;
const READABLE = 0.95;  // the least Fit scales to: a state's name (11 units) about 10.5 px tall; below, it pans

// The moves of the table as the SVG names them: id "move-<trigger>-<source>-<target>" (names use "_" only); a
// move drawn twice (one per guard) is listed once.
function movesOf(svg) {
  const seen = new Map();
  for (const g of svg.querySelectorAll("g.move")) {
    const [, trigger, source, target] = g.id.split("-");
    if (trigger && source && target && !seen.has(g.id)) seen.set(g.id, { id: g.id, trigger, source, target });
  }
  return [...seen.values()];
}

export class MachineView {
  constructor(root) {
    // {panel, pill, last, focus, full, sheet, beside (the chat: a wide sheet leaves it free), diagram, zoomIn,
    //  zoomOut, zoomFit, close, scrubber, scrub, prev, next, live, label, panelSlot, sheetSlot, title}
    this.root = root;
    this.zoom = "fit";          // "fit", or screen pixels per SVG unit
    this.moves = [];
    this.shown = null;
    this.at = null;             // the scrubber's position (moves shown), null: the latest, following the run
    this.runId = null;
    this.last = null;           // what render() was last given: {run, busy, context}
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
      this.setZoom(this.zoom);
    } catch (err) {
      diagram.replaceChildren(el("p", { class: "muted" }, `The machine diagram could not be loaded: ${err.message}`));
    }
  }

  wire() {
    const { zoomIn, zoomOut, zoomFit, full, close } = this.root;
    zoomIn.addEventListener("click", () => this.zoomBy(ZOOM_STEP));
    zoomOut.addEventListener("click", () => this.zoomBy(1 / ZOOM_STEP));
    zoomFit.addEventListener("click", () => this.setZoom("fit"));
    close.addEventListener("click", () => { full.open = false; });
    full.addEventListener("toggle", () => this.opened());
    full.addEventListener("keydown", (e) => { if (e.key === "Escape") full.open = false; });
    window.addEventListener("resize", () => {
      if (!full.open) return;
      this.placeSheet();
      if (this.zoom === "fit") this.setZoom("fit");
    });
    this.wirePan();
    this.wireScrubber();
  }

  // The sheet opened (the scrubber moves into it, the diagram fits the window) or closed (back to the panel).
  opened() {
    const { full, scrubber, sheetSlot, panelSlot } = this.root;
    (full.open ? sheetSlot : panelSlot).append(scrubber);
    document.body.dataset.machineOpen = String(full.open);
    if (full.open) { this.placeSheet(); this.setZoom("fit"); this.root.close.focus(); }
  }

  // Wide (>= 1280 px): the sheet beside the chat, so a person sends and watches the whole machine at once;
  // narrower, it covers the window (Close, or Escape, goes back to the chat).
  placeSheet() {
    const { sheet, beside } = this.root;
    const wide = window.innerWidth >= 1280 && beside, box = beside?.getBoundingClientRect();
    sheet.style.left = wide ? `${Math.round(box.right + 12)}px` : "";
    sheet.style.top = wide ? `${Math.round(Math.max(12, box.top))}px` : "";  // the header's controls stay free
  }

  wirePan() {
    const { diagram } = this.root;
    let from = null;  // drag to pan a diagram larger than its box
    diagram.addEventListener("pointerdown", (e) => {
      from = { x: e.clientX, y: e.clientY };
      diagram.setPointerCapture(e.pointerId);
    });
    diagram.addEventListener("pointermove", (e) => {
      if (!from) return;
      diagram.scrollLeft -= e.clientX - from.x;
      diagram.scrollTop -= e.clientY - from.y;
      from = { x: e.clientX, y: e.clientY };
    });
    for (const type of ["pointerup", "pointercancel"]) diagram.addEventListener(type, () => { from = null; });
  }

  wireScrubber() {
    const { scrub, prev, next, live } = this.root;
    scrub.addEventListener("input", () => this.scrubTo(Number(scrub.value)));
    prev.addEventListener("click", () => this.step(-1));
    next.addEventListener("click", () => this.step(1));
    live.addEventListener("click", () => this.scrubTo(null));
  }

  // Move the scrubber to `at` moves shown (null: the latest, following the run).
  scrubTo(at) {
    const total = this.timeline().length;
    this.at = at === null || at >= total ? null : Math.max(0, at);
    if (this.last) this.render(this.last.run, this.last.busy, this.last.context);
  }

  // One move back or on, passing over the moves that stay in their state (deltas, progress).
  step(direction) {
    const timeline = this.timeline();
    let at = this.at ?? timeline.length;
    do { at += direction; } while (at > 0 && at < timeline.length && timeline[at - 1].state === timeline[at - 1].previous);
    this.scrubTo(Math.min(Math.max(at, 0), timeline.length));
  }

  timeline() { return timelineOf(this.last?.run); }

  setZoom(next) {
    const { diagram, zoomFit } = this.root, svg = diagram.querySelector("svg");
    this.zoom = next;
    diagram.dataset.zoom = next === "fit" ? "fit" : "scaled";
    zoomFit.setAttribute("aria-pressed", String(next === "fit"));
    if (!svg) return;
    const box = svg.viewBox.baseVal, scale = next === "fit" ? this.fitScale(box) : next;
    svg.style.width = `${Math.round((box?.width || 600) * scale)}px`;
    diagram.dataset.scale = scale.toFixed(2);
    this.centerCurrent();
  }

  // The largest scale showing the whole diagram in its box, but never under READABLE (then it pans).
  fitScale(box) {
    const { diagram } = this.root;
    const width = diagram.clientWidth - 24, height = diagram.clientHeight - 24;
    if (!box?.width || width <= 0 || height <= 0) return 1;
    return Math.max(READABLE, Math.min(width / box.width, height / box.height, 2.5));
  }

  zoomBy(factor) {
    const current = Number(this.root.diagram.dataset.scale) || 1;
    this.setZoom(Math.min(4, Math.max(0.3, current * factor)));
  }

  // Scroll the diagram so the current state is in view (centred when the diagram is larger than its box).
  centerCurrent() {
    const { diagram } = this.root, node = diagram.querySelector("g.state.current");
    if (!node) return;
    const box = node.getBoundingClientRect(), view = diagram.getBoundingClientRect();
    diagram.scrollLeft += box.left + box.width / 2 - (view.left + view.width / 2);
    diagram.scrollTop += box.top + box.height / 2 - (view.top + view.height / 2);
  }

  // Show `run` (null: none yet); `busy`: its request is still in flight; `context`: {restored, waiting} of the
  // thread (restored from the server after a reload; a pending approval).
  render(run, busy, context = {}) {
    if ((run?.runId || null) !== this.runId) { this.runId = run?.runId || null; this.at = null; }
    this.last = { run, busy, context };
    const timeline = timelineOf(run);
    const view = viewAt(timeline, this.at ?? timeline.length);
    const ended = run && !busy && ["stopped", "unreachable"].includes(run.status) ? run.status : "";
    const parts = focusParts({ run, busy, view, ended, context, moves: this.moves, scrubbing: this.at !== null });
    const { panel, pill, last: lastLine } = this.root;
    panel.dataset.state = parts.panelState;
    panel.dataset.scrubbing = String(this.at !== null);
    setText(pill, parts.pill);
    setText(lastLine, parts.lastLine);
    setText(this.root.title, view.owner ? `Run machine: ${view.owner}'s own (a subagent's)` : `Run machine: ${parts.pill}`);
    this.renderFocus(parts);
    this.renderScrubber(timeline);
    this.highlight(view.diagram, view.diagramState);
  }

  renderFocus(parts) {
    const { focus } = this.root;
    const key = JSON.stringify(parts);
    if (focus.dataset.key === key) return;
    focus.dataset.key = key;
    const from = el("div", { class: "focus-from", "data-testid": "focus-from" });
    if (parts.from) from.append(el("span", { class: "focus-state" }, parts.from.previous), el("span", { class: "focus-arrow" }, ` ${parts.from.trigger} → `));
    else from.append(el("span", { class: "muted" }, parts.fromText));
    const now = el("div", { class: "focus-now" });
    now.append(el("span", { class: "focus-current", "data-testid": "focus-current" }, parts.current),
      el("span", { class: "focus-words muted", "data-testid": "focus-words" }, parts.words));
    const nodes = [from, now];
    if (parts.note) nodes.push(el("p", { class: "focus-note", "data-testid": "focus-note" }, parts.note));
    if (parts.subagents.length) nodes.push(subagentList(parts.subagents));
    nodes.push(el("div", { class: "focus-label muted" }, parts.nextLabel));
    const exits = el("ul", { class: "focus-next", "data-testid": "focus-next", "aria-label": parts.nextLabel });
    for (const m of parts.next) exits.append(el("li", { "data-testid": "focus-next-move" }, `${m.trigger} → ${m.target}`));
    if (!parts.next.length) exits.append(el("li", { class: "muted", "data-testid": "focus-no-move" }, parts.noMove));
    focus.replaceChildren(...nodes, exits);
  }

  renderScrubber(timeline) {
    const { scrubber, scrub, prev, next, live, label } = this.root;
    const at = this.at ?? timeline.length;
    scrubber.hidden = !timeline.length;
    scrub.max = String(timeline.length);
    scrub.value = String(at);
    prev.disabled = at <= 0;
    next.disabled = live.disabled = this.at === null;
    setText(label, scrubLabel(timeline, at, this.at === null));
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

function subagentList(subagents) {
  const list = el("ul", { class: "focus-subagents", "data-testid": "focus-subagents", "aria-label": "Subagents' machines" });
  for (const s of subagents) {
    const li = el("li", { class: "focus-subagent", "data-testid": "focus-subagent", "data-state": s.state, "data-active": String(s.active) });
    li.append(el("span", { class: "focus-subagent-name" }, s.who), el("span", { class: "focus-subagent-state" }, s.label));
    list.append(li);
  }
  return list;
}
