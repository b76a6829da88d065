// The console app: the wiring of the page. It keeps the examples, one AG-UI thread per example (store.js),
// sends runs through the transport (transport.js) and draws the views (views.js, state.js, diagram.js,
// inspector.js). All of the page's mutable state lives on the one `ConsoleApp` instance; a run and its
// automatic follow-ups (frontend tools) are one loop.
"use strict";

import { logOf, download, traceDocument } from "./downloads.js";
import { MachineView } from "./diagram.js";
import { renderInspector } from "./inspector.js";
import { renderState } from "./state.js";
import { RENDER_TOOL } from "./a2ui.js";
import { runFrontendTools } from "./frontend_tools.js";
import { addOpenLog, logInput, replayLog } from "./openlog.js";
import {
  addNotice, applyEvent, clone, currentRun, endRun, liveCalls, newRun, newThread, recordEvent, rejectedCalls,
  settleInterrupts, threadStatus, uid,
} from "./store.js";
import { forgetThread, regeneration, rememberThread, rememberedThreadId, restoreThread } from "./threads.js";
import { cancelRun, fetchExamples, followRun, streamRun } from "./transport.js";
import { el, setText } from "./dom.js";
import { renderConversation } from "./views.js";

const $ = (id) => document.getElementById(id);
const MAX_FOLLOW_UPS = 5;
const INSPECT = { strandsAgui: { inspect: true } };  // ask for the trace and the log (the server may ignore it)

// The render calls streaming under each call (a2ui: generate_a2ui's designer is its subagent).
function a2uiStreams(t) {
  const parentOf = new Map([...t.subagents.values()].filter((b) => b.parentToolCallId).map((b) => [b.id, b.parentToolCallId]));
  const streams = new Map(), parents = new Set();
  for (const m of t.messages) {
    for (const c of m.toolCalls || []) {
      const parent = m.subagentRunId && parentOf.get(m.subagentRunId);
      if (c.function.name !== RENDER_TOOL || !parent) continue;
      streams.set(parent, c.function.arguments);
      parents.add(c.id);
    }
  }
  return { streams, parents };
}

// An A2UI click as the agent reads it: @ag-ui/a2ui-middleware's synthetic call and its result text.
const A2UI_ACTION_TOOL = "log_a2ui_event";
function a2uiActionResult(action) {
  let text = `User performed action "${action.name ?? "unknown_action"}" on surface "${action.surfaceId ?? "unknown_surface"}"`;
  if (action.sourceComponentId) text += ` (component: ${action.sourceComponentId})`;
  return `${text}. Context: ${JSON.stringify(action.context ?? {})}`;
}

class ConsoleApp {
  constructor() {
    this.threads = {};
    this.examples = [];
    this.current = null;      // the selected example
    this.controller = null;   // AbortController of the run in flight
    this.active = null;       // the run in flight ({path, runId, cancels}): Stop cancels it on the server when
                              // closing its stream would not (a resumable run, a run attached to after a reload)
    this.selectedRun = null;  // the run the inspector shows (null: the newest)
    this.renderQueued = false;
    this.unavailable = "";    // why nothing can be sent (no examples), or ""
    this.machine = new MachineView({
      panel: $("machine-panel"), pill: $("machine-state"), last: $("machine-last"), focus: $("machine-focus"),
      full: $("machine-full"), diagram: $("machine-diagram"), zoomIn: $("zoom-in"), zoomOut: $("zoom-out"), zoomFit: $("zoom-fit"),
      close: $("machine-close"), scrubber: $("machine-scrubber"), scrub: $("scrub"), prev: $("scrub-prev"),
      next: $("scrub-next"), live: $("scrub-live"), label: $("scrub-label"), panelSlot: $("machine-scrub-slot"),
      sheetSlot: $("machine-sheet-slot"), title: $("sheet-title"), sheet: $("machine-sheet"), beside: $("chat"),
    });
    this.inspector = { select: $("inspector-run"), list: $("inspector"), empty: $("inspector-empty") };
  }

