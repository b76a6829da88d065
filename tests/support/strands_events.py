"""Hypothesis strategies for production-shaped Strands 1.62 ``stream_async`` logs (sanitized, as recorded).

Built from /work/shared/reference/strands-stream-events.md (sections named below) and the recorded fixtures: every
event shape drawn here is one a recording holds or one the reference documents (``tests/core/test_fuzz.py`` checks
that against the fixtures). A drawn :class:`FuzzRun` is a :class:`RecordedRun` plus the ``RunAgentInput`` and
configuration it is replayed with.

* one agent invocation (section 4): ``init_event_loop``; per cycle ``start`` (twice after a tool batch),
  ``start_event_loop``, model attempts (raw chunk before its typed event; text, reasoning with signatures,
  tool-use blocks with accumulated ``current_tool_use``; a provider may omit a text block's start), throttles
  restarting the attempt, the assistant ``message``, a tool batch (``tool_stream`` incl. agent-as-tool events,
  ``tool_cancel_event``, ``tool_interrupt_event``, then the tool-result ``message`` in request order), ``result``;
* endings (section 5, 8): ``end_turn``, ``interrupt``, ``cancelled`` (chunks stop mid-block, "Cancelled by user"),
  ``limit_turns``, ``MaxTokensReachedException`` after the message, a model exception after ``force_stop`` at any
  point of an attempt, ``EventLoopException`` with a cause, ``ConcurrencyException`` before any event;
* Swarm/Graph runs (section 10): node start/stream/stop, handoffs, node cancel and interrupt, the result.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import RunAgentInput
from hypothesis import strategies as st

from strands_agui import StrandsAgentConfig, ToolBehavior
from strands_agui.runtime.recordings import RecordedRun

USAGE = {"inputTokens": 10, "outputTokens": 10, "totalTokens": 20}
BACKEND = ("get_weather", "get_time", "book_flight", "researcher")
FRONTEND = ("change_background", "confirm")
words = st.text(alphabet="abcdefghij <>&\"'\\/{}.é😀\n", min_size=1, max_size=12)
json_values = st.recursive(st.none() | st.booleans() | st.integers(-5, 5) | words,
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(words, inner, max_size=3),
                           max_leaves=6)
exception_names = st.sampled_from(["RuntimeError", "ValueError", "ModelThrottledException",
                                   "ContextWindowOverflowException", "StructuredOutputException", "ClientError"])


@dataclass
class FuzzRun:
    """A generated log and what it is replayed with."""

    log: RecordedRun
    input_data: RunAgentInput
    config: StrandsAgentConfig

    def __repr__(self) -> str:  # what hypothesis prints for a failing example: a replayable log
        lines = [json.dumps({"strands_agui_log": 1, "input": self.input_data.model_dump(mode="json", by_alias=True,
                                                                                       exclude_none=True)})]
        lines += [json.dumps(e) for e in self.log.events]
        if self.log.exception:
            lines.append(json.dumps({"__exception__": self.log.exception}))
        return "FuzzRun(\n" + "\n".join(lines) + "\n)"


@dataclass
class Log:
    """Events drawn so far; ``cycle`` is the invocation-state keys merged into typed events (section 3)."""

    events: list[dict[str, Any]] = field(default_factory=list)
    cycle: dict[str, Any] = field(default_factory=dict)
    exception: dict[str, Any] | None = None
    calls: int = 0

    def raw(self, chunk: dict[str, Any]) -> None:
        self.events.append({"event": chunk})

    def typed(self, event: dict[str, Any]) -> None:
        self.events.append({**event, **self.cycle})

    def new_cycle(self) -> None:
        parent = self.cycle.get("event_loop_cycle_id")
        self.cycle = {"event_loop_cycle_id": str(uuid.uuid4()), "request_state": {}}
        if parent:
            self.cycle["event_loop_parent_cycle_id"] = parent

    def fail(self, name: str, message: str, cause: dict[str, Any] | None = None, force_stop: bool = True) -> None:
        if force_stop:
            self.events.append({"force_stop": True, "force_stop_reason": message})
        self.exception = {"type": name, "message": message, **({"cause": cause} if cause else {})}


# ----------------------------------------------------------------------------------------- one model attempt


@st.composite
def blocks(draw: st.DrawFn, log: Log) -> list[dict[str, Any]]:
    """The content blocks of one model turn, as (kind, parts) plans; tool uses get fresh ids."""
    plans = []
    for kind in draw(st.lists(st.sampled_from(["text", "reasoning", "tool"]), max_size=4)):
        if kind == "tool":
            log.calls += 1
            name = draw(st.sampled_from(BACKEND + FRONTEND + ("unknown_tool",)))
            args = draw(st.dictionaries(st.sampled_from(["city", "location", "color", "n"]), json_values, max_size=2))
            text = json.dumps(args)
            cuts = sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=3)))
            pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True) if text[a:b]]
            plans.append({"kind": kind, "id": f"tooluse_{log.calls}", "name": name, "input": args, "pieces": pieces})
        else:
            plans.append({"kind": kind, "pieces": draw(st.lists(words, min_size=1, max_size=4)),
                          "signature": draw(st.lists(st.sampled_from(["c2ln", "bmF0"]), max_size=2)),
                          "bare": draw(st.booleans())})  # a provider may omit a text block's contentBlockStart
    return plans


def emit_block(log: Log, index: int, plan: dict[str, Any], stop_after: int | None) -> bool:
    """The raw chunks and typed events of one block; False when the stream stops inside it (cancel)."""
    if plan["kind"] == "tool":
        log.raw({"contentBlockStart": {"contentBlockIndex": index,
                                       "start": {"toolUse": {"name": plan["name"], "toolUseId": plan["id"]}}}})
    elif not (plan["kind"] == "text" and plan["bare"]):
        log.raw({"contentBlockStart": {"contentBlockIndex": index, "start": {}}})
    sofar = ""
    for n, piece in enumerate(plan["pieces"]):
        if stop_after is not None and n >= stop_after:
            return False
        if plan["kind"] == "tool":
            delta: dict[str, Any] = {"toolUse": {"input": piece}}
            sofar += piece
            typed = {"type": "tool_use_stream", "delta": delta,
                     "current_tool_use": {"toolUseId": plan["id"], "name": plan["name"], "input": sofar}}
        elif plan["kind"] == "text":
            delta = {"text": piece}
            typed = {"data": piece, "delta": delta}
        else:
            delta = {"reasoningContent": {"text": piece}}
            typed = {"reasoningText": piece, "delta": delta, "reasoning": True}
        log.raw({"contentBlockDelta": {"contentBlockIndex": index, "delta": delta}})
        log.typed(typed)
    for signature in plan.get("signature", ()) if plan["kind"] == "reasoning" else ():
        delta = {"reasoningContent": {"signature": signature}}
        log.raw({"contentBlockDelta": {"contentBlockIndex": index, "delta": delta}})
        log.typed({"reasoning_signature": signature, "delta": delta, "reasoning": True})
    log.raw({"contentBlockStop": {"contentBlockIndex": index}})
    return True


def content_of(plans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The assistant message's content for the blocks of the last attempt."""
    content: list[dict[str, Any]] = []
    for plan in plans:
        if plan["kind"] == "tool":
            content.append({"toolUse": {"toolUseId": plan["id"], "name": plan["name"], "input": plan["input"]}})
        elif plan["kind"] == "text":
            content.append({"text": "".join(plan["pieces"])})
        else:
            reasoning = {"text": "".join(plan["pieces"]), **({"signature": "".join(plan["signature"])}
                                                             if plan["signature"] else {})}
            content.append({"reasoningContent": {"reasoningText": reasoning}})
    return content


