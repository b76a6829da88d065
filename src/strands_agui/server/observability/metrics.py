"""Prometheus metrics of served runs, on an opt-in route (``GET /metrics``), with ``prometheus-client``.

Off unless the endpoint's ``metrics`` setting is True or ``strands-agui serve --metrics`` set it for every endpoint
(``environment.py``). Needs the ``observability`` extra (``pip install strands-agui[observability]``).
Metric names and labels are in ``docs/observability.md``; labels carry the endpoint's name, outcomes, error codes
and status codes, never a thread or run id.

**Several worker processes** (``serve --workers N``, gunicorn): prometheus-client's multiprocess mode. With
``PROMETHEUS_MULTIPROC_DIR`` set (an empty directory, before any worker imports ``prometheus_client``) each
process writes its values into files there and ``/metrics`` sums every process's files, whichever worker
answers; ``serve --metrics --workers N`` makes a fresh directory itself. The active-runs gauge is summed over
live processes (``livesum``); a worker killed mid-run leaves its count behind until the directory is wiped.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from fastapi import FastAPI, params
from fastapi.responses import Response

DEFAULT_METRICS_PATH = "/metrics"

DURATION_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0)
FIRST_EVENT_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
FIRST_OUTPUT_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class ProcessMetrics:
    """The process's run metrics, registered once in ``prometheus_client``'s default registry."""

    def __init__(self) -> None:
        try:
            from prometheus_client import Counter, Gauge, Histogram
        except ImportError as exc:  # a setting, not a crash in the middle of a run
            raise ImportError("metrics=True needs prometheus-client: pip install 'strands-agui[observability]'") \
                from exc
        self.runs = Counter("strands_agui_runs", "Served runs, by how they ended (outcome) and RUN_ERROR code",
                            ["agent", "outcome", "code"])
        self.duration = Histogram("strands_agui_run_duration_seconds", "From the accepted request to the end of "
                                  "its response", ["agent", "outcome"], buckets=DURATION_BUCKETS)
        self.first_event = Histogram("strands_agui_time_to_first_event_seconds", "From the accepted request to "
                                     "its first event (RUN_STARTED) handed to the transport", ["agent"],
                                     buckets=FIRST_EVENT_BUCKETS)
        self.first_output = Histogram("strands_agui_time_to_first_output_seconds", "From the accepted request to "
                                      "the first event of the agent's output (text, reasoning, a tool call, a "
                                      "subagent, progress)", ["agent"], buckets=FIRST_OUTPUT_BUCKETS)
        self.active = Gauge("strands_agui_active_runs", "Runs being served now (detached resumable runs included)",
                            ["agent"], multiprocess_mode="livesum")
        self.reconnects = Counter("strands_agui_reconnects", "GET runs/{runId}/events requests, by status code",
                                  ["agent", "status"])
        self.refused = Counter("strands_agui_refused_runs", "Runs refused before they started (503 OVERLOADED), by "
                               "cause: runs_in_flight, event_store", ["agent", "cause"])
        self.run_limit = Gauge("strands_agui_run_limit", "Runs in flight a worker admits now (admission control's "
                               "learned limit; summed over workers)", ["agent"], multiprocess_mode="livesum")
        self.loop_lag = Gauge("strands_agui_loop_lag_seconds", "A worker's event loop lag, the mean of the last "
                              "window admission control measured (the highest worker's)", ["agent"],
                              multiprocess_mode="livemax")


@cache
def run_metrics() -> ProcessMetrics:
    """The process's :class:`ProcessMetrics` (prometheus-client refuses a metric name registered twice)."""
    return ProcessMetrics()


class AgentMetrics:
    """One endpoint's share of the run metrics: its label values bound once."""

    def __init__(self, agent: str, metrics: ProcessMetrics | None = None) -> None:
        metrics = metrics or run_metrics()
        self.agent, self.metrics = agent, metrics
        self.active = metrics.active.labels(agent)
        self.first_event = metrics.first_event.labels(agent)
        self.first_output = metrics.first_output.labels(agent)

    def ended(self, outcome: str, code: str | None, seconds: float) -> None:
        self.metrics.runs.labels(self.agent, outcome, code or "").inc()
        self.metrics.duration.labels(self.agent, outcome).observe(seconds)

    def reconnected(self, status: int) -> None:
        self.metrics.reconnects.labels(self.agent, str(status)).inc()

    def refused(self, cause: str) -> None:
        self.metrics.refused.labels(self.agent, cause).inc()

    def admitting(self, limit: float, lag: float) -> None:
        """Admission control's limit and the loop lag it measured, after each adjustment."""
        self.metrics.run_limit.labels(self.agent).set(limit)
        self.metrics.loop_lag.labels(self.agent).set(lag)


def add_metrics_route(app: FastAPI, path: str = DEFAULT_METRICS_PATH,
                      dependencies: list[params.Depends] | None = None, *, multiprocess: bool = False) -> None:
    """``GET path``: the process's metrics (every worker's, with ``multiprocess``: ``$PROMETHEUS_MULTIPROC_DIR``
    was set, see ``environment.py``) in Prometheus' text format. Added once per app (several endpoints share it);
    not in the OpenAPI document."""
    run_metrics()  # prometheus-client is installed: fail when the app is built, not at the first scrape
    if any(getattr(route, "path", None) == path for route in app.router.routes):
        return

    async def scrape() -> Response:
        """Every metric of the default registry, or of every process's files in multiprocess mode."""
        from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest

        registry: Any = REGISTRY
        if multiprocess:
            from prometheus_client.multiprocess import MultiProcessCollector

            registry = CollectorRegistry()
            MultiProcessCollector(registry)
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)

    app.add_api_route(path, scrape, methods=["GET"], name="metrics", include_in_schema=False,
                      dependencies=dependencies)


__all__ = ["DEFAULT_METRICS_PATH", "AgentMetrics", "ProcessMetrics", "add_metrics_route", "run_metrics"]
