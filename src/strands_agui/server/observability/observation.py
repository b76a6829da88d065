"""What a served run tells the outside: its OpenTelemetry span (``tracing.py``) and its metrics (``metrics.py``).

:class:`Observability` is an endpoint's; :meth:`Observability.observe` gives each run a :class:`Observation`,
or None when nothing observes (no tracer provider installed, metrics off): the run is then served exactly as
before, with no callback and no wrapper per event. A run's observation has three hooks, all in the request's
task:

* ``on_move``: the run's machine moves, as span events (given to ``StrandsAgent.run``);
* ``encoder``: wraps the one encoding step (``server/transport/frames.Encode``), so it sees every event as it goes on
  the
  wire, the driver's own RUN_ERRORs (ENCODING_ERROR, ADAPTER_ERROR) included: the first event's and first
  output's times, the terminal event;
* ``observing``: around the whole response (``streaming.RunStream``): the span current, the active-runs gauge,
  and at the end the run's *outcome*: the terminal event's (``success``, ``interrupt``, ``cancelled``, or
  ``error`` with its code), else ``disconnected`` (the client left or stopped reading and the run was stopped;
  code ``RUN_ABANDONED`` when it was a resumable run nobody reconnected to).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from ag_ui.core import EventType, RunAgentInput

from ...core.machine import OnMove
from ..transport.driver import RunDriver
from ..transport.frames import TERMINAL, Encode
from .metrics import AgentMetrics
from .tracing import RunSpan, run_tracer

OPENING = frozenset({EventType.RUN_STARTED, EventType.STATE_SNAPSHOT, EventType.MESSAGES_SNAPSHOT,
                     EventType.CUSTOM, EventType.RAW})
"""Events that are not the agent's output: what a time to first output does not count."""


class Observability:
    """An endpoint's observation of its runs: its name, whether it traces, its metrics (None: off)."""

    def __init__(self, agent: str, *, tracing: bool, metrics: AgentMetrics | None) -> None:
        self.agent, self.tracing, self.metrics = agent, tracing, metrics

    def observe(self, input_data: RunAgentInput) -> Observation | None:
        """A run's observation, from the accepted request on; None when nothing observes it."""
        tracer = run_tracer() if self.tracing else None
        if tracer is None and self.metrics is None:
            return None
        return Observation(RunSpan(tracer, input_data, self.agent) if tracer is not None else None, self.metrics)

    def reconnected(self, status: int) -> None:
        """A reconnect (``GET runs/{runId}/events``) was answered with ``status``."""
        if self.metrics is not None:
            self.metrics.reconnected(status)


class Observation:
    """One run's span and metrics; see the module docstring."""

    def __init__(self, span: RunSpan | None, metrics: AgentMetrics | None) -> None:
        self.span, self.metrics = span, metrics
        self.accepted = time.perf_counter()
        self.started = False  # the first event went out
        self.output = metrics is None  # the first output went out (nothing to measure without metrics)
        self.terminal: Any = None  # the RUN_FINISHED / RUN_ERROR that went out

    @property
    def on_move(self) -> OnMove | None:
        return self.span.on_move if self.span is not None else None

    def stamp(self, event: Any) -> None:
        """RUN_STARTED gains the run's trace ids (``metadata.traceId`` / ``spanId``) when the run is traced: a
        resumable run's store asks before it stores the event, so every reader gets them."""
        if self.span is not None and event.type == EventType.RUN_STARTED:
            _with_trace(event, self.span)

    def encoder(self, encode: Encode) -> Encode:
        """``encode``, noting each event that it encodes; RUN_STARTED gains ``metadata.traceId`` / ``spanId``
        when the run is traced (``tracing.py``)."""
        span = self.span

        def observed(event: Any) -> bytes:
            if span is not None and event.type == EventType.RUN_STARTED:
                event = _with_trace(event, span)  # on the event itself: a resumable run stamped it when storing it
            frame = encode(event)
            if not self.output:
                self._early(event.type)
            if event.type in TERMINAL:
                self.terminal = event
            return frame
        return observed

    def _early(self, kind: EventType) -> None:
        assert self.metrics is not None
        if not self.started:
            self.started = True
            self.metrics.first_event.observe(time.perf_counter() - self.accepted)
        elif kind not in OPENING and kind not in TERMINAL:
            self.output = True
            self.metrics.first_output.observe(time.perf_counter() - self.accepted)

    @contextmanager
    def observing(self, driver: RunDriver) -> Iterator[None]:
        """Around the run's whole response: the span current, the run counted active, then its outcome."""
        if self.metrics is not None:
            self.metrics.active.inc()
        try:
            with self.span.current() if self.span is not None else nullcontext():
                yield
        finally:
            outcome, code, usage = self.outcome(driver)
            if self.metrics is not None:
                self.metrics.active.dec()
                self.metrics.ended(outcome, code, time.perf_counter() - self.accepted)
            if self.span is not None:
                self.span.end(outcome, code, usage)

    def outcome(self, driver: RunDriver) -> tuple[str, str | None, Any]:
        """(outcome, RUN_ERROR code, token usage) of the run, from its terminal event."""
        event = self.terminal
        if event is None:
            return "disconnected", "RUN_ABANDONED" if driver.detached_at is not None else None, None
        if event.type == EventType.RUN_ERROR:
            return "error", event.code or "", event.usage
        return getattr(event.outcome, "type", "success"), None, event.usage


def _with_trace(event: Any, span: RunSpan) -> Any:
    """RUN_STARTED with the run's trace ids in its ``metadata``, set on the event itself: a resumable run's stream
    knows its events by identity (their ids, the rewrite for each reader's client generation), so a copy would
    leave without its id and protocolVersion."""
    ids = span.ids()
    if ids is not None:
        event.metadata = {**(event.metadata or {}), **ids}
    return event


__all__ = ["Observability", "Observation"]
