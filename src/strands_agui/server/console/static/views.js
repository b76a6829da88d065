// What the page draws: the conversation (messages, tool cards, subagent blocks, notices, interrupt cards).
//
// Every string that came from a model, a tool or the state is put on the page with textContent, except the
// assistant's text, which goes through markdown.js (raw HTML escaped). Items are keyed, so a streaming
// update only touches what changed.
"use strict";

import { RENDER_TOOL, renderSurface, surfaceFromArgs, surfaceFromResult } from "./a2ui.js";
import { findCall } from "./store.js";
import { barChart, chartValues } from "./chart.js";
import { thumbs } from "./feedback.js";
import { renderMarkdown } from "./markdown.js";
import { el, reconcile, setText } from "./dom.js";


function keyed(container, key, make) {
  return container.querySelector(`:scope > [data-key="${CSS.escape(key)}"]`) || make();
}

const contentText = (content) => (typeof content === "string" ? content
  : (content || []).map((p) => (p.type === "text" ? p.text : `[${p.type}${p.mimeType ? ` ${p.mimeType}` : ""}]`)).join("\n"));

// JSON indented; a JSON string (a tool's text result, encoded as upstream ag_ui_strands encodes it) as its text;
// JSON still arriving (a call's streaming arguments) as it is, its \uXXXX escapes shown as the characters they are.
export function pretty(text) {
  try { const value = JSON.parse(text); return typeof value === "string" ? value : JSON.stringify(value, null, 2); }
  catch { return typeof text === "string" ? unescapeUnicode(text) : text; }
}

// "\u7dd1" -> "緑" (not an escaped backslash's "\\u7dd1"): partial JSON shown to a person.
function unescapeUnicode(text) {
  return text.replace(/(?<!\\)((?:\\\\)*)\\u([0-9a-fA-F]{4})/g,
    (_, slashes, hex) => slashes + String.fromCharCode(parseInt(hex, 16)));
}

// ---- tool cards ------------------------------------------------------------------------------------------
function toolCard(call) {
  const card = el("div", { class: "tool", "data-testid": "tool-call", "data-tool-name": call.function.name, "data-tool-call-id": call.id });
  const head = el("div", { class: "tool-head" });
  head.append(el("span", { class: "tool-icon", "aria-hidden": "true" }, "⚙"), el("span", { class: "tool-name" }),
    el("span", { class: "badge tool-status", "data-testid": "tool-status" }));
  const args = el("details", { class: "tool-section", open: "" });
  args.append(el("summary", {}, "Arguments"), el("pre", { class: "tool-args", "data-testid": "tool-args" }));
  const result = el("details", { class: "tool-section tool-result-box", open: "" });
  result.append(el("summary", {}, "Result"), el("pre", { class: "tool-result", "data-testid": "tool-result" }));
  const error = el("div", { class: "tool-error", role: "alert", "data-testid": "tool-error" });
  card.append(head, args, el("div", { class: "tool-visual" }), result, error);
  return card;
}

// A long section starts folded (once: the user's own toggling is kept).
function foldLong(details, text) {
  if (details.dataset.folded || text.split("\n").length <= 8) return;
  details.dataset.folded = "true";
  details.open = false;
}

// `live`: the run that can still answer the call is in flight (a call of a run that was stopped, cancelled or
// abandoned for a new message never gets a result: it is shown as such, never as running).
function toolStatus(result, { frontend, approval, live, rejected }) {
  if (rejected) return ["rejected", result ? "rejected by you" : "rejected"];
  if (result?.error) return ["error", "error"];
  if (result) return ["done", "done"];
  if (approval) return ["approval", "awaiting approval"];
  if (frontend) return ["frontend", "runs in the page"];
  return live ? ["running", "running…"] : ["unanswered", "no result"];
}

// What the page can draw from a call: an A2UI surface (from the result's operations, else from the render
// call streaming under it), else a chart of its result; null for nothing.
function visualOf(call, result, text, how) {
  const surface = result && !result.error ? surfaceFromResult(text) : null;
  if (surface) return { kind: "a2ui", key: `a2ui:${text}`, make: () => renderSurface(surface) };
  const streamed = how.a2ui || (call.function.name === RENDER_TOOL && !how.a2uiParent ? call.function.arguments : "");
  const partial = streamed ? surfaceFromArgs(streamed) : null;
  if (partial) return { kind: "a2ui", key: `a2ui-args:${streamed}`, make: () => renderSurface(partial) };
  let data = null;
  try { data = result && !result.error ? JSON.parse(text) : null; } catch { data = null; }
  if (chartValues(data)) return { kind: "chart", key: `chart:${text}`, make: () => barChart(data) };
  return null;
}