  thread(path = this.current.path) {
    if (this.threads[path]) return this.threads[path];
    const t = this.threads[path] = newThread(this.examples.find((e) => e.path === path)?.initialState);
    const remembered = rememberedThreadId(path);  // a reload continues the thread (threads.js)
    t.threadId = remembered || t.threadId;
    // only a thread a run was sent on (remembered then), where the server keeps threads (GET /examples `threads`):
    // elsewhere the route would answer 404, which the browser logs
    if (remembered && this.examples.find((e) => e.path === path)?.threads !== false) {
      restoreThread(path, t).then((restored) => {
        if (restored) this.render(path);
        if (t.liveRun) this.attach(path, t);
      });
    }
    return t;
  }

  setBusy(busy) {
    const off = busy || !!this.unavailable;
    for (const id of ["send", "example", "new-thread", "regenerate", "prompt"]) $(id).disabled = off;
    if (!this.unavailable) $("example").disabled = busy;
    for (const b of document.querySelectorAll(".suggestion")) b.disabled = off;
    $("stop").disabled = !busy;
    document.body.dataset.running = String(busy);
  }

  // ---- a run and its follow-ups ---------------------------------------------------------------------------
  async run(example, { label = "message", resume = undefined, parentRunId = undefined, forwarded = undefined } = {}) {
    const t = this.thread(example.path);
    let next = { label, resume, parentRunId, forwarded };
    for (let followUps = 0; next; followUps += 1) {
      const ok = await this.runOnce(example, t, next);
      next = null;
      if (ok && runFrontendTools(example, t)) {
        if (followUps >= MAX_FOLLOW_UPS) addNotice(t, "error", `Stopped after ${MAX_FOLLOW_UPS} automatic follow-up runs.`);
        else next = { label: "tool result" };
      }
      this.render(example.path);
    }
  }

  // One request; true when it ended with RUN_FINISHED.
  async runOnce(example, t, { label, resume, parentRunId, forwarded }) {
    const input = {
      threadId: t.threadId, runId: uid(), messages: clone(t.messages.filter((m) => m.role !== "activity")),
      state: clone(t.state), tools: example.frontendTools || [], context: [], forwardedProps: { ...INSPECT, ...forwarded },
      protocolVersion: "1.0", // the console reads the AG-UI 1.0 stream (docs/protocol-versions.md)
    };
    if (resume) input.resume = resume;
    if (parentRunId) input.parentRunId = parentRunId;
    rememberThread(example.path, t.threadId);
    return this.consume(example.path, t, newRun(input, label), (signal) => streamRun(example.path, input, signal));
  }

  // A page reloaded while a run is on its thread: that run (the thread API's `liveRun`), from its first event.
  async attach(path, t) {
    const { runId } = t.liveRun;
    t.liveRun = null;
    const input = { threadId: t.threadId, runId, messages: clone(t.messages), state: clone(t.state) };
    await this.consume(path, t, newRun(input, "reattached"), (signal) => followRun(path, runId, signal), true);
  }

  // Apply a run's events to the thread as they come; true when it ended with RUN_FINISHED. A resumable run
  // (GET /examples `resumable`) outlives its stream, waiting for a reconnect: Stop cancels it by its cancel route.
  async consume(path, t, run, events, attached = false) {
    t.runs.push(run);
    this.selectedRun = null;
    const resumable = !!this.examples.find((e) => e.path === path)?.resumable;
    this.active = { path, runId: run.input.runId, cancels: attached || resumable };
    this.controller = new AbortController();
    t.busy = true;
    this.setBusy(true);
    this.render(path);
    let terminal = null, stopped = false, failure = null;
    try {
      for await (const ev of events(this.controller.signal)) {
        recordEvent(run, ev);
        applyEvent(t, ev);
        if (ev.type === "RUN_FINISHED" || ev.type === "RUN_ERROR") terminal = ev.type;
        this.scheduleRender(path);
      }
      if (!terminal) addNotice(t, "error", "The stream ended without RUN_FINISHED or RUN_ERROR.");
    } catch (err) {
      stopped = err.name === "AbortError";
      if (!stopped) failure = err;
      addNotice(t, stopped ? "halt" : "error", stopped ? "Run stopped." : `${err.message || err}`);
    } finally {
      this.controller = null;
      this.active = null;
      t.busy = false;
      this.setBusy(false);
    }
    endRun(t, run, { terminal, stopped, failure });
    this.render(path);
    return terminal === "RUN_FINISHED";
  }

