"""The session store a process uses when the app names none: chosen from the :class:`ServeEnvironment`, so every
worker of ``strands-agui serve`` (which sets it from ``--sessions`` and ``--pause-retention``) agrees."""

from __future__ import annotations

import functools
import logging

from ..environment import (
    ATTEMPTS_ENV,
    CONNECT_TIMEOUT_ENV,
    COOLDOWN_ENV,
    LEASE_ENV,
    READ_TIMEOUT_ENV,
    RETENTION_ENV,
    ServeEnvironment,
)
from .s3sessions import DEFAULT_ATTEMPTS, DEFAULT_CONNECT_TIMEOUT, DEFAULT_COOLDOWN, DEFAULT_READ_TIMEOUT, S3Sessions
from .sessions import DEFAULT_DIRECTORY, DEFAULT_LEASE_SECONDS, DEFAULT_RETENTION_SECONDS, FileSessions, SessionStore

logger = logging.getLogger(__name__)


def default_store() -> SessionStore:
    """The store of a ``StrandsAgent`` built without ``sessions=``: :func:`session_store` of the environment read
    now (the agent asks once, when it is built)."""
    return session_store(ServeEnvironment.from_env())


def session_store(environment: ServeEnvironment) -> SessionStore:
    """``serve --sessions DIR|s3://BUCKET/PREFIX``: a directory (:class:`FileSessions`) or ``s3://``
    (:class:`~strands_agui.runtime.s3sessions.S3Sessions`, with the environment's lease, timeouts, tries and
    breaker), else ``~/.strands/sessions``; retention ``serve --pause-retention`` seconds, else 24 h. One store
    per set of values, built once."""
    env = environment
    s3 = (env.s3_connect_timeout, env.s3_read_timeout, env.s3_attempts, env.s3_cooldown)
    return _store(env.sessions or str(DEFAULT_DIRECTORY), env.pause_retention, env.lease_seconds, s3)


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