// A result the page can draw (a chart, a surface) is drawn above its JSON, which then starts folded (once).
function renderVisual(card, call, result, text, how) {
  const box = card.querySelector(".tool-visual");
  const visual = visualOf(call, result, text, how);
  const key = visual?.key || "";
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const drawn = visual ? visual.make() : null;
  box.replaceChildren(...(drawn ? [drawn] : []));
  const json = card.querySelector(".tool-result-box");
  if (drawn && result && !json.dataset.folded) { json.dataset.folded = "true"; json.open = false; }
}

function renderToolCard(card, call, result, how) {
  const [status, label] = toolStatus(result, how);
  setText(card.querySelector(".tool-name"), call.function.name);
  setText(card.querySelector(".tool-status"), label);
  const args = pretty(call.function.arguments || "{}");
  setText(card.querySelector(".tool-args"), args);
  foldLong(card.querySelector(".tool-section"), args);
  const text = result ? contentText(result.content) : "";
  setText(card.querySelector(".tool-result"), result && !result.error ? pretty(text) : "");
  if (result && !result.error) foldLong(card.querySelector(".tool-result-box"), pretty(text));
  renderVisual(card, call, result, text, how);
  const error = result?.error && !how.rejected ? `${result.error}` : "";
  setText(card.querySelector(".tool-error"), error);
  card.querySelector(".tool-error").hidden = !error;
  if (how.rejected && result?.error) setText(card.querySelector(".tool-result"), `${result.error}`);
  card.querySelector(".tool-result-box").hidden = !result || (!!result.error && !how.rejected);
  card.dataset.status = status;
}

// ---- messages --------------------------------------------------------------------------------------------
const ROLE_LABEL = { user: "You", assistant: "Assistant", reasoning: "Thinking", tool: "Tool result", system: "System",
  developer: "Developer", activity: "Progress" };

function messageItem(m, key) {
  const item = el("li", { class: "msg", "data-key": key, "data-testid": "message", "data-role": m.role });
  item.append(el("div", { class: "msg-role" }, ROLE_LABEL[m.role] || m.role));
  item.append(el("div", { class: "text", "data-testid": "message-text" }));
  if (m.role === "reasoning") item.querySelector(".text").classList.add("muted");
  return item;
}

function renderMessage(item, m, ctx) {
  const text = item.querySelector(".text");
  if (m.role === "assistant") renderMarkdown(text, typeof m.content === "string" ? m.content : contentText(m.content));
  else if (m.role === "activity" && m.activityType === "background_task") renderTask(item, m);
  else if (m.role === "activity") {
    setText(text, activityText(m));
    if (typeof m.content?.status === "string") item.dataset.status = m.content.status;
  }
  else setText(text, contentText(m.content));
  if (m.role === "tool" && m.error) { item.dataset.error = "true"; setText(text, `${contentText(m.content)}\n${m.error}`); }
  const calls = new Set((m.toolCalls || []).map((c) => `call:${c.id}`));
  for (const stale of item.querySelectorAll(":scope > .tool")) if (!calls.has(stale.dataset.key)) stale.remove();  // dropped by a snapshot
  for (const call of m.toolCalls || []) {
    const card = keyed(item, `call:${call.id}`, () => {
      const c = toolCard(call); c.dataset.key = `call:${call.id}`; item.append(c); return c;
    });
    renderToolCard(card, call, ctx.results.get(call.id), { frontend: ctx.frontend.has(call.function.name),
      approval: ctx.approvals.has(call.id), live: ctx.live.has(call.id), rejected: ctx.rejected.has(call.id),
      a2ui: ctx.a2ui.get(call.id) || "", a2uiParent: ctx.a2uiParents.has(call.id) });
  }
  if (m.role === "assistant" && !ctx.busy) thumbs(item, m, ctx.feedback);  // last: under the answer's tool cards
}

