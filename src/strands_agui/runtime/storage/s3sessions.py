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
* **No hang, no pile-up.** Each S3 call connects within ``connect_timeout`` (1 s), waits ``read_timeout`` (2 s)
  for an answer and makes ``attempts`` (2) tries in all: a frozen store (connections accepted, never answered)
  fails a call in about 4 s, the worst case is ``attempts * (connect_timeout + read_timeout)`` (6 s). A call that
  failed that way (a timeout, a refused or closed connection) opens a breaker: for ``cooldown`` seconds (5 s) every
  call of this store fails at once, so a run that lost the store ends without waiting again for each of its
  cleanup calls and a brownout is not paid once per request. Every failure, including those of Strands' own
  ``S3SessionManager`` during a run, is a ``SessionException`` (``SESSION_ERROR``; 503 on the thread routes):
  ``s3calls.py``.
  Environment (``default.session_store``): ``STRANDS_AGUI_S3_CONNECT_TIMEOUT``, ``STRANDS_AGUI_S3_READ_TIMEOUT``,
  ``STRANDS_AGUI_S3_ATTEMPTS``, ``STRANDS_AGUI_S3_COOLDOWN``.
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
from botocore.exceptions import BotoCoreError, ClientError
from strands import Agent
from strands.multiagent.base import MultiAgentBase
from strands.session import S3SessionManager
from strands.session.session_manager import SessionManager
from strands.types.exceptions import SessionException

from ...errors import RunRefused
from .s3calls import (
    CONFLICT,
    DEFAULT_ATTEMPTS,
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_COOLDOWN,
    DEFAULT_READ_TIMEOUT,
    Breaker,
    StoreSessionManager,
    client_config,
    code,
    s3_errors,
)
from .sessions import (
    DEFAULT_LEASE_SECONDS,
    DEFAULT_RETENTION_SECONDS,
    SessionStore,
    initialize_session,
    session_id,
    thread_key,
)

logger = logging.getLogger(__name__)

