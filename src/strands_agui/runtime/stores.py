"""The session store a process uses when the app names none: chosen from the environment, so every worker of
``strands-agui serve`` (which sets it from ``--sessions`` and ``--pause-retention``) agrees."""

from __future__ import annotations

import functools
import logging
import os

from .s3sessions import (
    ATTEMPTS_ENV,
    CONNECT_TIMEOUT_ENV,
    COOLDOWN_ENV,
    DEFAULT_ATTEMPTS,
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_COOLDOWN,
    DEFAULT_READ_TIMEOUT,
    LEASE_ENV,
    READ_TIMEOUT_ENV,
    S3Sessions,
)
from .sessions import (
    DEFAULT_DIRECTORY,
    DEFAULT_LEASE_SECONDS,
    DEFAULT_RETENTION_SECONDS,
    RETENTION_ENV,
    SESSIONS_ENV,
    FileSessions,
    SessionStore,
)

logger = logging.getLogger(__name__)


def default_store() -> SessionStore:
    """``$STRANDS_AGUI_SESSIONS`` (set by ``strands-agui serve --sessions DIR|s3://BUCKET/PREFIX``): a directory
    (:class:`FileSessions`) or ``s3://`` (:class:`~strands_agui.runtime.s3sessions.S3Sessions`, lease
    ``$STRANDS_AGUI_LEASE_SECONDS``, timeouts ``$STRANDS_AGUI_S3_CONNECT_TIMEOUT``, ``$STRANDS_AGUI_S3_READ_TIMEOUT``,
    tries ``$STRANDS_AGUI_S3_ATTEMPTS``, breaker ``$STRANDS_AGUI_S3_COOLDOWN``), else ``~/.strands/sessions``;
    retention ``$STRANDS_AGUI_PAUSE_RETENTION`` seconds (``serve --pause-retention``), else 24 h. Asked on every
    run: one store per value of the variables, built once."""
    s3 = tuple(os.environ.get(name) for name in (CONNECT_TIMEOUT_ENV, READ_TIMEOUT_ENV, ATTEMPTS_ENV, COOLDOWN_ENV))
    return _store(os.environ.get(SESSIONS_ENV) or str(DEFAULT_DIRECTORY), os.environ.get(RETENTION_ENV),
                  os.environ.get(LEASE_ENV), s3)


@functools.lru_cache(maxsize=16)
def _store(where: str, retention: str | None, lease: str | None,
           s3: tuple[str | None, ...] = (None, None, None, None)) -> SessionStore:
    keep = _seconds(RETENTION_ENV, retention, DEFAULT_RETENTION_SECONDS)
    if where.startswith("s3://"):
        connect, read, attempts, cooldown = s3
        return S3Sessions.from_url(
            where, retention_seconds=keep, lease_seconds=_seconds(LEASE_ENV, lease, DEFAULT_LEASE_SECONDS),
            connect_timeout=_seconds(CONNECT_TIMEOUT_ENV, connect, DEFAULT_CONNECT_TIMEOUT),
            read_timeout=_seconds(READ_TIMEOUT_ENV, read, DEFAULT_READ_TIMEOUT),
            attempts=int(_seconds(ATTEMPTS_ENV, attempts, DEFAULT_ATTEMPTS, whole=True)),
            cooldown=_seconds(COOLDOWN_ENV, cooldown, DEFAULT_COOLDOWN, zero=True))
    return FileSessions(where, retention_seconds=keep)


def _seconds(name: str, text: str | None, default: float, *, zero: bool = False, whole: bool = False) -> float:
    """``text`` as a number of seconds > 0 (``inf`` allowed; 0 too when ``zero``; a whole number >= 1 when
    ``whole``); ``default`` when unset or wrong (logged)."""
    try:
        value = float(text) if text else float(default)
    except ValueError:
        value = -1.0
    wrong = not (value >= 0 if zero else value > 0) or (whole and (not value.is_integer() or value < 1))
    if wrong or value != value:
        logger.warning("ignoring %s=%r: not a %s", name, text,
                       "whole number >= 1" if whole else "number of seconds >= 0" if zero else
                       "number of seconds > 0")
        return default
    return value
