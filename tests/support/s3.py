"""A real S3 for tests: moto's server as a process of its own on loopback (so it can be frozen with SIGSTOP and
killed with SIGKILL), and a record of every S3 request this process sends (botocore's transport, wrapped: the
requests still go to the server and their answers are the server's)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import unquote, urlsplit

import boto3
import httpx
import pytest
from botocore.endpoint import Endpoint

from tests.support import processes
from tests.support.workers import free_port

BUCKET = "agui-threads"


class MotoS3:
    """A moto S3 server process with ``BUCKET``; ``env`` is the AWS environment a client (or a worker) needs."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {"AWS_ENDPOINT_URL": self.url, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                    "AWS_REGION": "us-east-1", "AWS_DEFAULT_REGION": "us-east-1"}
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> MotoS3:
        self.proc = processes.start([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            self._until_up()
            self.client().create_bucket(Bucket=BUCKET)
        except BaseException:
            self.kill()
            raise
        return self

    def _until_up(self) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + 60
        while True:
            assert self.proc.poll() is None, "moto exited"
            try:
                httpx.get(self.url + "/moto-api/", timeout=1)
                return
            except httpx.TransportError:
                assert time.monotonic() < deadline, "moto did not start"
                time.sleep(0.05)

    def client(self) -> Any:
        return boto3.client("s3", endpoint_url=self.url, region_name="us-east-1", aws_access_key_id="testing",
                            aws_secret_access_key="testing")

    def freeze(self) -> None:
        """SIGSTOP: the kernel still accepts connections, nothing answers (a brownout, a stuck store)."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGCONT)

    def kill(self) -> None:
        """SIGKILL: connections are refused from now on."""
        if self.proc is not None:
            if self.proc.poll() is None:
                os.kill(self.proc.pid, signal.SIGCONT)
            processes.stop(self.proc, first=signal.SIGKILL)

    @contextmanager
    def frozen(self) -> Iterator[None]:
        self.freeze()
        try:
            yield
        finally:
            self.thaw()


@contextmanager
def moto_s3() -> Iterator[MotoS3]:
    """A started :class:`MotoS3`, killed at the end."""
    server = MotoS3()
    try:
        yield server.start()
    finally:
        server.kill()


@contextmanager
def aws_env(server: MotoS3) -> Iterator[None]:
    """The process's AWS environment pointed at ``server`` (for stores built in this process)."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in server.env.items():
            patch.setenv(name, value)
        yield


class S3Requests:
    """Every S3 request sent by this process while recording: ``(method, key)``, the key URL-decoded."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    def keys(self, method: str | None = None) -> list[str]:
        return [key for m, key in self.seen if method is None or m == method]

    def clear(self) -> None:
        self.seen.clear()


@contextmanager
def recorded_s3_requests() -> Iterator[S3Requests]:
    """Record each request botocore sends (any client of this process), then send it as usual."""
    record = S3Requests()
    send = Endpoint._send

    def recording(self: Endpoint, request: Any) -> Any:
        parts = urlsplit(request.url)
        path = unquote(parts.path).lstrip("/")
        key = path.partition("/")[2]
        if "prefix=" in parts.query:  # a LIST: its prefix
            query = dict(p.partition("=")[::2] for p in parts.query.split("&"))
            key = unquote(query.get("prefix", ""))
        record.seen.append((request.method if "list-type" not in parts.query else "LIST", key))
        return send(self, request)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Endpoint, "_send", recording)
        yield record
