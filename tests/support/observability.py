"""Helpers of the observability tests: a real OpenTelemetry SDK TracerProvider with an in-memory exporter,
installed globally (where Strands' own tracer looks), and a Prometheus text scrape parsed by prometheus-client."""

from __future__ import annotations

import gc
import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import httpx
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult
from prometheus_client.parser import text_string_to_metric_families

DETACH_ERROR = "Failed to detach context"


class Switch(Sampler):
    """Records spans only while ``on``: OpenTelemetry allows one global provider per process, and once the
    tracing tests are done the other tests' runs must not pile spans up (their spans are then non-recording)."""

    def __init__(self) -> None:
        self.on = False

    def should_sample(self, parent_context: Any, trace_id: int, name: str, kind: Any = None,
                      attributes: Any = None, links: Any = None, trace_state: Any = None) -> SamplingResult:
        if not self.on:
            return SamplingResult(Decision.DROP)
        return SamplingResult(Decision.RECORD_AND_SAMPLE, attributes)  # the span starts with these attributes

    def get_description(self) -> str:
        return "tests.support.observability.Switch"


_INSTALLED: tuple[Switch, InMemorySpanExporter] | None = None


@contextmanager
def recorded_spans() -> Iterator[InMemorySpanExporter]:
    """Spans recorded by a real SDK TracerProvider (installed globally once per process) while inside."""
    global _INSTALLED
    if _INSTALLED is None:
        switch, exporter = Switch(), InMemorySpanExporter()
        provider = TracerProvider(sampler=switch)
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        assert trace.get_tracer_provider() is provider, "another TracerProvider was installed first"
        _INSTALLED = (switch, exporter)
    switch, exporter = _INSTALLED
    exporter.clear()
    switch.on = True
    try:
        yield exporter
    finally:
        switch.on = False
        exporter.clear()


def run_span(spans: Sequence[ReadableSpan], run_id: str) -> ReadableSpan:
    """The one ``agui.run`` span of ``run_id``."""
    found = [s for s in spans if s.name == "agui.run" and (s.attributes or {}).get("agui.run.id") == run_id]
    assert len(found) == 1, [s.name for s in spans]
    return found[0]


def descends_from(span: ReadableSpan, ancestor: ReadableSpan, spans: Sequence[ReadableSpan]) -> bool:
    """True when ``ancestor`` is ``span``'s parent, or its parent's, ... (within ``spans``)."""
    by_id = {s.context.span_id: s for s in spans}
    parent = span.parent
    while parent is not None:
        if parent.span_id == ancestor.context.span_id:
            return parent.trace_id == ancestor.context.trace_id
        above = by_id.get(parent.span_id)
        parent = above.parent if above is not None else None
    return False


def detach_errors(records: Sequence[logging.LogRecord]) -> list[str]:
    """OpenTelemetry's "Failed to detach context" errors among ``records`` (after a collection, so generators left
    to the garbage collector have been finalized)."""
    gc.collect()
    return [r.getMessage() for r in records if r.name == "opentelemetry.context" or DETACH_ERROR in r.getMessage()]


def scrape(url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """``GET url`` parsed by prometheus-client: (sample name, sorted labels) -> value."""
    response = httpx.get(url, timeout=10)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(response.text) for s in family.samples}


def sample(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str) -> float:
    """One sample's value (0 when it is absent: a label set never observed)."""
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)