  // An interrupt answered on its card; the resume is sent once every pending interrupt has an answer.
  answerInterrupt(notice, interrupt, answer) {
    if (this.controller) return;
    notice.answered = { ...(notice.answered || {}), [interrupt.id]: answer };
    this.render(this.current.path);
    const answers = notice.interrupts.map((i) => notice.answered[i.id]);
    if (answers.some((a) => !a)) return;
    const resume = notice.interrupts.map((i, k) => ({ interruptId: i.id, ...answers[k] }));
    const label = resume.every((r) => r.payload?.approved === false || r.status === "cancelled") ? "resume: rejected" : "resume";
    this.run(this.current, { label, resume });
  }

  // A new user message; a pending interrupt it leaves unanswered is superseded (the server abandons the pause).
  sendMessage(text) {
    if (!text || !this.current || this.controller || this.unavailable) return false;
    if (this.current.log) {
      addNotice(this.thread(), "error", "This is a replayed log: pick an agent to talk to.");
      this.render(this.current.path);
      return false;
    }
    const t = this.thread();
    t.messages.push({ id: uid(), role: "user", content: text });
    for (const n of t.notices) if (n.kind === "interrupt" && !n.answered && !n.settled) n.superseded = true;
    settleInterrupts(t, null);
    t.pendingInterrupts = [];
    this.render(this.current.path);
    this.run(this.current);
    return true;
  }

  // A click on an A2UI surface's button (a2ui.js): a new run carrying the userAction the way CopilotKit's
  // renderer sends it (forwardedProps.a2uiAction) and, since nothing stands between this page and the agent,
  // the messages @ag-ui/a2ui-middleware would append for it (a log_a2ui_event call and its result).
  sendA2uiAction(userAction) {
    if (!userAction || !this.current || this.controller || this.unavailable || this.current.log) return false;
    const t = this.thread();
    const callId = uid();
    t.messages.push(
      { id: uid(), role: "assistant", content: "", toolCalls: [{ id: callId, type: "function",
        function: { name: A2UI_ACTION_TOOL, arguments: JSON.stringify(userAction) } }] },
      { id: uid(), role: "tool", toolCallId: callId, content: a2uiActionResult(userAction) });
    this.render(this.current.path);
    this.run(this.current, { label: `a2ui: ${userAction.name}`, forwarded: { a2uiAction: { userAction } } });
    return true;
  }

  // ---- Open a log: a recorded run replayed through the same views, as a thread of its own (openlog.js) -----
  async openLog(name, text) {
    if (this.controller) return;
    const path = `log:${name}`;
    if (!this.examples.some((e) => e.path === path)) {
      this.examples.push({ path, name: `log: ${name}`, log: true, threads: false, frontendTools: [], prompts: [],
        description: `The run recorded in ${name}, replayed through the run machine (no model, no tool runs).` });
      $("example").append(el("option", { value: path }, `log: ${name}`));
    }
    const input = logInput(text) || {};
    const t = this.threads[path] = newThread(input.state);
    t.threadId = input.threadId || t.threadId;
    t.messages = clone(input.messages || []);
    const run = newRun({ ...input, runId: input.runId || uid() }, "log");
    t.runs.push(run);
    this.select(path);
    this.controller = new AbortController();
    t.busy = true;
    this.setBusy(true);
    let terminal = null, failure = null;
    try {
      for await (const ev of replayLog(text, this.controller.signal)) {
        recordEvent(run, ev);
        applyEvent(t, ev);
        if (ev.type === "RUN_FINISHED" || ev.type === "RUN_ERROR") terminal = ev.type;
        this.scheduleRender(path);
      }
    } catch (err) {
      failure = err;
      addNotice(t, "error", `${err.message || err}`);
    } finally {
      this.controller = null;
      t.busy = false;
      this.setBusy(false);
    }
    endRun(t, run, { terminal, stopped: false, failure });
    this.render(path);
  }

