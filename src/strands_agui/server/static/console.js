// The console app: examples, one AG-UI thread per example, runs (with follow-ups for frontend tools and
// resumes for interrupts), the frontend tools the page runs, and the wiring of the panels.
"use strict";

import { addNotice, applyEvent, clone, currentRun, findCall, newThread, readEvents, uid } from "./agui.js";
import { download, loadDiagram, newRun, recordEvent, renderInspector, traceDocument, wireZoom } from "./machine.js";
import { renderState } from "./state.js";
import { forgetThread, regeneration, rememberThread, rememberedThreadId, restoreThread } from "./threads.js";
import { el, renderConversation, setText } from "./views.js";

const $ = (id) => document.getElementById(id);
const MAX_FOLLOW_UPS = 5;
const INSPECT = { strandsAgui: { inspect: true } };  // ask for the trace and the log (the server may ignore it)

// ---- frontend tools: the page runs these; each returns the tool message content or throws ---------------
const FORBIDDEN_CSS = /url\s*\(|image|element\s*\(|var\s*\(|env\s*\(|attr\s*\(|expression|[;{}\\<>@]|\/\*/i;

// A model-chosen background is applied only when it is a CSS colour or a CSS gradient: never url(...),
// image-set(...), a declaration block, an escape or anything else that could make the browser fetch.
export function checkBackground(value) {
  if (typeof value !== "string" || !value.trim()) throw new Error("background must be a CSS colour or gradient");
  const v = value.trim();
  if (v.length > 400 || FORBIDDEN_CSS.test(v)) throw new Error(`refused "${v.slice(0, 80)}": only a CSS colour or gradient is allowed`);
  if (CSS.supports("color", v)) return v;
  if (/^(repeating-)?(linear|radial|conic)-gradient\(/i.test(v) && CSS.supports("background-image", v)) return v;
  throw new Error(`"${v.slice(0, 80)}" is not a CSS colour or gradient`);
}

const FRONTEND_TOOLS = {
  change_background(args, thread) {
    const background = checkBackground(args?.background);
    thread.background = background;
    return `background changed to ${background}`;
  },
};

// ---- threads: one per example ----------------------------------------------------------------------------
const threads = {};
let examples = [];
let current = null;      // the selected example
let controller = null;   // AbortController of the run in flight
let selectedRun = null;  // the run the inspector shows (null: the newest)

function thread(path = current.path) {
  if (threads[path]) return threads[path];
  const t = threads[path] = newThread(examples.find((e) => e.path === path)?.initialState);
  t.threadId = rememberedThreadId(path) || t.threadId;  // a reload continues the thread (threads.js)
  rememberThread(path, t.threadId);
  restoreThread(path, t).then((restored) => restored && render(path));
  return t;
}

function setStatus(text, state = "idle") {
  setText($("status"), text);
  $("status").dataset.state = state;
}

function setBusy(busy) {
  for (const id of ["send", "example", "new-thread", "regenerate"]) $(id).disabled = busy;
  for (const b of document.querySelectorAll(".suggestion")) b.disabled = busy;
  $("stop").disabled = !busy;
  document.body.dataset.running = String(busy);
}

// ---- a run ------------------------------------------------------------------------------------------------
async function streamRun(example, t, input) {
  const response = await fetch(example.path, {
    method: "POST", body: JSON.stringify(input), signal: controller.signal,
    headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
  });
  if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}: ${await response.text()}`);
  let terminal = null;
  for await (const ev of readEvents(response)) {
    const run = currentRun(t);
    recordEvent(run, ev);
    applyEvent(t, ev);
    if (ev.type === "RUN_FINISHED" || ev.type === "RUN_ERROR") terminal = ev.type;
    scheduleRender(example.path);
  }
  if (!terminal) addNotice(t, "error", "The stream ended without RUN_FINISHED or RUN_ERROR.");
  return terminal;
}

async function run(example, { label = "message", resume = undefined, followUps = 0, parentRunId = undefined } = {}) {
  const t = thread(example.path);
  const input = {
    threadId: t.threadId, runId: uid(), messages: clone(t.messages.filter((m) => m.role !== "activity")),
    state: clone(t.state), tools: example.frontendTools || [], context: [], forwardedProps: INSPECT,
    protocolVersion: "1.0", // the console reads the AG-UI 1.0 stream (docs/protocol-versions.md)
  };
  if (resume) input.resume = resume;
  if (parentRunId) input.parentRunId = parentRunId;
  t.runs.push(newRun(input, label));
  selectedRun = null;
  controller = new AbortController();
  setBusy(true);
  setStatus(followUps ? `running follow-up ${followUps}…` : "running…", "running");
  let terminal = null, stopped = false;
  try {
    terminal = await streamRun(example, t, input);
  } catch (err) {
    stopped = err.name === "AbortError";
    addNotice(t, stopped ? "halt" : "error", stopped ? "Run stopped." : `${err.message || err}`);
    currentRun(t).status = stopped ? "stopped" : "error";
  } finally {
    controller = null;
    setBusy(false);
  }
  if (currentRun(t).status === "running") currentRun(t).status = terminal ? "finished" : "error";
  const failed = terminal !== "RUN_FINISHED";
  setStatus(failed ? (stopped ? "stopped" : "error") : currentRun(t).status === "interrupt" ? "waiting for you" : "idle",
    failed && !stopped ? "error" : "idle");
  render(example.path);
  if (!failed && runFrontendTools(example, t)) {
    if (followUps >= MAX_FOLLOW_UPS) addNotice(t, "error", `Stopped after ${MAX_FOLLOW_UPS} automatic follow-up runs.`);
    else return run(example, { label: "tool result", followUps: followUps + 1 });
    render(example.path);
  }
}

// Answer this run's unanswered frontend tool calls in the page; true when a tool message was added.
function runFrontendTools(example, t) {
  const declared = new Set((example.frontendTools || []).map((tool) => tool.name));
  const answered = new Set(t.messages.filter((m) => m.role === "tool").map((m) => m.toolCallId));
  const r = currentRun(t);
  const pending = r.outcome?.pendingToolCallIds || r.calls;
  const ran = [];  // frontend tools this page ran for the run
  for (const id of pending) {
    const call = findCall(t.messages, id);
    if (!call || answered.has(id) || !declared.has(call.function.name)) continue;
    const tool = FRONTEND_TOOLS[call.function.name];
    if (!tool) { addNotice(t, "error", `No handler in this page for the frontend tool ${call.function.name}.`); continue; }
    const message = { id: uid(), role: "tool", toolCallId: id, content: "" };
    try { message.content = String(tool(JSON.parse(call.function.arguments || "{}"), t)); }
    catch (err) { message.content = `error: ${err.message}`; message.error = err.message; }
    ran.push(call.function.name);
    addNotice(t, "halt", `The run paused for the frontend tool ${call.function.name}: the page ran it and sends the result.`);
    t.messages.push(message);
  }
  return ran.length > 0;
}

// An interrupt answered on its card; the resume is sent once every pending interrupt has an answer.
function answerInterrupt(notice, interrupt, answer) {
  if (controller) return;
  notice.answered = { ...(notice.answered || {}), [interrupt.id]: answer };
  render(current.path);
  const answers = notice.interrupts.map((i) => notice.answered[i.id]);
  if (answers.some((a) => !a)) return;
  const resume = notice.interrupts.map((i, k) => ({ interruptId: i.id, ...answers[k] }));
  const label = resume.every((r) => r.payload?.approved === false || r.status === "cancelled") ? "resume: rejected" : "resume";
  run(current, { label, resume });
}

// ---- rendering --------------------------------------------------------------------------------------------
let renderQueued = false;
function scheduleRender(path) {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(() => { renderQueued = false; render(path); });
}

// The calls a run in flight may still answer: its own, and on a resume the parked ones it continues.
function liveCalls(t) {
  const r = currentRun(t);
  if (!controller || !r || r.status !== "running") return new Set();
  if (!r.input.resume) return new Set(r.calls);
  return new Set(t.messages.flatMap((m) => (m.toolCalls || []).map((c) => c.id)));
}

function render(path) {
  if (!current || path !== current.path) return;
  const t = thread();
  const frontend = new Set((current.frontendTools || []).map((tool) => tool.name));
  const results = new Map(t.messages.filter((m) => m.role === "tool").map((m) => [m.toolCallId, m]));
  const approvals = new Set(t.pendingInterrupts.map((i) => i.toolCallId).filter(Boolean));
  const live = liveCalls(t);
  const list = $("messages");
  const stick = list.scrollHeight - list.scrollTop - list.clientHeight < 60;
  renderConversation(list, t, { messages: t.messages, results, frontend, approvals, live, busy: !!controller, onAnswer: answerInterrupt,
    feedback: { path, threadId: t.threadId } });
  if (stick) list.scrollTop = list.scrollHeight;
  $("chat").style.background = t.background;  // per thread: never carried to another example
  $("chat").dataset.background = t.background;
  renderState($("state"), t.state, (state) => { if (!controller) { t.state = state; render(path); } });
  setText($("thread-id"), `thread ${t.threadId.slice(0, 8)}`);
  renderInspector(t, selectedRun);
}

// The example's suggested prompts (GET /examples `prompts`): a click sends one.
function renderSuggestions() {
  const buttons = (current.prompts || []).map((text) => {
    const b = el("button", { type: "button", class: "suggestion", "data-testid": "suggestion" }, text);
    b.addEventListener("click", () => sendMessage(text));
    return b;
  });
  $("suggestions").replaceChildren(...buttons);
}

function select(path) {
  current = examples.find((e) => e.path === path) || examples[0];
  if (!current) return;
  $("example").value = current.path;
  setText($("description"), current.description || "");
  $("messages").replaceChildren();
  selectedRun = null;
  history.replaceState(null, "", `#${current.path.replace(/^\//, "")}`);
  renderSuggestions();
  render(current.path);
}

// ---- wiring -----------------------------------------------------------------------------------------------
$("example").addEventListener("change", (e) => select(e.target.value));
window.addEventListener("hashchange", () => {
  const path = "/" + decodeURIComponent(location.hash.slice(1));
  if (!controller && current && path !== current.path) select(path);
});
$("new-thread").addEventListener("click", () => {
  delete threads[current.path];
  forgetThread(current.path);
  select(current.path);
});
$("regenerate").addEventListener("click", () => {
  const t = thread(), kept = regeneration(t);
  if (!kept || controller) return;
  const parentRunId = t.runs.at(-1)?.input.runId || t.threadId;  // the run whose answer is redone
  t.messages = kept;
  run(current, { label: "regenerate", parentRunId });
});
$("stop").addEventListener("click", () => controller && controller.abort());
$("inspector-run").addEventListener("change", (e) => { selectedRun = e.target.value; render(current.path); });
$("show-quiet").addEventListener("change", (e) => { $("inspector").dataset.quiet = e.target.checked ? "shown" : "hidden"; });
$("download-trace").addEventListener("click", () => {
  const t = thread(), r = t.runs.find((x) => x.runId === $("inspector-run").value);
  if (r) download(`trace-${r.runId}.json`, JSON.stringify(traceDocument(t, r), null, 2), "application/json");
});
$("download-log").addEventListener("click", () => {
  const r = thread().runs.find((x) => x.runId === $("inspector-run").value);
  if (r?.log) download(`run-${r.runId}.jsonl`, r.log, "application/x-ndjson");
});
$("composer").addEventListener("submit", (e) => {
  e.preventDefault();
  if (sendMessage($("prompt").value.trim())) $("prompt").value = "";
});

// A new user message; a pending interrupt it leaves unanswered is superseded (the server abandons the pause).
function sendMessage(text) {
  if (!text || !current || controller) return false;
  const t = thread();
  t.messages.push({ id: uid(), role: "user", content: text });
  for (const n of t.notices) if (n.kind === "interrupt" && !n.answered) n.superseded = true;
  t.pendingInterrupts = [];
  render(current.path);
  run(current);
  return true;
}

wireZoom();

(async function init() {
  loadDiagram().then(() => current && render(current.path));
  try {
    const response = await fetch("/examples", { headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
    examples = await response.json();
  } catch (err) {
    $("messages").append(el("li", { class: "notice notice-error", role: "alert", "data-testid": "error" }, `Could not load /examples: ${err.message}`));
    return;
  }
  for (const ex of examples) $("example").append(el("option", { value: ex.path }, ex.name || ex.path));
  select("/" + decodeURIComponent(location.hash.slice(1)));
  document.body.dataset.ready = "true";
})();
