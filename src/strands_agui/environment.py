"""What ``strands-agui serve`` tells every worker process: its flags, as environment variables, read in one place.

``strands-agui serve`` checks its flags, builds a :class:`ServeEnvironment` and writes it into the process
environment (:meth:`ServeEnvironment.to_env`), so that every worker (``--workers N`` imports the app in N
processes) reads the same thing. A worker reads it once, with :meth:`ServeEnvironment.from_env`, when its app is
built (``add_strands_fastapi_endpoint`` / ``create_strands_app``; a ``StrandsAgent`` built without ``sessions=``
takes its default store from it when it is built). Nothing reads the environment later, during a run or a request.

A flag (``STRANDS_AGUI_THREADS``, ``STRANDS_AGUI_RESUMABLE``, ``STRANDS_AGUI_METRICS``,
``STRANDS_AGUI_NO_ADMISSION``) is parsed by
:func:`env_flag` alone: ``1``/``true``/``yes``/``on`` (any case, around spaces) is on, ``0``/``false``/``no``/``off``
or empty is off, anything else is refused (a ``ValueError`` naming the variable) when the app is built. A number
(seconds, tries, limits) is parsed by :func:`env_number` alone, the same way: unset or empty is None (the
default), a value outside its range (:data:`RANGES`) is refused with a ``ValueError`` naming the variable and the
range, whoever reads it (an app, an endpoint, a ``StrandsAgent`` taking its default store).

The flags turn a feature on for every endpoint of the served app; an endpoint's own setting turns it on for
itself (``docs/configuration.md``: the operator's flag and the code's setting; the code never turns the
operator's flag off). A setting that names more than on/off wins over the environment's: a ``Resumable`` with
its own event store, a ``sessions=`` store. Admission control is the one feature on by default, so its flags
are the operator's over the code's: ``--no-admission`` turns it off for every endpoint, ``--max-runs N`` puts the
ceiling ``N`` in every endpoint's policy (``server/request/admission.serve_policy``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields

SESSIONS_ENV = "STRANDS_AGUI_SESSIONS"  # ``serve --sessions DIR|s3://BUCKET/PREFIX``
RETENTION_ENV = "STRANDS_AGUI_PAUSE_RETENTION"  # ``serve --pause-retention SECONDS``
LEASE_ENV = "STRANDS_AGUI_LEASE_SECONDS"  # an S3 store's lease
CONNECT_TIMEOUT_ENV = "STRANDS_AGUI_S3_CONNECT_TIMEOUT"
READ_TIMEOUT_ENV = "STRANDS_AGUI_S3_READ_TIMEOUT"
ATTEMPTS_ENV = "STRANDS_AGUI_S3_ATTEMPTS"
COOLDOWN_ENV = "STRANDS_AGUI_S3_COOLDOWN"
THREADS_ENV = "STRANDS_AGUI_THREADS"  # ``serve --threads``
RESUMABLE_ENV = "STRANDS_AGUI_RESUMABLE"  # ``serve --resumable``
EVENTS_ENV = "STRANDS_AGUI_EVENTS"  # ``serve --events redis://HOST:PORT/DB``
DETACH_ENV = "STRANDS_AGUI_DETACH_SECONDS"  # ``serve --detach-seconds``
LIVE_RUNS_ENV = "STRANDS_AGUI_MAX_LIVE_RUNS_PER_PRINCIPAL"  # the event store's per-principal limit
REDIS_CONNECTIONS_ENV = "STRANDS_AGUI_REDIS_MAX_CONNECTIONS"  # a worker's connections to the Redis event store
METRICS_ENV = "STRANDS_AGUI_METRICS"  # ``serve --metrics``
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"  # prometheus-client's own: its multiprocess mode (``--workers N``)
MAX_RUNS_ENV = "STRANDS_AGUI_MAX_RUNS"  # ``serve --max-runs N``: admission control's fixed ceiling per worker
NO_ADMISSION_ENV = "STRANDS_AGUI_NO_ADMISSION"  # ``serve --no-admission``

_ON = frozenset({"1", "true", "yes", "on"})
_OFF = frozenset({"", "0", "false", "no", "off"})


def env_flag(name: str, text: str | None) -> bool:
    """The one parser of an on/off variable: ``1``/``true``/``yes``/``on`` -> True, ``0``/``false``/``no``/``off``,
    empty or unset -> False (any case, spaces around ignored); anything else is a ``ValueError`` naming ``name``."""
    value = (text or "").strip().lower()
    if value in _ON:
        return True
    if value in _OFF:
        return False
    raise ValueError(f"{name}={text!r}: give 1, true, yes or on (or 0, false, no, off)")


SECONDS, SECONDS_OR_ZERO, WHOLE = "a number of seconds > 0", "a number of seconds >= 0", "a whole number >= 1"
RANGES = {  # each number's variable -> what it must be (``inf`` is a number of seconds: forever)
    RETENTION_ENV: SECONDS, LEASE_ENV: SECONDS, CONNECT_TIMEOUT_ENV: SECONDS, READ_TIMEOUT_ENV: SECONDS,
    ATTEMPTS_ENV: WHOLE, COOLDOWN_ENV: SECONDS_OR_ZERO, DETACH_ENV: SECONDS_OR_ZERO, LIVE_RUNS_ENV: WHOLE,
    REDIS_CONNECTIONS_ENV: WHOLE, MAX_RUNS_ENV: WHOLE,
}


def env_number(name: str, text: str | None) -> float | int | None:
    """The one parser of a number variable (``RANGES[name]`` says which kind): None when unset or empty; a
    ``float`` (seconds) or an ``int`` (``WHOLE``); anything else is a ``ValueError`` naming ``name``."""
    if text is None or not text.strip():
        return None
    kind = RANGES[name]
    try:
        value: float | int = int(text) if kind == WHOLE else float(text)
    except ValueError:
        value = -1
    if value != value or value < (1 if kind == WHOLE else 0) or (kind == SECONDS and value == 0):
        raise ValueError(f"{name}={text!r}: give {kind}")
    return value


@dataclass(frozen=True)
class ServeEnvironment:
    """What ``strands-agui serve`` set for its workers; every field off or None when nothing was set (the
    default). Every value is parsed here, once (:func:`env_flag`, :func:`env_number`)."""

    sessions: str | None = None
    pause_retention: float | None = None
    lease_seconds: float | None = None
    s3_connect_timeout: float | None = None
    s3_read_timeout: float | None = None
    s3_attempts: int | None = None
    s3_cooldown: float | None = None
    threads: bool = False
    resumable: bool = False
    events: str | None = None
    detach_seconds: float | None = None
    max_live_runs_per_principal: int | None = None
    redis_max_connections: int | None = None
    metrics: bool = False
    metrics_directory: str | None = None
    max_runs: int | None = None
    no_admission: bool = False

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ServeEnvironment:
        """Read ``environ`` (default ``os.environ``) once; a wrong flag or number is a ``ValueError`` naming it."""
        env = os.environ if environ is None else environ
        numbers = {field: env_number(_VARIABLES[field], env.get(_VARIABLES[field])) for field in _NUMBERS}
        no_admission = env_flag(NO_ADMISSION_ENV, env.get(NO_ADMISSION_ENV))
        if no_admission and numbers["max_runs"] is not None:
            raise ValueError(f"{NO_ADMISSION_ENV} with {MAX_RUNS_ENV}: a ceiling needs admission control on; "
                             "set one of them")
        return cls(
            sessions=env.get(SESSIONS_ENV) or None, threads=env_flag(THREADS_ENV, env.get(THREADS_ENV)),
            resumable=env_flag(RESUMABLE_ENV, env.get(RESUMABLE_ENV)), events=env.get(EVENTS_ENV) or None,
            metrics=env_flag(METRICS_ENV, env.get(METRICS_ENV)), metrics_directory=env.get(MULTIPROC_ENV) or None,
            no_admission=no_admission, **numbers)  # type: ignore[arg-type]

    def to_env(self) -> dict[str, str]:
        """The variables that say this (what ``serve`` writes for its workers); fields off or None are left out,
        so ``ServeEnvironment.from_env(environment.to_env()) == environment``."""
        out: dict[str, str] = {}
        for field in fields(self):
            value = getattr(self, field.name)
            if value is None or value is False:
                continue
            out[_VARIABLES[field.name]] = "1" if value is True else str(value)
        return out


_VARIABLES = {
    "sessions": SESSIONS_ENV, "pause_retention": RETENTION_ENV, "lease_seconds": LEASE_ENV,
    "s3_connect_timeout": CONNECT_TIMEOUT_ENV, "s3_read_timeout": READ_TIMEOUT_ENV, "s3_attempts": ATTEMPTS_ENV,
    "s3_cooldown": COOLDOWN_ENV, "threads": THREADS_ENV, "resumable": RESUMABLE_ENV, "events": EVENTS_ENV,
    "detach_seconds": DETACH_ENV, "max_live_runs_per_principal": LIVE_RUNS_ENV,
    "redis_max_connections": REDIS_CONNECTIONS_ENV, "metrics": METRICS_ENV,
    "metrics_directory": MULTIPROC_ENV, "max_runs": MAX_RUNS_ENV, "no_admission": NO_ADMISSION_ENV,
}
_NUMBERS = tuple(field for field, name in _VARIABLES.items() if name in RANGES)

__all__ = ["ServeEnvironment", "env_flag", "env_number"]