def message(role: str, content: list[dict[str, Any]]) -> dict[str, Any]:
    extra = {"metadata": {"usage": USAGE, "metrics": {"latencyMs": 1}}} if role == "assistant" else {}
    return {"message": {"role": role, "content": content, **extra, "tracking_id": str(uuid.uuid4())}}


def result(stop_reason: str, last: dict[str, Any], interrupts: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"result": {"type": "agent_result", "message": last, "stop_reason": stop_reason, "checkpoint": None,
                       "interrupts": interrupts, "structured_output": None, "state": {},
                       "accumulated_usage": USAGE}}


def model_error(draw: st.DrawFn, log: Log) -> None:
    """The model raises: ``force_stop``, then the exception (wrapped in EventLoopException after a tool batch)."""
    name, text = draw(exception_names), draw(words)
    if "event_loop_parent_cycle_id" in log.cycle:
        log.fail("EventLoopException", text, {"type": name, "message": text})
    else:
        log.fail(name, text)


@st.composite
def attempt(draw: st.DrawFn, log: Log) -> list[dict[str, Any]] | None:
    """One model call with its throttled retries; the blocks of the attempt that succeeded, or None when the
    run ended inside it (exception or cancel; ``log`` then holds the ending)."""
    for _ in range(draw(st.integers(0, 2))):  # throttled attempts: partial output, then the retry delay
        log.raw({"messageStart": {"role": "assistant"}})
        plans = draw(blocks(log))
        for index, plan in enumerate(plans[: draw(st.integers(0, len(plans)))]):
            emit_block(log, index, plan, None)
        log.typed({"event_loop_throttled_delay": draw(st.sampled_from([4, 8, 16]))})
    log.raw({"messageStart": {"role": "assistant"}})
    plans = draw(blocks(log))
    ending = draw(st.sampled_from(["ok"] * 8 + ["exception", "cancel"]))
    stop_block = draw(st.integers(0, len(plans))) if ending != "ok" else len(plans)
    if ending == "exception" and stop_block == len(plans):  # after the last block, before messageStop
        model_error(draw, log)
        return None
    for index, plan in enumerate(plans):
        stop_piece = draw(st.integers(0, len(plan["pieces"]))) if index == stop_block else None
        if stop_piece is not None and ending == "exception":  # partial deltas, then the model raises
            emit_block(log, index, {**plan, "signature": []}, stop_piece)
            model_error(draw, log)
            return None
        if not emit_block(log, index, plan, stop_piece if ending == "cancel" else None):
            break
        if index == stop_block and ending == "cancel":
            break
    if ending == "cancel":  # section 8: chunks stop mid-block, the message says so, the result is "cancelled"
        last = message("assistant", [{"text": "Cancelled by user"}])
        log.events += [last, result("cancelled", last["message"])]
        return None
    stop = "tool_use" if any(p["kind"] == "tool" for p in plans) else draw(st.sampled_from(["end_turn", "max_tokens"]))
    log.raw({"messageStop": {"stopReason": stop}})
    log.raw({"metadata": {"usage": USAGE, "metrics": {"latencyMs": 1}}})
    log.events.append(message("assistant", content_of(plans)))
    if stop == "max_tokens":
        log.fail("MaxTokensReachedException", "Model stopped generating due to maximum token limit.",
                 force_stop=False)
        return None
    return plans


