"""Pauses in S3, shared by every machine: :class:`S3Sessions` (``strands-agui serve --sessions s3://BUCKET/PREFIX``).

The Strands side is Strands' own ``S3SessionManager``; this module only adds what ``FileSessions`` gets from the
file system, with S3's own primitives (endpoint and credentials from the standard AWS configuration:
``AWS_ENDPOINT_URL`` for an S3-compatible store, ``AWS_REGION``, the usual credential chain):

* **Atomic publish.** A pause is written as a new *generation* (``data/session_<id>-<generation>/...``), then
  published by one ``PUT`` of its marker ``pauses/<id>.json``, which names the generation. A resume reads the
  marker, so it never sees half a pause; the older generation is deleted after the marker moved on.
* **One run per paused thread, across machines.** ``hold`` creates the lease ``leases/<id>.json`` with
  ``If-None-Match: *`` (S3 conditional writes): of two machines, one creates it and the other gets
  ``THREAD_BUSY``. The holder renews it (``If-Match`` its own ETag) every third of ``lease_seconds`` while the
  run lasts and deletes it (``If-Match``) at the end. A holder that died (SIGKILL, a lost machine) stops renewing:
  once the lease is ``lease_seconds`` older than S3's own clock (the ``Date`` of S3's answer against the
  lease's ``LastModified``: no machine's clock is trusted), the next run takes it over with ``If-Match`` its
  ETag, so of two runs taking over one wins.
* **Bounded.** Expiry is ``FileSessions``': a pause's time is its marker's ``LastModified``; ``refresh`` rewrites
  the marker; ``sweep`` (when a pause is stored) removes markers older than the retention, with their data.
* **No hang.** The client connects within 2 s, reads within 10 s and retries twice: an unreachable store is a
  ``SessionException`` (``SESSION_ERROR``) within seconds.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import uuid
from collections.abc import Iterator
from email.utils import parsedate_to_datetime
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError
from strands import Agent
from strands.multiagent.base import MultiAgentBase
from strands.session import S3SessionManager
from strands.session.session_manager import SessionManager
from strands.session.session_repository import SessionRepository
from strands.types.exceptions import SessionException

from ..errors import RunRefused
from .sessions import (
    DEFAULT_LEASE_SECONDS,
    DEFAULT_RETENTION_SECONDS,
    THREADS_SESSION,
    SessionStore,
    initialize_session,
    session_id,
)

logger = logging.getLogger(__name__)

LEASE_ENV = "STRANDS_AGUI_LEASE_SECONDS"
CLIENT_CONFIG = Config(connect_timeout=2, read_timeout=10, retries={"max_attempts": 2, "mode": "standard"})
_CONFLICT = {"PreconditionFailed", "ConditionalRequestConflict", "412", "409", "NoSuchKey", "404"}


@contextlib.contextmanager
def s3_errors() -> Iterator[None]:
    """botocore's failures (an unreachable endpoint, a refused request) as Strands' ``SessionException``, which
    a run reports as ``SESSION_ERROR``."""
    try:
        yield
    except (BotoCoreError, ClientError) as exc:
        raise SessionException(f"S3: {exc}") from exc


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


class S3Sessions(SessionStore):
    """Pauses under ``s3://bucket/prefix`` (see the module docstring)."""

    def __init__(self, bucket: str, prefix: str = "", *, retention_seconds: float = DEFAULT_RETENTION_SECONDS,
                 lease_seconds: float = DEFAULT_LEASE_SECONDS, client: Any = None) -> None:
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.retention_seconds = retention_seconds
        self.lease_seconds = lease_seconds
        self.client = client or boto3.Session().client("s3", config=CLIENT_CONFIG)
        self._threads: S3SessionManager | None = None

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> S3Sessions:
        """``s3://BUCKET[/PREFIX]``."""
        bucket, _, prefix = url.removeprefix("s3://").partition("/")
        if not bucket:
            raise ValueError(f"{url!r}: give s3://BUCKET or s3://BUCKET/PREFIX")
        return cls(bucket, prefix, **kwargs)

    def threads_repository(self) -> SessionRepository:
        if self._threads is None:
            self._threads = S3SessionManager(THREADS_SESSION, self.bucket, self._key("threads"),
                                             boto_client_config=CLIENT_CONFIG,
                                             endpoint_url=self.client.meta.endpoint_url)
        return self._threads

    def thread_session_ids(self) -> list[str]:
        root = self._key("threads", "session_")
        with s3_errors():
            pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=root,
                                                                          Delimiter="/")
            names = [p["Prefix"][len(root):].rstrip("/") for page in pages for p in page.get("CommonPrefixes", ())]
        return [name for name in names if name != THREADS_SESSION]

    def _key(self, *parts: str) -> str:
        return "/".join((self.prefix, *parts) if self.prefix else parts)

    def _marker(self, thread_id: str, principal: str | None) -> str:
        return self._key("pauses", f"{session_id(thread_id, principal)}.json")

    def _manager(self, generation_id: str) -> S3SessionManager:
        return S3SessionManager(generation_id, self.bucket, self._key("data"), boto_client_config=CLIENT_CONFIG,
                                endpoint_url=self.client.meta.endpoint_url)

    def _read_marker(self, key: str) -> tuple[dict[str, Any], float] | None:
        """The marker's body and ``LastModified`` (epoch seconds), or None when there is none."""
        try:
            answer = self.client.get_object(Bucket=self.bucket, Key=key)
        except ClientError as exc:
            if _code(exc) in ("NoSuchKey", "404"):
                return None
            raise
        return json.loads(answer["Body"].read()), answer["LastModified"].timestamp()

    def session_manager(self, thread_id: str, principal: str | None = None) -> SessionManager:
        with s3_errors():
            found = self._read_marker(self._marker(thread_id, principal))
        if found is None:
            raise SessionException("the thread's pause is gone")
        return self._manager(found[0]["session"])

    def paused_at(self, thread_id: str, principal: str | None = None) -> float | None:
        with s3_errors():
            found = self._read_marker(self._marker(thread_id, principal))
        return found[1] if found is not None else None

    @contextlib.contextmanager
    def hold(self, thread_id: str, principal: str | None = None) -> Iterator[None]:
        lease = Lease(self.client, self.bucket, self._key("leases", f"{session_id(thread_id, principal)}.json"),
                      self.lease_seconds)
        with s3_errors():
            lease.acquire()
        try:
            if self.paused_at(thread_id, principal) is None:  # removed by the run that held it before us
                raise RunRefused("INTERRUPT_NOT_FOUND", "the thread has no paused run (already resumed?)")
            yield
        finally:
            lease.release()

    def park(self, thread_id: str, agent: Agent | MultiAgentBase, principal: str | None = None) -> None:
        self.sweep()
        generation = f"{session_id(thread_id, principal)}-{uuid.uuid4().hex[:12]}"
        with s3_errors():
            initialize_session(self._manager(generation), agent)
        body = json.dumps({"session": generation, "threadId": thread_id, "principal": principal})
        if self.paused_at(thread_id, principal) is None:
            with s3_errors():
                self.client.put_object(Bucket=self.bucket, Key=self._marker(thread_id, principal), Body=body)
            return
        with self.hold(thread_id, principal):
            self.remove(thread_id, principal)
            with s3_errors():
                self.client.put_object(Bucket=self.bucket, Key=self._marker(thread_id, principal), Body=body)

    def refresh(self, thread_id: str, principal: str | None = None) -> None:
        key = self._marker(thread_id, principal)
        with s3_errors():
            found = self._read_marker(key)
            if found is not None:
                self.client.put_object(Bucket=self.bucket, Key=key, Body=json.dumps(found[0]))

    def remove(self, thread_id: str, principal: str | None = None) -> None:
        self._drop(self._marker(thread_id, principal))

    def _drop(self, key: str) -> None:
        """Delete a marker, then its generation's data (a crash between the two leaves only unreachable data,
        which no marker names)."""
        with s3_errors():
            found = self._read_marker(key)
            if found is None:
                return
            self.client.delete_object(Bucket=self.bucket, Key=key)
            with contextlib.suppress(SessionException):
                self._manager(found[0]["session"]).delete_session(found[0]["session"])

    def sweep(self) -> None:
        """Remove every expired pause."""
        with s3_errors():
            pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket,
                                                                          Prefix=self._key("pauses", ""))
            stale = [item["Key"] for page in pages for item in page.get("Contents", ())
                     if self.expired(item["LastModified"].timestamp())]
        for key in stale:
            self._drop(key)