class S3Sessions(SessionStore):
    """Pauses under ``s3://bucket/prefix`` (see the module docstring)."""

    blocking = True  # every call is a request to S3: a run makes them off the event loop

    def __init__(self, bucket: str, prefix: str = "", *, retention_seconds: float = DEFAULT_RETENTION_SECONDS,
                 lease_seconds: float = DEFAULT_LEASE_SECONDS, client: Any = None,
                 connect_timeout: float = DEFAULT_CONNECT_TIMEOUT, read_timeout: float = DEFAULT_READ_TIMEOUT,
                 attempts: int = DEFAULT_ATTEMPTS, cooldown: float = DEFAULT_COOLDOWN) -> None:
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.retention_seconds = retention_seconds
        self.lease_seconds = lease_seconds
        self.config = client_config(connect_timeout, read_timeout, attempts)
        self.call_seconds = attempts * (connect_timeout + read_timeout)  # the longest one call can take
        self.breaker = Breaker(cooldown)
        if client is None:
            client = boto3.Session().client("s3", config=self.config)
        self.breaker.install(client.meta.events)
        self.client = client

    def errors(self) -> contextlib.AbstractContextManager[None]:
        """This store's failures as ``SessionException`` (a transport failure opens its breaker)."""
        return s3_errors(self.breaker)

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> S3Sessions:
        """``s3://BUCKET[/PREFIX]``."""
        bucket, _, prefix = url.removeprefix("s3://").partition("/")
        if not bucket:
            raise ValueError(f"{url!r}: give s3://BUCKET or s3://BUCKET/PREFIX")
        return cls(bucket, prefix, **kwargs)

    def _thread_key(self, key: str) -> str:
        return self._key("threads", thread_key(key))

    def thread_read(self, key: str) -> bytes | None:
        with self.errors():
            try:
                answer = self.client.get_object(Bucket=self.bucket, Key=self._thread_key(key))
            except ClientError as exc:
                if code(exc) in ("NoSuchKey", "404"):
                    return None
                raise
            return bytes(answer["Body"].read())

    def thread_write(self, key: str, data: bytes) -> None:
        with self.errors():
            self.client.put_object(Bucket=self.bucket, Key=self._thread_key(key), Body=data)

    def thread_delete(self, key: str) -> None:
        with self.errors():
            self.client.delete_object(Bucket=self.bucket, Key=self._thread_key(key))

    def thread_names(self, folder: str, after: str, count: int) -> list[str]:
        root = self._thread_key(folder)
        start = {"StartAfter": root + after} if after else {}
        with self.errors():
            answer = self.client.list_objects_v2(Bucket=self.bucket, Prefix=root, Delimiter="/", MaxKeys=count,
                                                 **start)
        return [item["Key"][len(root):] for item in answer.get("Contents", ())]

    def thread_delete_folder(self, folder: str) -> None:
        root = self._thread_key(folder)
        with self.errors():
            pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=root)
            for page in pages:
                keys = [{"Key": item["Key"]} for item in page.get("Contents", ())]
                if keys:
                    self.client.delete_objects(Bucket=self.bucket, Delete={"Objects": keys})

    @contextlib.contextmanager
    def thread_hold(self, key: str) -> Iterator[None]:
        """A lease on ``threads/<key>.json`` (as a paused thread's: renewed while held, taken over once its holder
        stopped renewing it for ``lease_seconds``)."""
        lease = Lease(self.client, self.bucket, self._thread_key(f"{key}.json"), self.lease_seconds,
                      busy="another run is on this thread")
        with self.errors():
            lease.acquire()
        try:
            yield
        finally:
            lease.release()

    def _key(self, *parts: str) -> str:
        return "/".join((self.prefix, *parts) if self.prefix else parts)

    def _marker(self, thread_id: str, principal: str | None) -> str:
        return self._key("pauses", f"{session_id(thread_id, principal)}.json")

    def _manager(self, generation_id: str) -> S3SessionManager:
        return self._strands_manager(generation_id, self._key("data"))

    def _strands_manager(self, session: str, prefix: str) -> S3SessionManager:
        """Strands' S3 session manager of ``session`` under ``prefix``, with this store's timeouts and breaker (a
        boto3 session of its own, as Strands makes one: a boto3 session is not safe to share between threads)."""
        boto = boto3.Session()
        self.breaker.install(boto.events)
        return StoreSessionManager(session, self.bucket, prefix, boto_session=boto,
                                   boto_client_config=self.config, endpoint_url=self.client.meta.endpoint_url,
                                   breaker=self.breaker)

    def _read_marker(self, key: str) -> tuple[dict[str, Any], float] | None:
        """The marker's body and ``LastModified`` (epoch seconds), or None when there is none."""
        try:
            answer = self.client.get_object(Bucket=self.bucket, Key=key)
        except ClientError as exc:
            if code(exc) in ("NoSuchKey", "404"):
                return None
            raise
        return json.loads(answer["Body"].read()), answer["LastModified"].timestamp()

    def session_manager(self, thread_id: str, principal: str | None = None) -> SessionManager:
        with self.errors():
            found = self._read_marker(self._marker(thread_id, principal))
        if found is None:
            raise SessionException("the thread's pause is gone")
        return self._manager(found[0]["session"])

    def paused_at(self, thread_id: str, principal: str | None = None) -> float | None:
        with self.errors():
            found = self._read_marker(self._marker(thread_id, principal))
        return found[1] if found is not None else None

    @contextlib.contextmanager
    def hold(self, thread_id: str, principal: str | None = None) -> Iterator[None]:
        lease = Lease(self.client, self.bucket, self._key("leases", f"{session_id(thread_id, principal)}.json"),
                      self.lease_seconds)
        with self.errors():
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
        with self.errors():
            initialize_session(self._manager(generation), agent)
        body = json.dumps({"session": generation, "threadId": thread_id, "principal": principal})
        if self.paused_at(thread_id, principal) is None:
            with self.errors():
                self.client.put_object(Bucket=self.bucket, Key=self._marker(thread_id, principal), Body=body)
            return
        with self.hold(thread_id, principal):
            self.remove(thread_id, principal)
            with self.errors():
                self.client.put_object(Bucket=self.bucket, Key=self._marker(thread_id, principal), Body=body)

    def refresh(self, thread_id: str, principal: str | None = None) -> None:
        key = self._marker(thread_id, principal)
        with self.errors():
            found = self._read_marker(key)
            if found is not None:
                self.client.put_object(Bucket=self.bucket, Key=key, Body=json.dumps(found[0]))

    def remove(self, thread_id: str, principal: str | None = None) -> None:
        self._drop(self._marker(thread_id, principal))

    def _drop(self, key: str) -> None:
        """Delete a marker, then its generation's data (a crash between the two leaves only unreachable data,
        which no marker names)."""
        with self.errors():
            found = self._read_marker(key)
            if found is None:
                return
            self.client.delete_object(Bucket=self.bucket, Key=key)
            with contextlib.suppress(SessionException):
                self._manager(found[0]["session"]).delete_session(found[0]["session"])

    def sweep(self) -> None:
        """Remove every expired pause."""
        with self.errors():
            pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket,
                                                                          Prefix=self._key("pauses", ""))
            stale = [item["Key"] for page in pages for item in page.get("Contents", ())
                     if self.expired(item["LastModified"].timestamp())]
        for key in stale:
            self._drop(key)


class Lease:
    """An exclusive, expiring hold on one S3 key (see the module docstring); renewed in a thread while held."""

    def __init__(self, client: Any, bucket: str, key: str, seconds: float,
                 busy: str = "another run is resuming this thread") -> None:
        self.client, self.bucket, self.key, self.seconds, self.busy = client, bucket, key, seconds, busy
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
            if code(exc) not in CONFLICT:
                raise
            self._take_over()
        self.renewer = threading.Thread(target=self._renew, name=f"lease {self.key}", daemon=True)
        self.renewer.start()

    def _take_over(self) -> None:
        busy = RunRefused("THREAD_BUSY", self.busy)
        try:
            answer = self.client.get_object(Bucket=self.bucket, Key=self.key)
        except ClientError as exc:
            if code(exc) in ("NoSuchKey", "404"):  # released meanwhile: someone else may be taking it
                raise busy from None
            raise
        seconds = float(json.loads(answer["Body"].read()).get("seconds", self.seconds))
        now = parsedate_to_datetime(answer["ResponseMetadata"]["HTTPHeaders"]["date"]).timestamp()
        if now - answer["LastModified"].timestamp() <= seconds:
            raise busy
        try:
            self._put(IfMatch=answer["ETag"])
        except ClientError as exc:
            if code(exc) in CONFLICT:
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