# ----------------------------------------------------------------------------------------- tool batches


def sub_agent_event(text: str) -> dict[str, Any]:
    """What an agent-as-tool's ``tool_stream_event.data`` holds: the sub-agent's own event, sanitized."""
    return {"data": text, "delta": {"text": text}, "event_loop_cycle_id": str(uuid.uuid4()), "request_state": {}}


@st.composite
def tool_batch(draw: st.DrawFn, log: Log, calls: list[dict[str, Any]]) -> bool:
    """Tool progress, cancels and interrupts, then the results; False when the run paused (interrupt)."""
    interrupts: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for plan in calls:
        use = {"toolUseId": plan["id"], "name": plan["name"], "input": plan["input"]}
        fate = draw(st.sampled_from(["ok", "ok", "error", "stream", "cancel", "interrupt"]))
        if fate == "stream":
            for text in draw(st.lists(words, min_size=1, max_size=3)):
                data = sub_agent_event(text) if plan["name"] == "researcher" else text
                log.events.append({"type": "tool_stream", "tool_stream_event": {"tool_use": use, "data": data}})
        if fate == "cancel":
            reason = f"The user cancelled {plan['name']}."
            log.events.append({"tool_cancel_event": {"tool_use": use, "message": reason}})
            results.append({"toolUseId": plan["id"], "status": "error", "content": [{"text": reason}]})
        elif fate == "interrupt":
            interrupts.append({"id": f"v1:tool_call:{plan['id']}:{uuid.uuid4()}", "name": "tool_approval",
                               "reason": draw(st.one_of(words, st.fixed_dictionaries({"message": words}))),
                               "response": None})
            log.events.append({"tool_interrupt_event": {"tool_use": use, "interrupts": [interrupts[-1]]}})
        else:
            text = "Error: RuntimeError - boom" if fate == "error" else draw(words)
            if plan["name"] == "unknown_tool":
                text, fate = "Unknown tool: unknown_tool", "error"
            results.append({"toolUseId": plan["id"], "status": "error" if fate == "error" else "success",
                            "content": [{"text": text}]})
    if interrupts:  # section 7: no result message; the result names the interrupts
        last = next(e for e in reversed(log.events) if "message" in e)["message"]
        log.events.append(result("interrupt", last, interrupts))
        return False
    log.events.append(message("user", [{"toolResult": r} for r in results]))
    return True


# ----------------------------------------------------------------------------------------- a whole run