class Lease:
    """An exclusive, expiring hold on one S3 key (see the module docstring); renewed in a thread while held."""

    def __init__(self, client: Any, bucket: str, key: str, seconds: float) -> None:
        self.client, self.bucket, self.key, self.seconds = client, bucket, key, seconds
        self.etag: str | None = None
        self.stopped = threading.Event()
        self.renewer: threading.Thread | None = None

    def _put(self, **condition: str) -> None:
        body = json.dumps({"owner": uuid.uuid4().hex, "seconds": self.seconds})
        self.etag = self.client.put_object(Bucket=self.bucket, Key=self.key, Body=body, **condition)["ETag"]

    def acquire(self) -> None:
        """Take the lease, or raise ``RunRefused("THREAD_BUSY")`` while another holder keeps it alive."""
        try:
            self._put(IfNoneMatch="*")
        except ClientError as exc:
            if _code(exc) not in _CONFLICT:
                raise
            self._take_over()
        self.renewer = threading.Thread(target=self._renew, name=f"lease {self.key}", daemon=True)
        self.renewer.start()

    def _take_over(self) -> None:
        busy = RunRefused("THREAD_BUSY", "another run is resuming this thread")
        try:
            answer = self.client.get_object(Bucket=self.bucket, Key=self.key)
        except ClientError as exc:
            if _code(exc) in ("NoSuchKey", "404"):  # released meanwhile: someone else may be taking it
                raise busy from None
            raise
        seconds = float(json.loads(answer["Body"].read()).get("seconds", self.seconds))
        now = parsedate_to_datetime(answer["ResponseMetadata"]["HTTPHeaders"]["date"]).timestamp()
        if now - answer["LastModified"].timestamp() <= seconds:
            raise busy
        try:
            self._put(IfMatch=answer["ETag"])
        except ClientError as exc:
            if _code(exc) in _CONFLICT:
                raise busy from None
            raise
        logger.warning("took over the expired lease %s (its holder stopped renewing it)", self.key)

    def _renew(self) -> None:
        while not self.stopped.wait(self.seconds / 3):
            try:
                self._put(IfMatch=self.etag or "")
            except (BotoCoreError, ClientError) as exc:
                logger.warning("could not renew the lease %s: %s", self.key, exc)

    def release(self) -> None:
        self.stopped.set()
        if self.renewer is not None:
            self.renewer.join()
        with contextlib.suppress(BotoCoreError, ClientError):
            self.client.delete_object(Bucket=self.bucket, Key=self.key, IfMatch=self.etag or "")
