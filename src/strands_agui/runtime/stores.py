"""The session store a process uses when the app names none: chosen from the environment, so every worker of
``strands-agui serve`` (which sets it from ``--sessions`` and ``--pause-retention``) agrees."""

from __future__ import annotations

import functools
import logging
import os

from .s3sessions import LEASE_ENV, S3Sessions
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
    ``$STRANDS_AGUI_LEASE_SECONDS``), else ``~/.strands/sessions``; retention ``$STRANDS_AGUI_PAUSE_RETENTION``
    seconds (``serve --pause-retention``), else 24 h. Asked on every run: one store per value of the
    variables, built once."""
    return _store(os.environ.get(SESSIONS_ENV) or str(DEFAULT_DIRECTORY), os.environ.get(RETENTION_ENV),
                  os.environ.get(LEASE_ENV))


@functools.lru_cache(maxsize=16)
def _store(where: str, retention: str | None, lease: str | None) -> SessionStore:
    keep = _seconds(RETENTION_ENV, retention, DEFAULT_RETENTION_SECONDS)
    if where.startswith("s3://"):
        return S3Sessions.from_url(where, retention_seconds=keep,
                                   lease_seconds=_seconds(LEASE_ENV, lease, DEFAULT_LEASE_SECONDS))
    return FileSessions(where, retention_seconds=keep)


def _seconds(name: str, text: str | None, default: float) -> float:
    """``text`` as a number of seconds > 0 (``inf`` allowed); ``default`` when unset or wrong (logged)."""
    try:
        value = float(text) if text else default
    except ValueError:
        value = 0.0
    if not value > 0:
        logger.warning("ignoring %s=%r: not a number of seconds > 0", name, text)
        return default
    return value