  // ---- rendering --------------------------------------------------------------------------------------------
  scheduleRender(path) {
    if (this.renderQueued) return;
    this.renderQueued = true;
    requestAnimationFrame(() => { this.renderQueued = false; this.render(path); });
  }

  render(path) {
    if (!this.current || path !== this.current.path) return;
    const t = this.thread();
    const frontend = new Set((this.current.frontendTools || []).map((tool) => tool.name));
    const results = new Map(t.messages.filter((m) => m.role === "tool").map((m) => [m.toolCallId, m]));
    const approvals = new Set(t.pendingInterrupts.map((i) => i.toolCallId).filter(Boolean));
    const { streams, parents } = a2uiStreams(t);
    const list = $("messages");
    const stick = list.scrollHeight - list.scrollTop - list.clientHeight < 60;
    renderConversation(list, t, { messages: t.messages, results, frontend, approvals, live: liveCalls(t), busy: t.busy,
      rejected: rejectedCalls(t), a2ui: streams, a2uiParents: parents, feedback: { path, threadId: t.threadId },
      onAnswer: (notice, interrupt, answer) => this.answerInterrupt(notice, interrupt, answer) });
    if (stick) list.scrollTop = list.scrollHeight;
    $("chat").style.background = t.background;  // per thread: never carried to another example
    $("chat").dataset.background = t.background;
    const last = currentRun(t);
    const settled = t.busy ? "" : last ? (["finished", "interrupt", "running"].includes(last.status) ? "" : last.status)
      : t.restored ? "ended" : "";  // restored with no run on it: what its plan left open is not in progress
    renderState($("state"), t.state, (state) => { if (!t.busy) { t.state = state; this.render(path); } }, { settled });
    setText($("thread-id"), `thread ${t.threadId.slice(0, 8)}`);
    const status = threadStatus(t);
    setText($("status"), status.text);
    $("status").dataset.state = status.state;
    const run = renderInspector(this.inspector, t, this.selectedRun);
    const log = logOf(run);
    $("download-trace").disabled = !run || !run.steps.length;
    $("download-log").disabled = !log.text;
    $("download-log").title = log.note;
    $("download-log").dataset.partial = String(log.partial);
    this.machine.render(run, t.busy, { restored: !!t.restored, waiting: t.pendingInterrupts.length > 0 });
  }

  // The example's suggested prompts (GET /examples `prompts`): a click sends one.
  renderSuggestions() {
    const buttons = (this.current.prompts || []).map((text) => {
      const b = el("button", { type: "button", class: "suggestion", "data-testid": "suggestion" }, text);
      b.addEventListener("click", () => this.sendMessage(text));
      return b;
    });
    $("suggestions").replaceChildren(...buttons);
  }

  select(path) {
    this.current = this.examples.find((e) => e.path === path) || this.examples[0];
    if (!this.current) return;
    $("example").value = this.current.path;
    setText($("description"), this.current.description || "");
    $("messages").replaceChildren();
    this.selectedRun = null;
    history.replaceState(null, "", `#${this.current.path.replace(/^\//, "")}`);
    this.renderSuggestions();
    this.setBusy(!!this.controller);
    this.render(this.current.path);
  }

