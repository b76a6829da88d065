"""The session store a process uses when the app names none: chosen from the :class:`ServeEnvironment`, so every
worker of ``strands-agui serve`` (which sets it from ``--sessions`` and ``--pause-retention``) agrees."""

from __future__ import annotations

import functools

from ...environment import ServeEnvironment
from .s3sessions import DEFAULT_ATTEMPTS, DEFAULT_CONNECT_TIMEOUT, DEFAULT_COOLDOWN, DEFAULT_READ_TIMEOUT, S3Sessions
from .sessions import DEFAULT_DIRECTORY, DEFAULT_LEASE_SECONDS, DEFAULT_RETENTION_SECONDS, FileSessions, SessionStore


def default_store() -> SessionStore:
    """The store of a ``StrandsAgent`` built without ``sessions=``: :func:`session_store` of the environment read
    now (the agent asks once, when it is built; a wrong value is the ``ValueError`` an app gets)."""
    return session_store(ServeEnvironment.from_env())


def session_store(environment: ServeEnvironment) -> SessionStore:
    """``serve --sessions DIR|s3://BUCKET/PREFIX``: a directory (:class:`FileSessions`) or ``s3://``
    (:class:`~strands_agui.runtime.storage.s3sessions.S3Sessions`, with the environment's lease, timeouts, tries and
    breaker), else ``~/.strands/sessions``; retention ``serve --pause-retention`` seconds, else 24 h. One store
    per set of values, built once."""
    env = environment
    s3 = (env.s3_connect_timeout, env.s3_read_timeout, env.s3_attempts, env.s3_cooldown)
    return _store(env.sessions or str(DEFAULT_DIRECTORY), env.pause_retention, env.lease_seconds, s3)


@functools.lru_cache(maxsize=16)
def _store(where: str, retention: float | None, lease: float | None,
           s3: tuple[float | int | None, ...] = (None, None, None, None)) -> SessionStore:
    keep = DEFAULT_RETENTION_SECONDS if retention is None else retention
    if where.startswith("s3://"):
        connect, read, attempts, cooldown = s3
        return S3Sessions.from_url(
            where, retention_seconds=keep, lease_seconds=DEFAULT_LEASE_SECONDS if lease is None else lease,
            connect_timeout=DEFAULT_CONNECT_TIMEOUT if connect is None else connect,
            read_timeout=DEFAULT_READ_TIMEOUT if read is None else read,
            attempts=DEFAULT_ATTEMPTS if attempts is None else int(attempts),
            cooldown=DEFAULT_COOLDOWN if cooldown is None else cooldown)
    return FileSessions(where, retention_seconds=keep)