// A background task (runtime/building/background_watch.py) as a card: the tool doing it, its status in words, its result
// or error once it has one, its id small.
const TASK_WORDS = { working: "working…", completed: "completed", failed: "failed", cancelled: "cancelled" };

function renderTask(item, m) {
  const c = m.content || {};
  if (typeof c.status === "string") item.dataset.status = c.status;
  setText(item.querySelector(".msg-role"), "Background task");
  const text = item.querySelector(".text"), key = JSON.stringify(c);
  if (text.dataset.key === key) return;
  text.dataset.key = key;
  const head = el("div", { class: "task-head" });
  head.append(el("span", { class: "task-name", "data-testid": "task-name" }, String(c.toolName ?? "task")),
    el("span", { class: "badge task-status", "data-testid": "task-status" }, TASK_WORDS[c.status] || String(c.status ?? "")));
  const parts = [head];
  if (c.result !== undefined && c.result !== null) {
    parts.push(el("div", { class: "task-result", "data-testid": "task-result" }, typeof c.result === "string" ? c.result : JSON.stringify(c.result)));
  }
  if (c.error) parts.push(el("div", { class: "task-error", role: "alert", "data-testid": "task-error" }, String(c.error)));
  if (c.taskId) parts.push(el("div", { class: "task-id muted" }, `task ${String(c.taskId).slice(0, 8)}`));
  text.replaceChildren(...parts);
}

// An activity's scalar fields on one line, then one line per entry of its `events` (tool progress: every yield).
function activityText(m) {
  const c = m.content || {};
  const parts = Object.entries(c).filter(([k, v]) => typeof v !== "object" && k !== "toolCallId").map(([k, v]) => `${k}: ${v}`);
  const events = Array.isArray(c.events) ? c.events.map((e) => `· ${valueText(e)}`) : [];
  return [`${m.activityType}${parts.length ? ` · ${parts.join(" · ")}` : ""}`, ...events].join("\n");
}

const valueText = (v) => (v !== null && typeof v === "object" && !Array.isArray(v)
  ? Object.entries(v).map(([k, x]) => `${k}: ${typeof x === "object" ? JSON.stringify(x) : x}`).join(", ")
  : typeof v === "string" ? v : JSON.stringify(v));

// ---- notices and interrupts ------------------------------------------------------------------------------
const NOTICE_TESTID = { error: "error", halt: "halt", cancelled: "cancelled", info: "info", interrupt: "interrupt", stop: "stop-note" };

function noticeItem(notice, ctx) {
  const key = `notice:${notice.id}`;
  const item = document.querySelector(`[data-key="${CSS.escape(key)}"]`)
    || el("li", { class: `notice notice-${notice.kind}`, "data-key": key, "data-testid": NOTICE_TESTID[notice.kind] || "info",
      role: notice.kind === "error" ? "alert" : "status" });
  if (notice.kind === "interrupt") renderInterrupt(item, notice, ctx);
  else setText(item, notice.text);
  return item;
}

function schemaAsksApproval(schema) {
  return schema?.properties?.approved?.type === "boolean";
}

// An interrupt card: open while its run waits; settled (answered, superseded by a new message, or left by a
// run that was stopped or failed) it says so and takes no answer.
function renderInterrupt(item, notice, ctx) {
  if (!item.firstChild) {
    item.append(el("div", { class: "interrupt-title", "data-testid": "interrupt-title" }));
    for (const intr of notice.interrupts) item.append(interruptCard(intr, notice, ctx));
  }
  let open = 0;
  for (const card of item.querySelectorAll(".interrupt")) {
    const answer = notice.answered?.[card.dataset.interruptId];
    const closed = !!answer || !!notice.superseded || !!notice.settled || ctx.busy;
    if (!answer && !notice.superseded && !notice.settled) open += 1;
    card.querySelectorAll("button, input, textarea").forEach((b) => { b.disabled = closed; });
    setText(card.querySelector(".interrupt-answer"), answer ? answerLabel(answer)
      : notice.superseded ? "Superseded by a new message" : notice.settled ? SETTLED[notice.settled] || "No longer waiting" : "");
    card.dataset.answer = answer ? (answer.payload?.approved === false ? "rejected" : answer.status) : "";
  }
  const answers = Object.values(notice.answered || {});
  const title = open ? "Waiting for you" : notice.superseded ? "Not answered: you sent a new message"
    : notice.settled ? SETTLED[notice.settled] || "No longer waiting"
    : answers.every((a) => a.payload?.approved === false) ? "Rejected" : answers.every((a) => a.status === "cancelled") ? "Cancelled" : "Answered";
  setText(item.querySelector(".interrupt-title"), title);
  item.dataset.open = String(open > 0);
}

