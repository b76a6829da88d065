"""Admission control: a run that would not get its normal latency is refused before it starts.

Past saturation a server that takes every run serves none of them in time: each new run slows every run already
in flight (their awaits wait behind its work on the one event loop), and the runs a client gave up on still cost
the CPU they took. So each worker admits a run only while it can serve it as fast as it serves runs unloaded, and
answers every other one at once: **503** with ``Retry-After`` and a body naming the cause (``errors.REFUSAL_CODES``
``OVERLOADED``), before its body is read. What is not a new run is never refused for load: a reconnect
(``Last-Event-ID``), a cancel, a ping, the thread API, ``/metrics``. A run on AgentCore's ``/ws`` is admitted by
its endpoint's admission control too (``agentcore/socket_runs.py``): refused, its socket closes with 1013.

**The limit** (:class:`LoopLimit`, one per event loop, so one per worker): runs in flight (``transport/inflight``'s
``IN_FLIGHT``, counted from the admission on) against a limit learned from the **loop's lag**, the time a callback
due now waits for the loop (a timer every ``PROBE_SECONDS``; each await of every run waits about as long). A served
run's latency grows with it and nothing else the worker does (a model's or a tool's wait costs no lag), so it
measures this worker's saturation whatever the agent or the model's pace. Every ``WINDOW_SECONDS`` the window's mean
lag is compared with a **threshold**: ``TOLERANCE`` x the worker's *baseline* lag (the ``BASELINE_QUANTILE`` of the
last ``HISTORY`` windows' lags: what this machine gives the worker when its runs are few; a machine shared with other
work has one above 0), kept between ``target_lag`` and ``max_lag``; the lag judged is the median of the last
``SUSTAINED`` windows', so one window's spike (another process had the CPU) is not taken for saturation:

* above it, the limit falls to the runs in flight (at most the limit) times ``threshold / lag`` (between
  ``0.5`` and ``DECREASE``), never below ``MINIMUM_LIMIT``; then no new run is admitted, and the limit is not cut
  again, until the runs in flight are within it (the lag meanwhile is that of the runs admitted before the cut, not
  the limit's: cutting on it would take the limit far below what the worker serves);
* below it, and the limit was reached in the window (a run refused, or runs in flight at ``BINDING`` of it), the
  limit grows by its square root (Netflix concurrency-limits' ``Gradient2`` queue allowance): fast from a few runs,
  slowly near a large limit;
* otherwise (the worker has room it does not use) the limit stays: an idle worker does not learn a limit it was
  never shown it can take.

**Why 4 ms.** A streamed run waits for the loop at each of its awaits, once or twice a model chunk (the chunk
arriving, its frame written), so the bench's chat run of 44 chunks grew by 50-90 x the mean lag. Past saturation
(``bench.overload``, ``docs/capacity.md``), with a threshold of 10 ms the served runs' p99 was 2.1-2.3x their
unloaded p99; with 5 ms, 1.5-2.6x (a stateful run also awaits its stores); with 4 ms, 1.4-1.9x, and the goodput
stayed near the rate the worker holds unshed. A lower threshold would refuse runs the worker could serve in time.

This is Envoy's adaptive concurrency and Netflix's ``Gradient2`` (a latency against its no-load value, a
``sqrt(limit)`` headroom) with the loop's lag as the latency: a run's own length (a model's pace, many turns) never
reads as load, and the baseline is a low quantile of recent windows (TCP Vegas' ``BaseRTT``, Envoy's ``minRTT``), so
it does not drift up under a sustained load; ``max_lag`` bounds the threshold, so a worker started into a spike
(every window it has seen is loaded) still sheds. It is on by default (``EndpointSettings.admission``);
``max_runs`` adds a fixed ceiling (a test's small limit, or a deployment's promise), ``adaptive=False`` leaves the
ceiling alone.

**Several workers** (``serve --workers N``) share one listening socket: a new connection goes to the worker that
accepts it first, and a saturated worker's loop, lagging, accepts later than an idle one's, so new connections go
to the idle workers more. A refusal keeps its connection open (closing it cost more goodput than it spread).

**Answered before the app** under ``strands-agui serve``: its uvicorn protocol (``early_refusal.py``) asks
:meth:`Admission.refusal` when a run's head is read and writes the same 503 itself, so a refusal costs the worker
about 33 us instead of 110 us through uvicorn's request cycle, the middleware and the route; a request the app could
answer otherwise (a browser's, with ``Origin``; an app with middleware of its own) still goes through the route.

**While it sheds** (a run refused in the last window) the worker's runs give the loop a turn once per slice, not
every other event as on a busy loop (``transport/pacing``'s ``LoopState.shedding``): each turn costs CPU, and past
saturation the runs it admitted need it (one process at 4x what it holds: 133-144 runs/s against 122-126).

**Resumable runs** are refused (503, cause ``event_store``) while the event store's connections are all taken
(``RedisEvents.busy``): a run accepted as resumable must be able to store its events, not lose them to a
pool that ran dry.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import time
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace

from fastapi.responses import Response

from ..transport.inflight import IN_FLIGHT, Held
from ..transport.pacing import loop_state

__all__ = ["DEFAULT_TARGET_LAG", "Admission", "AdmissionPolicy", "LoopLimit", "loop_limit", "saturated",
           "serve_policy"]

DEFAULT_TARGET_LAG = 0.004  # the lowest threshold of mean loop lag (s): a run's awaits each wait about that long
DEFAULT_MAX_LAG = 0.050  # the highest: a worker whose loop lags more than this is saturated, whatever its baseline
TOLERANCE = 2.0  # the threshold: this times the baseline lag
HISTORY = 100  # windows the baseline is read from (10 s)
BASELINE_QUANTILE = 0.1
SUSTAINED = 3  # the lag a window is judged by: the median of the last this many windows' lags
PROBE_SECONDS = 0.01  # how often the loop's lag is sampled
WINDOW_SECONDS = 0.1  # how often the limit is adjusted
MAXIMUM_LIMIT = 100_000.0  # a fresh worker's limit: none, until its lag first shows it saturated
MINIMUM_LIMIT = 16.0  # the fewest runs in flight a worker admits, whatever its lag (a machine starved by others)
DECREASE = 0.9  # the least a window above the target cuts the limit by
BINDING = 0.5  # runs in flight at half the limit or more: it is in use, it may grow (Netflix's app-limited rule)
RETRY_AFTER_SECONDS = 1


@dataclass(frozen=True)
class AdmissionPolicy:
    """How a worker admits runs: ``target_lag`` and ``max_lag`` (seconds) the lowest and highest threshold of the
    mean loop lag past which it sheds (the module docstring says how it sits between them); ``max_runs`` a fixed
    ceiling of runs in flight (None: only the learned limit); ``adaptive`` (False: the ceiling alone, none
    learned); ``retry_after`` the seconds a refusal's ``Retry-After`` asks for."""

    target_lag: float = DEFAULT_TARGET_LAG
    max_lag: float = DEFAULT_MAX_LAG
    max_runs: int | None = None
    adaptive: bool = True
    retry_after: int = RETRY_AFTER_SECONDS

    def __post_init__(self) -> None:
        if not 0 < self.target_lag < float("inf"):
            raise ValueError(f"target_lag must be a positive number of seconds, not {self.target_lag!r}")
        if not self.target_lag <= self.max_lag < float("inf"):
            raise ValueError(f"max_lag must be a number of seconds >= target_lag, not {self.max_lag!r}")
        if self.max_runs is not None and not (isinstance(self.max_runs, int) and self.max_runs > 0):
            raise ValueError(f"max_runs must be a positive int or None, not {self.max_runs!r}")
        if not self.adaptive and self.max_runs is None:
            raise ValueError("adaptive=False needs max_runs (a fixed limit); admission=None turns admission off")
        if not (isinstance(self.retry_after, int) and self.retry_after >= 0):
            raise ValueError(f"retry_after must be an int >= 0, not {self.retry_after!r}")


