"""An OpenTelemetry span per served run, the machine's moves as its events, Strands' own spans below it.

On whenever an OpenTelemetry SDK ``TracerProvider`` is installed (``opentelemetry.trace.set_tracer_provider``,
or ``OTEL_PYTHON_TRACER_PROVIDER``) and the endpoint's ``tracing`` setting is not False; checked once per run,
so a provider installed after the app was built (in a lifespan hook) counts. Without one a run costs nothing
more: no span, no ``on_move`` callback, no wrapper per event.

* **The span** ``agui.run`` (kind ``INTERNAL``; a child of the HTTP request's span when an ASGI
  instrumentation, FastAPI's own included, made one current) covers the run from its accepted request to the end
  of its response.
  Attributes (``docs/observability.md``): ``agui.thread.id``, ``agui.run.id``, ``agui.run.parent_id``,
  ``agui.agent.name``; at its end ``agui.run.outcome``, ``agui.error.code``, ``gen_ai.usage.input_tokens`` /
  ``output_tokens`` / ``total_tokens`` (summed over the terminal event's ``usage``), ``agui.deltas``; and what
  the serving layer names for the request (:data:`REQUEST_ATTRIBUTES`: AgentCore's ``session.id`` and
  ``agentcore.request.id``, ``server/agentcore``).
* **Its events**: one per move of the run's machine and of its subagents' (``core.machine.Move``), named by
  the trigger (``start_run``, ``open_text``, ``end_turn``, ``finish`` ...), with ``agui.cause`` and
  ``agui.state``, ``agui.subagent`` for a subagent's, ``agui.declined`` for a declined one. The deltas
  (``text_delta``, ``reasoning_delta``, ``tool_args``, ``tool_progress``) are counted in ``agui.deltas``
  instead: one event per streamed word would drown the rest (and the SDK keeps 128 events per span).
* **The client learns the trace**: RUN_STARTED carries ``metadata.traceId`` (32 hex digits) and
  ``metadata.spanId`` (the run span's, 16 hex digits), so a "report this answer" button can point at the trace.
* **Feedback** on an answer (``POST {path}/threads/{threadId}/feedback``, ``server/threads_api.py``) is an event
  ``agui.feedback`` (``agui.message.id``, ``agui.feedback.rating``, ``agui.feedback.comment``) on a short span
  ``agui.feedback`` that is a *child of the run's span* (same trace; a span that ended takes no more events, so
  this is how it lands on the run), linked to it too; its parent is the run that wrote the message, kept with
  the thread. A message of an untraced run gets a span of its own.
* **Strands' spans are its children.** The span is made current (``context.attach``) in the request's task
  around the whole served run, and Strands' ``stream_async`` runs in that task (``server/transport/streaming.py``), so
  ``invoke_agent`` (and a Swarm's or Graph's span) take it as their parent. It is detached in the same task
  after the run is closed, so attach and detach pair up.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from ag_ui.core import RunAgentInput
from opentelemetry import context, trace
from opentelemetry.trace import (
    INVALID_SPAN,
    Link,
    NonRecordingSpan,
    NoOpTracerProvider,
    ProxyTracerProvider,
    Span,
    SpanContext,
    SpanKind,
    Status,
    StatusCode,
    TraceFlags,
    Tracer,
)

from ...core.machine import Move

TRACER_NAME = "strands_agui"
SPAN_NAME = "agui.run"
FEEDBACK = "agui.feedback"
DELTAS = frozenset({"text_delta", "reasoning_delta", "tool_args", "tool_progress"})
REQUEST_ATTRIBUTES: ContextVar[Mapping[str, str]] = ContextVar(
    "strands_agui_request_attributes", default=MappingProxyType({}))
"""Span attributes of the request being served, set in its task by the layer that reads them (AgentCore's
headers): every run span started in that task carries them."""
USAGE = (("input_tokens", "gen_ai.usage.input_tokens"), ("output_tokens", "gen_ai.usage.output_tokens"),
         ("total_tokens", "gen_ai.usage.total_tokens"))


def run_tracer() -> Tracer | None:
    """The tracer of the installed SDK provider, or None when none is installed (tracing is off)."""
    provider = trace.get_tracer_provider()
    if isinstance(provider, ProxyTracerProvider | NoOpTracerProvider):
        return None
    return _tracer(provider)


@lru_cache(maxsize=4)
def _tracer(provider: trace.TracerProvider) -> Tracer:
    return provider.get_tracer(TRACER_NAME)


class RunSpan:
    """One run's span: started when its response starts (its start time the accepted request's), current
    while the run is served, ended with the response."""

    def __init__(self, tracer: Tracer, input_data: RunAgentInput, agent: str) -> None:
        self.tracer, self.accepted = tracer, time.time_ns()
        self.attributes: dict[str, Any] = {"agui.thread.id": input_data.thread_id, "agui.run.id": input_data.run_id,
                                           "agui.agent.name": agent, **REQUEST_ATTRIBUTES.get()}
        if input_data.parent_run_id:
            self.attributes["agui.run.parent_id"] = input_data.parent_run_id
        self.span: Span = INVALID_SPAN
        self.deltas = 0

    def ids(self) -> dict[str, str] | None:
        """``{traceId, spanId}`` of the run's span, once it started (None: not recording)."""
        context = self.span.get_span_context()
        if not context.is_valid:
            return None
        return {"traceId": format(context.trace_id, "032x"), "spanId": format(context.span_id, "016x")}

    def on_move(self, move: Move) -> None:
        """The run's ``on_move``: a span event per move, deltas counted."""
        if move.trigger in DELTAS and not move.declined:
            self.deltas += 1
            return
        attributes: dict[str, Any] = {"agui.cause": move.cause, "agui.state": move.state}
        if move.path:
            attributes["agui.subagent"] = move.path
        if move.declined:
            attributes["agui.declined"] = True
        self.span.add_event(move.trigger, attributes)

    @contextmanager
    def current(self) -> Iterator[None]:
        """Start the span, a child of the current one (the HTTP request's, when instrumented), and make it the
        current one in this task while the run is served."""
        self.span = self.tracer.start_span(SPAN_NAME, kind=SpanKind.INTERNAL, attributes=self.attributes,
                                           start_time=self.accepted)
        token = context.attach(trace.set_span_in_context(self.span))
        try:
            yield
        finally:
            context.detach(token)

    def end(self, outcome: str, code: str | None, usage: Sequence[Any] | None) -> None:
        """Close the span with the run's outcome, error code and token usage."""
        span = self.span
        span.set_attribute("agui.run.outcome", outcome)
        span.set_attribute("agui.deltas", self.deltas)
        if code:
            span.set_attribute("agui.error.code", code)
        for field, name in USAGE:
            counts = [getattr(entry, field, None) for entry in usage or ()]
            if any(isinstance(count, int) for count in counts):
                span.set_attribute(name, sum(c for c in counts if isinstance(c, int)))
        if outcome == "error":
            span.set_status(Status(StatusCode.ERROR, code))
        span.end()