  // Nothing to talk to: say why and what to do, and disable what cannot work.
  showUnavailable(message) {
    this.unavailable = message;
    $("messages").replaceChildren(el("li", { class: "notice notice-error", role: "alert", "data-testid": "error" }, message));
    $("example").disabled = true;
    $("example").replaceChildren(el("option", {}, "no agents"));
    setText($("status"), "no agents");
    $("status").dataset.state = "error";
    $("prompt").placeholder = "Nothing to send to: see the message above";
    this.setBusy(false);
  }

  // ---- wiring -----------------------------------------------------------------------------------------------
  wire() {
    $("example").addEventListener("change", (e) => this.select(e.target.value));
    window.addEventListener("hashchange", () => {
      const path = "/" + decodeURIComponent(location.hash.slice(1));
      if (!this.controller && this.current && path !== this.current.path) this.select(path);
    });
    $("new-thread").addEventListener("click", () => {
      delete this.threads[this.current.path];
      forgetThread(this.current.path);
      this.select(this.current.path);
    });
    $("regenerate").addEventListener("click", () => {
      const t = this.thread(), kept = regeneration(t);
      if (!kept || this.controller) return;
      const parentRunId = t.runs.at(-1)?.input.runId || t.threadId;  // the run whose answer is redone
      t.messages = kept;
      this.run(this.current, { label: "regenerate", parentRunId });
    });
    $("stop").addEventListener("click", () => {
      if (!this.controller) return;
      if (this.active?.cancels) cancelRun(this.active.path, this.active.runId);
      this.controller.abort();
    });
    $("messages").addEventListener("a2ui-action", (e) => this.sendA2uiAction(e.detail));
    $("inspector-run").addEventListener("change", (e) => { this.selectedRun = e.target.value; this.render(this.current.path); });
    $("show-quiet").addEventListener("change", (e) => { $("inspector").dataset.quiet = e.target.checked ? "shown" : "hidden"; });
    $("download-trace").addEventListener("click", () => {
      const t = this.thread(), r = t.runs.find((x) => x.runId === $("inspector-run").value);
      if (r) download(`trace-${r.runId}.json`, JSON.stringify(traceDocument(t, r), null, 2), "application/json");
    });
    $("download-log").addEventListener("click", () => {
      const r = this.thread().runs.find((x) => x.runId === $("inspector-run").value), log = logOf(r);
      if (log.text) download(`run-${r.runId}${log.partial ? ".partial" : ""}.jsonl`, log.text, "application/x-ndjson");
    });
    $("composer").addEventListener("submit", (e) => {
      e.preventDefault();
      if (this.sendMessage($("prompt").value.trim())) $("prompt").value = "";
    });
    addOpenLog($("new-thread"), (name, text) => this.openLog(name, text));
    this.machine.wire();
  }

  async start() {
    this.wire();
    this.machine.load().then(() => this.current && this.render(this.current.path));
    try {
      this.examples = await fetchExamples();
    } catch (err) {
      this.showUnavailable(err.status === 404
        ? "This server lists no agents: GET /examples answered 404. The console talks to the agents a server lists "
          + "there: serve them with `strands-agui serve` (or see docs/console.md to list your own), then reload."
        : `${err.message} Then reload this page.`);
      document.body.dataset.ready = "true";
      return;
    }
    if (!this.examples.length) {
      this.showUnavailable("This server lists no agents (GET /examples is empty): add one with "
        + "add_strands_fastapi_endpoint before mount_console (or serve the examples with `strands-agui serve`), then reload.");
      document.body.dataset.ready = "true";
      return;
    }
    for (const ex of this.examples) $("example").append(el("option", { value: ex.path }, ex.name || ex.path));
    this.select("/" + decodeURIComponent(location.hash.slice(1)));
    document.body.dataset.ready = "true";
  }
}

new ConsoleApp().start();