def serve_policy(policy: AdmissionPolicy | None, *, max_runs: int | None, off: bool) -> AdmissionPolicy | None:
    """An endpoint's policy as the operator's ``serve`` flags leave it: ``--no-admission`` (``off``) none,
    ``--max-runs N`` its own policy (the default one where it had none) with the ceiling ``N``; else its own."""
    if off:
        return None
    if max_runs is None:
        return policy
    return replace(policy or AdmissionPolicy(), max_runs=max_runs)


class LoopLimit:
    """The limit of runs in flight on one event loop, learned from its lag (see the module docstring)."""

    def __init__(self, policy: AdmissionPolicy, loop: asyncio.AbstractEventLoop) -> None:
        self.policy, self.loop = policy, loop
        self.limit = MAXIMUM_LIMIT if policy.adaptive else float(policy.max_runs or 0)
        if policy.max_runs is not None:
            self.limit = min(self.limit, policy.max_runs)
        self.lag = 0.0  # the last window's mean lag
        self.history: deque[float] = deque(maxlen=HISTORY)  # the last windows' mean lags
        self.peak = 0  # the most runs in flight an admission saw in this window
        self.refused = 0  # runs refused in this window
        self.shed = False  # a run was refused in the last window (its loop's runs pace per slice meanwhile)
        self._lags, self._samples = 0.0, 0
        self._due = 0.0
        self._window_end = 0.0
        self._probing = False
        self._settled = True  # the runs in flight were within the limit when the window began
        self.watchers: list[Callable[[LoopLimit], None]] = []  # told after each adjustment (metrics)

    @property
    def ceiling(self) -> int:
        """Runs in flight past which a new one is refused."""
        return max(1, int(self.limit))

    def saturated(self) -> bool:
        """Whether a new run would be refused now (what a health answer reads: ``HealthyBusy``, not ready)."""
        return IN_FLIGHT.runs >= self.ceiling

    def admits(self) -> bool:
        """Whether a new run may start now; counted in this window either way."""
        if self.policy.adaptive and not self._probing:
            self._start()
        runs = IN_FLIGHT.runs
        if runs >= self.ceiling:
            self.refused += 1
            return False
        self.peak = max(self.peak, runs + 1)
        return True

    def _start(self) -> None:
        self._probing = True
        now = time.monotonic()
        self._window_end = now + WINDOW_SECONDS
        self._next_probe(now)

    def _next_probe(self, now: float) -> None:
        self._due = now + PROBE_SECONDS
        self.loop.call_later(PROBE_SECONDS, self._probe)

    def _probe(self) -> None:
        now = time.monotonic()  # not loop.time(): uvloop's is the time its iteration began (libuv caches it)
        self._lags += max(0.0, now - self._due)
        self._samples += 1
        if now >= self._window_end:
            self._adjust()
            self._window_end = now + WINDOW_SECONDS
            if IN_FLIGHT.runs == 0 and self.peak == 0 and self.refused == 0:
                self._probing = False  # idle: the next admission starts the probe again
                return
            self.peak = self.refused = 0
        self._next_probe(now)

    def threshold(self) -> float:
        """The mean lag past which the limit is cut: ``TOLERANCE`` x the baseline, within the policy's bounds."""
        ordered = sorted(self.history)
        baseline = ordered[int(BASELINE_QUANTILE * (len(ordered) - 1))] if ordered else 0.0
        return min(self.policy.max_lag, max(self.policy.target_lag, TOLERANCE * baseline))

    def _adjust(self) -> None:
        """One window's end: its mean lag judged, the limit moved."""
        lag = self.lag = self._lags / max(self._samples, 1)
        self._lags, self._samples = 0.0, 0
        self.history.append(lag)
        if len(self.history) >= SUSTAINED:  # one window's spike (another process had the CPU) is not saturation
            lag = sorted(itertools.islice(reversed(self.history), SUSTAINED))[SUSTAINED // 2]
        threshold, limit, runs = self.threshold(), self.limit, IN_FLIGHT.runs
        if lag > threshold:
            if self._settled:  # the lag is the limit's: cut it (the runs admitted before the last cut are done)
                limit = min(limit, runs) * min(DECREASE, max(0.5, threshold / lag))
        elif self.refused or self.peak >= BINDING * limit:
            limit += math.sqrt(limit)
        ceiling = self.policy.max_runs if self.policy.max_runs is not None else MAXIMUM_LIMIT
        self.limit = min(ceiling, max(MINIMUM_LIMIT, limit))
        self._settled = runs <= self.ceiling
        self.shed = self.refused > 0
        limits = _LIMITS.get(self.loop, {}).values()  # the loop's other endpoints' policies: any of them shedding
        loop_state(self.loop).shedding = any(limit.shed for limit in limits) or self.shed  # runs pace per slice
        for watcher in self.watchers:
            watcher(self)


_LIMITS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[AdmissionPolicy, LoopLimit]] = \
    weakref.WeakKeyDictionary()