def record_feedback(thread_id: str, entry: dict[str, Any], run: dict[str, str] | None) -> str | None:
    """Feedback on a message as an ``agui.feedback`` event, under the span of the ``run`` that wrote it (its
    ``{traceId, spanId}``); returns the trace id it went to (None: tracing is off)."""
    tracer = run_tracer()
    if tracer is None:
        return None
    parent, links = None, []
    if run is not None:
        run_context = SpanContext(int(run["traceId"], 16), int(run["spanId"], 16), is_remote=True,
                                  trace_flags=TraceFlags(TraceFlags.SAMPLED))
        parent, links = trace.set_span_in_context(NonRecordingSpan(run_context)), [Link(run_context)]
    attributes: dict[str, Any] = {"agui.thread.id": thread_id, "agui.message.id": entry["messageId"],
                                  "agui.feedback.rating": entry["rating"]}
    if run is not None:
        attributes["agui.run.id"] = run["runId"]
    span = tracer.start_span(FEEDBACK, context=parent, links=links, kind=SpanKind.INTERNAL, attributes=attributes)
    event = {k: v for k, v in attributes.items() if k.startswith(("agui.message", "agui.feedback"))}
    if entry.get("comment"):
        event["agui.feedback.comment"] = entry["comment"]
    span.add_event(FEEDBACK, event)
    span.end()
    return format(span.get_span_context().trace_id, "032x")


__all__ = ["FEEDBACK", "SPAN_NAME", "TRACER_NAME", "RunSpan", "record_feedback", "run_tracer"]
