// What the machine view says, as data (diagram.js draws it): the recorded moves of a run and of its subagents in
// trace order, the view at a point of them (the scrubber's), and the focused view's words. No DOM.
"use strict";

export const STATE_WORDS = {
  idle: "before the run", ready: "ready for the model", streaming_text: "the model is writing",
  reasoning: "the model is reasoning", in_tool_call: "the model is writing a tool call",
  awaiting_result: "tools are running", halted: "halted: a frontend tool, a tool that ends the run, or a cancel",
  paused: "paused: waiting for a person's answer", finished: "the run finished", errored: "the run failed",
};

// Why a run halted, by the move that halted it (the table's `halt`): what still happens before it ends.
const HALT_WORDS = {
  end_turn: "halted for a frontend tool: the page runs it and sends the result in a new run",
  receive_results: "halted after a tool that ends the run (stop_after_result): what its result still sends "
    + "(state, progress) arrives, then the run finishes",
  cancel: "halted: cancelled; the run finishes once what is running returns",
};

const ENDED = new Set(["finished", "errored"]);

// Every move of `run`, its own and its subagents', in trace order: {who ("" for the run), trigger, state, cause,
// previous (the mover's state before)}.
export function timelineOf(run) {
  const out = [], at = new Map();
  const add = (who, m) => {
    out.push({ who, trigger: m.trigger, state: m.state, cause: m.cause, previous: at.get(who) ?? "idle" });
    at.set(who, m.state);
  };
  for (const step of run?.steps || []) {
    for (const m of step.transitions || []) add("", m);
    for (const m of step.subagents || []) add(String(m.subagent ?? "subagent"), m);
  }
  return out;
}

// The machine after the first `at` moves of `timeline`: the run's state and last move, each subagent's state, and
// which machine the diagram shows (the run's; while scrubbing, the one whose move is shown).
export function viewAt(timeline, at) {
  const shown = timeline.slice(0, at);
  const states = new Map();
  for (const e of shown) states.set(e.who, e.state);
  const own = shown.filter((e) => !e.who);
  const latest = shown[shown.length - 1] || null;
  const owner = at < timeline.length && latest ? latest.who : "";
  const diagram = shown.filter((e) => e.who === owner);
  return {
    runState: states.get("") ?? "idle", runLast: own[own.length - 1] || null, latest, count: timeline.length, at,
    subagents: [...states].filter(([who]) => who).map(([who, state]) => ({ who, state })),
    diagram, diagramState: diagram.length ? diagram[diagram.length - 1].state : "idle", owner,
  };
}

// The words for the state the run is in.
function wordsFor(current, view, ended, context) {
  if (ended === "stopped") return "stopped by you: no further move reaches this page";
  if (ended) return "the connection to the server was lost";
  if (!view.runLast && context.restored) {
    return context.waiting ? "paused: waiting for your answer (restored after a reload)" : "restored after a reload";
  }
  if (current === "halted" && view.runLast) return HALT_WORDS[view.runLast.trigger] || STATE_WORDS.halted;
  return STATE_WORDS[current] || "";
}

function noteFor({ run, busy, view, ended, context }) {
  if (ended === "stopped") return "You stopped the run here: the server cancels it (it ends cancelled).";
  if (ended) return "The connection to the server was lost here.";
  if (run && !run.steps.length && !busy) return "This server sends no trace (inspection is off).";
  if (!run && context.restored) {
    return "The thread was restored from the server: the runs before the reload were not traced in this page.";
  }
  if (view.owner) return `The diagram shows ${view.owner}'s own machine at this move.`;
  return "";
}

function lastLineFor(run, view, context) {
  const e = view.latest;
  if (!e) return run ? "No move traced for this run yet." : context.restored ? "Restored from the server after a reload."
    : "No move yet: send a message.";
  return `Last move: ${e.who ? `${e.who}: ` : ""}${e.trigger}  ${e.previous} → ${e.state}`;
}

// Everything the focused view shows, as data: {panelState, pill, lastLine, from, fromText, current, words, note,
// subagents, next, nextLabel, noMove}.
export function focusParts({ run, busy, view, ended, context, moves, scrubbing }) {
  let current = view.runState;
  if (!run && context.restored && context.waiting) current = "paused";
  const untraced = run && !run.steps.length && !busy;
  const over = ended || ENDED.has(current);
  const pill = ended ? `stopped in ${current}` : scrubbing ? `${current} (move ${view.at} of ${view.count})`
    : untraced ? `${current} (no trace from the server)` : current;
  const subagents = view.subagents.map(({ who, state }) => {
    const active = !ENDED.has(state);
    return { who, state, active, label: ended && active ? `stopped in ${state}` : state };
  });
  return {
    panelState: ended || current, pill, lastLine: lastLineFor(run, view, context),
    from: view.runLast ? { previous: view.runLast.previous, trigger: view.runLast.trigger } : null,
    fromText: run ? "no move traced yet" : context.restored ? "restored from the server" : "the run starts here",
    current, words: wordsFor(current, view, ended, context), note: noteFor({ run, busy, view, ended, context }),
    subagents, next: ended ? [] : moves.filter((m) => m.source === current), nextLabel: "next possible moves",
    noMove: ended === "stopped" ? "none: you stopped the run" : ended ? "none: the connection was lost"
      : over ? "an end state: no move leaves it" : "none",
  };
}

// The scrubber's words for `at` moves of `timeline` shown.
export function scrubLabel(timeline, at, live) {
  if (!timeline.length) return "";
  if (at === 0) return `before the first move (${timeline.length} recorded)`;
  const e = timeline[at - 1];
  return `${live ? "latest: " : ""}move ${at} of ${timeline.length}: ${e.who ? `${e.who}: ` : ""}${e.trigger}  `
    + `${e.previous} → ${e.state}`;
}