def loop_limit(policy: AdmissionPolicy) -> LoopLimit:
    """The running loop's limit for ``policy`` (one per loop and policy: the endpoints of a worker with the same
    policy share one, as they share its loop)."""
    loop = asyncio.get_running_loop()
    limits = _LIMITS.setdefault(loop, {})
    found = limits.get(policy)
    if found is None:
        found = limits[policy] = LoopLimit(policy, loop)
    return found


def saturated() -> bool:
    """Whether any admission on the running loop would refuse a new run now (a readiness or health answer's
    question; False where no admission control was built, or outside a loop)."""
    try:
        limits = _LIMITS.get(asyncio.get_running_loop())
    except RuntimeError:
        return False
    return any(limit.saturated() for limit in (limits or {}).values())


Refused = Callable[[str], None]  # told the cause of each refusal (metrics)


class Admission:
    """One endpoint's admission control: :meth:`admit` before a run's body is read gives the run its place in
    ``IN_FLIGHT`` (:class:`Held`) or the 503 to answer instead. ``store_busy`` says why a resumable run's events
    could not be stored now (None: they can); ``refused`` is told each refusal's cause."""

    def __init__(self, policy: AdmissionPolicy, *, store_busy: Callable[[], str | None] | None = None,
                 refused: Refused | None = None, watch: Callable[[LoopLimit], None] | None = None) -> None:
        self.policy, self.store_busy, self.refused, self.watch = policy, store_busy, refused, watch

    def limit(self) -> LoopLimit:
        limit = loop_limit(self.policy)
        if self.watch is not None and self.watch not in limit.watchers:
            limit.watchers.append(self.watch)
        return limit

    def refusal(self) -> tuple[str, str, LoopLimit] | None:
        """Why a new run would be refused now (its cause, what to tell the client, the limit; counted in the
        limit's window), or None: it would be admitted (nothing taken: :meth:`admit` takes its place)."""
        limit = self.limit()
        if not limit.admits():
            return ("runs_in_flight", f"this worker is serving {IN_FLIGHT.runs} runs, as many as it can serve at "
                    f"their normal latency now (limit {limit.ceiling})", limit)
        busy = self.store_busy() if self.store_busy is not None else None
        if busy is not None:
            return "event_store", f"a resumable run's events cannot be stored now: {busy}", limit
        return None

    def admit(self) -> Held | Response:
        refusal = self.refusal()
        if refusal is None:
            return Held()
        status, headers, body = self.refuse(*refusal)
        return Response(body, status_code=status, headers={name.decode(): value.decode() for name, value in headers})

    def refuse(self, cause: str, why: str, limit: LoopLimit) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        """The answer to a refused run (:func:`overloaded`), counted in the endpoint's metrics: its status, its
        headers but ``Content-Length``, its body (the route's and ``early_refusal``'s)."""
        if self.refused is not None:
            self.refused(cause)
        return overloaded(cause, why, limit.ceiling, self.policy.retry_after)


def overloaded(cause: str, why: str, limit: int, retry_after: int) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """503 ``OVERLOADED``: the cause, the limit, what to do; nothing was started. The connection stays open: closing
    it (so that a retry would come on a new connection, to whichever worker accepts it) cost more than it spread
    (``docs/benchmarks.md``, "Tried and dropped")."""
    detail = {"code": "OVERLOADED", "cause": cause, "limit": limit, "inFlight": IN_FLIGHT.runs,
              "message": f"{why}: retry after {retry_after} s; nothing was started"}
    return 503, [(b"content-type", b"application/json"), (b"retry-after", str(retry_after).encode("ascii"))], \
        json.dumps({"detail": detail}).encode()