@st.composite
def agent_log(draw: st.DrawFn) -> Log:
    """One agent invocation, ended by a result or an exception."""
    log = Log()
    if draw(st.integers(0, 30)) == 0:  # another invocation holds the agent: raised before any event
        log.fail("ConcurrencyException", "Agent is already processing a request.", force_stop=False)
        return log
    log.events.append({"init_event_loop": True})
    cycles = draw(st.integers(1, 3))
    for cycle in range(cycles):
        log.new_cycle()
        log.events += [{"start": True}] * (2 if cycle else 1) + [{"start_event_loop": True}]
        plans = draw(attempt(log))
        if plans is None:
            return log
        calls = [p for p in plans if p["kind"] == "tool"]
        if not calls:
            log.events.append(result("end_turn", log.events[-1]["message"]))
            return log
        if draw(st.integers(0, 12)) == 0:  # a failing hook: EventLoopException naming its cause
            log.fail("EventLoopException", "hook failed", {"type": "RuntimeError", "message": "hook failed"})
            return log
        if not draw(tool_batch(log, calls)):
            return log
    log.events.append(result("limit_turns", log.events[-1]["message"]))  # section 4: limits={"turns": N}
    return log


@st.composite
def multiagent_log(draw: st.DrawFn) -> Log:
    """A Swarm or Graph run: node events wrapping each node agent's own events (section 10)."""
    log = Log()
    nodes = draw(st.lists(st.sampled_from(["planner", "writer", "critic"]), min_size=1, max_size=3, unique=True))
    results = {}
    for n, node in enumerate(nodes):
        log.events.append({"type": "multiagent_node_start", "node_id": node, "node_type": "agent"})
        inner = draw(agent_log())
        log.events += [{"type": "multiagent_node_stream", "node_id": node, "event": event} for event in inner.events]
        last = inner.events[-1].get("result") if inner.events else None
        interrupts = (last or {}).get("interrupts") if not inner.exception else None
        status = "failed" if inner.exception else "interrupted" if interrupts else "completed"
        node_result = {"result": last, "execution_time": 3, "status": status, "accumulated_usage": USAGE,
                       "accumulated_metrics": {"latencyMs": 3}, "execution_count": 1, "interrupts": interrupts or []}
        if not interrupts or draw(st.booleans()):  # a Graph sends no stop for an interrupted node
            log.events.append({"type": "multiagent_node_stop", "node_id": node, "node_result": node_result})
        results[node] = node_result
        if interrupts:  # the team stops: the node's interrupts are the run's
            log.events += [{"type": "multiagent_node_interrupt", "node_id": node, "interrupts": interrupts},
                           {"type": "multiagent_result", "result": {"status": "interrupted", "results": results,
                                                                    "interrupts": interrupts}}]
            return log
        if inner.exception and draw(st.booleans()):  # a Graph re-raises a failed node's exception
            log.exception = inner.exception
            return log
        if n + 1 < len(nodes):
            log.events.append({"type": "multiagent_handoff", "from_node_ids": [node], "to_node_ids": [nodes[n + 1]],
                               "message": draw(words)})
    if draw(st.integers(0, 5)) == 0:
        log.events.append({"type": "multiagent_node_cancel", "node_id": nodes[-1], "message": "cancelled"})
    log.events.append({"type": "multiagent_result", "result": {
        "status": draw(st.sampled_from(["completed", "failed"])), "results": results, "interrupts": []}})
    return log


@st.composite
def fuzz_runs(draw: st.DrawFn) -> FuzzRun:
    """A whole replayable case: an agent or multi-agent log, the input it answers and a configuration."""
    log = draw(multiagent_log()) if draw(st.integers(0, 5)) == 0 else draw(agent_log())
    frontend = draw(st.lists(st.sampled_from(FRONTEND), unique=True))
    input_data = RunAgentInput.model_validate({
        "threadId": "fuzz-thread", "runId": "fuzz-run", "state": draw(st.none() | st.just({"k": 1})),
        "messages": [{"id": "user-1", "role": "user", "content": "hi"}],
        "tools": [{"name": name, "description": name, "parameters": {"type": "object"}} for name in frontend]})
    behaviors = {name: ToolBehavior(continue_after_frontend_call=draw(st.booleans()),
                                    stop_streaming_after_result=draw(st.booleans()),
                                    skip_messages_snapshot=draw(st.booleans()))
                 for name in draw(st.lists(st.sampled_from(BACKEND + FRONTEND), unique=True, max_size=3))}
    run = RecordedRun(events=tuple(log.events), exception=log.exception)
    return FuzzRun(run, input_data, StrandsAgentConfig(tool_behaviors=behaviors))
