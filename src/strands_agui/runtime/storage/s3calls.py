"""Every S3 call of a store bounded, and its failures Strands': the client configuration (timeouts, tries), the
breaker, and ``SessionException`` for any botocore failure (``s3sessions.py``'s "No hang, no pile-up").

Each call connects within ``connect_timeout``, waits ``read_timeout`` for an answer and makes ``attempts`` tries in
all; a call that failed in transport (a timeout, a refused or closed connection) opens the store's
:class:`Breaker`, and for ``cooldown`` seconds every call of the store fails at once (:class:`S3Unavailable`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError, HTTPClientError
from botocore.exceptions import ConnectionError as BotoConnectionError
from strands.session import S3SessionManager
from strands.types.exceptions import SessionException

DEFAULT_CONNECT_TIMEOUT = 1.0
DEFAULT_READ_TIMEOUT = 2.0
DEFAULT_ATTEMPTS = 2  # tries in all, the first included
DEFAULT_COOLDOWN = 5.0
CONFLICT = {"PreconditionFailed", "ConditionalRequestConflict", "412", "409", "NoSuchKey", "404"}


def client_config(connect_timeout: float = DEFAULT_CONNECT_TIMEOUT, read_timeout: float = DEFAULT_READ_TIMEOUT,
                  attempts: int = DEFAULT_ATTEMPTS) -> Config:
    """The botocore configuration of every S3 client of a store (its own and its Strands session managers')."""
    return Config(connect_timeout=connect_timeout, read_timeout=read_timeout,
                  retries={"total_max_attempts": attempts, "mode": "standard"})


class S3Unavailable(BotoCoreError):
    """A call refused at once: the store failed moments ago (the breaker is open)."""

    fmt = "S3 is unavailable: {reason}"


def _transport_failure(exc: BaseException) -> bool:
    """A failure of the connection itself (a timeout, refused, reset): the store, not the request, is at fault."""
    return isinstance(exc, (HTTPClientError, BotoConnectionError)) and not isinstance(exc, S3Unavailable)


class Breaker:
    """Fail fast for ``cooldown`` seconds after a call failed in transport (see the module docstring); 0: never.
    Installed on a boto3 session (every client made from it) or a client: ``before-send`` refuses while open."""

    def __init__(self, cooldown: float) -> None:
        self.cooldown = cooldown
        self.opened: float | None = None
        self.reason = ""

    def install(self, events: Any) -> None:
        events.register("before-send.s3", self._gate)
        events.register("after-call-error.s3", self._failed)

    def trip(self, exc: BaseException) -> None:
        if self.cooldown > 0 and _transport_failure(exc):
            self.opened, self.reason = time.monotonic(), f"{type(exc).__name__}: {exc}"

    def _gate(self, **_: Any) -> None:
        opened = self.opened
        if opened is not None and time.monotonic() - opened < self.cooldown:
            raise S3Unavailable(reason=f"{self.reason} ({time.monotonic() - opened:.1f} s ago; calls fail at once "
                                       f"for {self.cooldown:g} s)")

    def _failed(self, exception: BaseException | None = None, **_: Any) -> None:
        if exception is not None:
            self.trip(exception)


@contextlib.contextmanager
def s3_errors(breaker: Breaker | None = None) -> Iterator[None]:
    """botocore's failures (an unreachable endpoint, a refused request) as Strands' ``SessionException``, which
    a run reports as ``SESSION_ERROR``; a transport failure (also one reading a body) opens ``breaker``."""
    try:
        yield
    except (BotoCoreError, ClientError) as exc:
        if breaker is not None:
            breaker.trip(exc)
        raise SessionException(f"S3: {exc}") from exc


class StoreSessionManager(S3SessionManager):
    """Strands' ``S3SessionManager`` whose every failure is a ``SessionException`` (Strands turns only a
    ``ClientError`` into one: a timeout or a refused connection during a run would otherwise end it as
    ``STRANDS_ERROR``)."""

    def __init__(self, *args: Any, breaker: Breaker | None = None, **kwargs: Any) -> None:
        self.breaker = breaker
        with s3_errors(breaker):  # the constructor reads (or creates) the session
            super().__init__(*args, **kwargs)

    def _read_s3_object(self, key: str) -> dict[str, Any] | None:
        with s3_errors(self.breaker):
            return super()._read_s3_object(key)

    def _write_s3_object(self, key: str, data: dict[str, Any]) -> None:
        with s3_errors(self.breaker):
            super()._write_s3_object(key, data)

    def create_session(self, *args: Any, **kwargs: Any) -> Any:
        with s3_errors(self.breaker):
            return super().create_session(*args, **kwargs)

    def delete_session(self, *args: Any, **kwargs: Any) -> None:
        with s3_errors(self.breaker):
            super().delete_session(*args, **kwargs)

    def list_messages(self, *args: Any, **kwargs: Any) -> Any:
        with s3_errors(self.breaker):
            return super().list_messages(*args, **kwargs)


def code(exc: ClientError) -> str:
    """The error code of an S3 answer (``NoSuchKey``, ``PreconditionFailed``, ...)."""
    return str(exc.response.get("Error", {}).get("Code", ""))


__all__ = ["Breaker", "S3Unavailable", "StoreSessionManager", "client_config", "code", "s3_errors"]