const SETTLED = { stopped: "Not answered: the run was stopped", error: "Not answered: the run failed",
  unreachable: "Not answered: the server is unreachable", cancelled: "Not answered: the run was cancelled" };

function answerLabel(answer) {
  if (answer.status === "cancelled") return "Cancelled";
  if (answer.payload && "approved" in answer.payload) return answer.payload.approved ? "Approved" : "Rejected";
  return "Answered";
}

// An approval whose responseSchema has `arguments` (runtime/building/approval.py): the call's arguments, editable; the
// answer carries them only when they were changed (editedArguments: false, nothing sent, when not JSON).
function argumentsField(schema, call) {
  if (!schema.properties.arguments || !call) return null;
  return el("textarea", { class: "interrupt-json", rows: "3", "data-testid": "approval-arguments",
    "aria-label": "Arguments (JSON)" }, pretty(call.function.arguments || "{}"));
}

function editedArguments(field, call, payload) {
  let edited;
  try { edited = JSON.parse(field.value || "{}"); }
  catch (err) { field.setCustomValidity(err.message); field.reportValidity(); return false; }
  field.setCustomValidity("");
  if (JSON.stringify(edited) !== JSON.stringify(JSON.parse(call.function.arguments || "{}"))) payload.arguments = edited;
  return true;
}

function interruptCard(intr, notice, ctx) {
  const card = el("div", { class: "interrupt", "data-testid": "interrupt-card", "data-interrupt-id": intr.id });
  card.append(el("div", { class: "interrupt-message", "data-testid": "interrupt-message" }, intr.message || intr.reason));
  // the call itself is on its tool card, just above: named here, not repeated
  const call = intr.toolCallId && findCall(ctx.messages, intr.toolCallId);
  if (call) card.append(el("div", { class: "interrupt-call muted", "data-testid": "interrupt-call" }, `about the ${call.function.name} call above`));
  const schema = intr.responseSchema;
  const actions = el("div", { class: "interrupt-actions" });
  if (schemaAsksApproval(schema)) {
    const reason = schema.properties.reason ? el("input", { class: "interrupt-reason", placeholder: "Reason (optional)", "aria-label": "Reason" }) : null;
    const args = argumentsField(schema, call);
    const answer = (approved) => {
      const payload = { approved };
      if (reason?.value.trim()) payload.reason = reason.value.trim();
      if (approved && args && !editedArguments(args, call, payload)) return;
      ctx.onAnswer(notice, intr, { status: "resolved", payload });
    };
    const approve = el("button", { type: "button", class: "primary", "data-testid": "approve" }, "Approve");
    const reject = el("button", { type: "button", class: "danger", "data-testid": "reject" }, "Reject");
    approve.addEventListener("click", () => answer(true));
    reject.addEventListener("click", () => answer(false));
    if (args) actions.append(args);
    if (reason) actions.append(reason);
    actions.append(approve, reject);
  } else {
    const field = el("textarea", { class: "interrupt-json", rows: "3", "aria-label": "Answer (JSON)", placeholder: schema ? JSON.stringify(schema) : "{}" });
    const send = el("button", { type: "button", class: "primary", "data-testid": "answer" }, "Send answer");
    const cancel = el("button", { type: "button", "data-testid": "cancel-interrupt" }, "Cancel");
    send.addEventListener("click", () => {
      try { ctx.onAnswer(notice, intr, { status: "resolved", payload: JSON.parse(field.value || "{}") }); }
      catch (err) { field.setCustomValidity(err.message); field.reportValidity(); }
    });
    cancel.addEventListener("click", () => ctx.onAnswer(notice, intr, { status: "cancelled" }));
    actions.append(field, send, cancel);
  }
  card.append(actions, el("div", { class: "interrupt-answer", "data-testid": "interrupt-answer" }));
  return card;
}

