// The inspector: for each run of the thread, each Strands event -> the transitions it fired -> the AG-UI
// events it produced (the trace the server sends when it enables inspection and the page asks:
// forwardedProps.strandsAgui.inspect; see server/console/inspector.py). Text deltas are grouped into one row.
"use strict";

import { el, setText } from "./dom.js";

// What the empty inspector says, for the run shown: why there is nothing, and what to do.
function emptyText(run, thread) {
  if (!run && thread.restored) {
    return "This thread was restored from the server after a reload: its earlier runs were traced in the page that "
      + "sent them (their Log downloads replay them), not here. The next run you send or approve appears here.";
  }
  if (!run) return "Send a message: each Strands event, the moves it made and the AG-UI events it produced appear here.";
  if (run.steps.length || run.status === "running") return "";
  if (run.status === "unreachable") return "The server did not answer this run, so there is nothing to inspect: start the server, then send again.";
  if (!run.events.length) return "The server sent nothing for this run, so there is nothing to inspect.";
  return "This server sent no trace for the run (inspection is off): AG-UI events only.";
}

function summarize(outer) {
  if (outer === null || outer === undefined) return "(the run itself)";
  const { who, event } = unwrap(outer);
  return who ? `${who}: ${summarizeOne(event)}` : summarizeOne(event);
}

function summarizeOne(event) {
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

// A subagent's event as its parent's trace carries it: a Swarm/Graph node's (`multiagent_node_stream`) or an
// agent-as-tool's (`tool_stream`); {who, event}: who is "" for the run's own event.
function unwrap(event) {
  if (event?.type === "multiagent_node_stream" && event.event) return { who: String(event.node_id ?? ""), event: event.event };
  const streamed = event?.type === "tool_stream" ? event.tool_stream_event : null;
  if (streamed?.data && typeof streamed.data === "object") return { who: String(streamed.tool_use?.name ?? ""), event: streamed.data };
  return { who: "", event };
}

// A streamed delta: {kind, who, text} for the model's raw chunk (the text is read there), {kind, who, text: ""}
// for the typed event Strands derives from it (same words, ignored by the translator), null for anything else.
function deltaOf(outer) {
  const { who, event } = unwrap(outer);
  const delta = event?.event?.contentBlockDelta?.delta;
  if (typeof delta?.text === "string") return { kind: "text", who, text: delta.text };
  if (typeof delta?.reasoningContent?.text === "string") return { kind: "reasoning", who, text: delta.reasoningContent.text };
  if (typeof event?.data === "string") return { kind: "text", who, text: "" };
  if (typeof event?.reasoningText === "string") return { kind: "reasoning", who, text: "" };
  return null;
}

// Consecutive deltas of one kind and one author (the run, or one subagent) become one group (one row, with
// their text); any other step is its own.
export function groupSteps(steps) {
  const groups = [];
  for (const step of steps) {
    const delta = deltaOf(step.event);
    const last = groups[groups.length - 1];
    if (delta && last?.kind === delta.kind && last.who === delta.who) { last.steps.push(step); last.text += delta.text; continue; }
    groups.push({ kind: delta?.kind || null, who: delta?.who || "", text: delta?.text || "", steps: [step] });
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
  const cause = group.kind ? `${group.who ? `${group.who}: ` : ""}${group.kind} ×${deltas} ${JSON.stringify(group.text)}`
    : summarize(group.steps[0].event);
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

// Draw the runs of `thread` into the inspector (`ui`: {select, list, empty}); returns the run shown.
export function renderInspector(ui, thread, selectedRunId) {
  const { select, list } = ui;
  const runs = thread.runs;
  const options = runs.map((r, i) => `${r.runId}|${i + 1}. ${r.label} (${r.status})`).join("\n");
  if (select.dataset.options !== options) {
    select.dataset.options = options;
    select.replaceChildren(...runs.map((r, i) => el("option", { value: r.runId }, `${i + 1}. ${r.label} · ${r.status}`)));
  }
  const run = runs.find((r) => r.runId === selectedRunId) || runs[runs.length - 1] || null;
  if (run) select.value = run.runId;
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
  setText(ui.empty, emptyText(run, thread));
  return run;
}