// ---- subagent blocks -------------------------------------------------------------------------------------
function blockItem(block) {
  const key = `agent:${block.id}`;
  const item = document.querySelector(`[data-key="${CSS.escape(key)}"]`) || (() => {
    const li = el("li", { class: "subagent", "data-key": key, "data-testid": "subagent", "data-subagent-run-id": block.id });
    const head = el("div", { class: "subagent-head" });
    head.append(el("span", { class: "subagent-name", "data-testid": "subagent-name" }), el("span", { class: "badge subagent-status", "data-testid": "subagent-status" }));
    li.append(head, el("div", { class: "subagent-desc muted" }), el("div", { class: "subagent-handoff muted", "data-testid": "subagent-handoff" }),
      el("ol", { class: "subagent-body" }), el("div", { class: "subagent-error", role: "alert" }));
    return li;
  })();
  setText(item.querySelector(".subagent-name"), `↳ ${block.name}`);
  setText(item.querySelector(".subagent-status"), block.status);
  setText(item.querySelector(".subagent-desc"), block.description);
  setText(item.querySelector(".subagent-handoff"), handoffText(block.handoff));
  setText(item.querySelector(".subagent-error"), block.error || "");
  item.dataset.status = block.status;
  return item;
}

// `metadata.handoff` of SUBAGENT_STARTED: who handed the work over, and their message.
function handoffText(handoff) {
  if (!handoff || typeof handoff !== "object") return "";
  const from = Array.isArray(handoff.from) ? handoff.from.join(", ") : "";
  return `handed over by ${from || "?"}${typeof handoff.message === "string" && handoff.message ? `: ${handoff.message}` : ""}`;
}

// ---- the conversation ------------------------------------------------------------------------------------
// Where each message is drawn: the id of the item it lives in (a tool result lives in its call's message)
// and the subagent block that holds that item (null: the main list).
function layout(thread) {
  const callOwner = new Map();
  for (const m of thread.messages) for (const c of m.toolCalls || []) callOwner.set(c.id, m.id);
  const home = new Map();
  for (const m of thread.messages) {
    const owner = m.role === "tool" && callOwner.has(m.toolCallId) ? callOwner.get(m.toolCallId) : m.id;
    home.set(m.id, owner);
  }
  return { home, callOwner };
}

export function renderConversation(list, thread, ctx) {
  const { home } = layout(thread);
  const byId = new Map(thread.messages.map((m) => [m.id, m]));
  const blockOf = (msgId) => { const m = byId.get(home.get(msgId)); return m?.subagentRunId && thread.subagents.has(m.subagentRunId) ? m.subagentRunId : null; };
  const topOf = (blockId) => { let b = thread.subagents.get(blockId); while (b?.parent && thread.subagents.has(b.parent)) b = thread.subagents.get(b.parent); return b; };
  const children = new Map([[null, []]]);  // container (block id or null) -> wanted items
  const want = (container, node) => { if (!children.has(container)) children.set(container, []); children.get(container).push(node); };
  const after = new Map();  // anchor key in main list -> notices / blocks placed after it
  const place = (container, anchorMsg, node) => {
    const anchorBlock = anchorMsg && blockOf(anchorMsg);
    const key = container === null && anchorBlock ? `agent:${topOf(anchorBlock).id}` : anchorMsg ? `msg:${home.get(anchorMsg)}` : "start";
    const list = after.get(key) || []; list.push([container, node]); after.set(key, list);
  };
  for (const block of thread.subagents.values()) place(block.parent, block.after, blockItem(block));
  for (const notice of thread.notices) place(null, notice.after, noticeItem(notice, ctx));
  const flush = (key) => { for (const [container, node] of after.get(key) || []) { want(container, node); flush(node.dataset.key); } after.delete(key); };
  flush("start");
  for (const m of thread.messages) {
    if (home.get(m.id) !== m.id) continue;  // a tool result shown in its card
    const key = `msg:${m.id}`;
    const item = document.querySelector(`#messages [data-key="${CSS.escape(key)}"]`) || messageItem(m, key);
    renderMessage(item, m, ctx);
    want(blockOf(m.id), item);
    flush(key);
  }
  for (const key of [...after.keys()]) flush(key);  // anchors that are gone: at the end
  for (const [container, nodes] of children) {
    const target = container === null ? list : list.querySelector(`[data-subagent-run-id="${CSS.escape(container)}"] > .subagent-body`);
    if (target) reconcile(target, nodes);
  }
}
