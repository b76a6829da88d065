"""Two independent AG-UI conformance oracles for the test suite.

Every AG-UI stream the adapter emits should go through :func:`assert_valid_stream`
(or :func:`assert_valid_sse` for a raw ``text/event-stream`` body):

1. the official TypeScript client ``@ag-ui/client`` 1.0.0, driven by the vendored
   ``agui-client-check/agui_client_check.mjs`` in offline (recording) mode with ``--strict``
   (schema per event, lifecycle / START-CONTENT-END order, the client's reducer, plus the
   extra strict findings: no terminal event, non-JSON tool args, unknown fields, ...);
2. ``ag-ui-validate`` 0.4.0 (PyPI), a rule-based validator (AGUI0xx..AGUI9xx).

The node dependencies are installed by ``make deps`` / ``make test`` (``npm ci`` in
``tests/oracles/agui-client-check``).

Node start-up and loading the client are most of a check's time, so recording checks (every
``check_official_client*`` / ``assert_valid_*`` here) go to long-lived ``agui_client_check.mjs --serve``
processes: per client generation and per (pytest worker) process, started on first use, at most
``_MAX_WORKERS`` of them (so ``check_official_client_many``'s threads still run two checks at once), one
check at a time each. One that died is replaced transparently; one that overruns ``_NODE_TIMEOUT_S`` is
killed (the check fails with ``subprocess.TimeoutExpired``, as a one-off process would) and replaced on the
next check; all are killed at interpreter exit. ``AGUI_ORACLE_SERVER=0`` (or ``false``/``no``/``off``)
falls back to one ``node`` process per check. Live checks against a URL (``tests/server/test_http_oracles.py``,
``tests/server/transport/test_versions.py``, ``tests/dojo``) go to the same servers with :func:`run_official_client`
(the CLI's arguments in, its report and exit code out).

Usage::

    from tests.oracles import assert_valid_stream
    report = assert_valid_stream(events)   # events: dicts (camelCase) or ag_ui.core models
    report["messages"]                      # what the official client rebuilt

See ``tests/e2e/test_oracles.py`` for what each oracle catches.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import dataclasses
import json
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tests.support import processes

__all__ = [
    "CLIENT_DIR",
    "CLIENT_SCRIPT",
    "DEFAULT_FORBIDDEN_INFO",
    "OracleSetupError",
    "to_wire",
    "to_wire_events",
    "check_official_client",
    "check_official_client_sse",
    "check_official_client_many",
    "check_official_client_proto",
    "run_official_client",
    "ag_ui_validate_report",
    "ag_ui_validate_findings",
    "ag_ui_validate_sse_findings",
    "check_ag_ui_validate",
    "check_ag_ui_validate_sse",
    "assert_valid_stream",
    "assert_valid_streams",
    "assert_valid_sse",
    "assert_valid_proto",
]

CLIENT_DIR = Path(__file__).resolve().parent / "agui-client-check"
CLIENT_SCRIPT = CLIENT_DIR / "agui_client_check.mjs"
REPO_ROOT = CLIENT_DIR.parents[2]
CURRENT, LEGACY = "1.0.0", "0.0.59"
CLIENTS: dict[str, Path] = {CURRENT: CLIENT_DIR, LEGACY: CLIENT_DIR.parent / "agui-client-check-0059"}
"""The two client generations: ``@ag-ui/client`` 1.0.0, and 0.0.59 (what CopilotKit 1.74 pins). The same
script runs both; ``AGUI_CLIENT_DIR`` names the packages it loads."""

# Info-level ag-ui-validate rules we still treat as failures. AGUI208: TOOL_CALL_START.parentMessageId
# names a message no TEXT_MESSAGE_START opened (the official client then splits the assistant turn
# into two messages) -- the upstream adapter's known defect, which this project must not repeat.
DEFAULT_FORBIDDEN_INFO: tuple[str, ...] = ("AGUI208",)

_NODE_TIMEOUT_S = 120
_MAX_WORKERS = 2
_SERVER_SWITCH = "AGUI_ORACLE_SERVER"


class OracleSetupError(RuntimeError):
    """An oracle cannot run at all (node or its packages missing) -- not a conformance finding."""


# --------------------------------------------------------------------------------------------
# event normalisation
# --------------------------------------------------------------------------------------------


def to_wire(event: Any) -> dict[str, Any]:
    """One event as it goes on the wire: a camelCase JSON object.

    Accepts a pydantic ``ag_ui.core`` event, a dict (taken as already camelCase), or a JSON string/bytes.
    """
    if hasattr(event, "model_dump"):
        return event.model_dump(mode="json", by_alias=True, exclude_none=True)  # type: ignore[no-any-return]
    if isinstance(event, dict):
        return event
    if isinstance(event, bytes | str):
        parsed = json.loads(event)
        if not isinstance(parsed, dict):
            raise TypeError(f"event JSON is not an object: {event!r:.200}")
        return parsed
    raise TypeError(f"cannot turn {type(event).__name__} into an AG-UI wire event")


def to_wire_events(events: Iterable[Any]) -> list[dict[str, Any]]:
    if isinstance(events, str | bytes | dict):
        raise TypeError("expected a list of events, not a single event / string")
    return [to_wire(e) for e in events]


def _jsonl(events: Iterable[Any]) -> str:
    return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in to_wire_events(events))


def _proto_body(events: Iterable[Any]) -> bytes:
    """``events`` in the AG-UI protobuf framing, as the endpoint writes them."""
    from ag_ui.core import Event
    from pydantic import TypeAdapter

    from strands_agui.server.transport.proto import proto_frame

    adapter: TypeAdapter[Any] = TypeAdapter(Event)
    return b"".join(proto_frame(adapter.validate_python(e)) for e in to_wire_events(events))


# --------------------------------------------------------------------------------------------
# oracle 1: the official client (@ag-ui/client via node)
# --------------------------------------------------------------------------------------------


def _node() -> str:
    node = os.environ.get("NODE") or shutil.which("node")
    if not node:
        raise OracleSetupError("node is not on PATH: the official-client oracle needs Node.js (>= 18)")
    return node


def _ensure_client_installed(client: str = CURRENT) -> None:
    if not (CLIENTS[client] / "node_modules" / "@ag-ui" / "client" / "package.json").is_file():
        raise OracleSetupError(
            f"{CLIENTS[client].relative_to(REPO_ROOT)}/node_modules is missing: run `make deps` "
            "(or `make test`), which runs `npm ci` there"
        )


def _format_client_report(report: dict[str, Any], label: str) -> str:
    keep = {
        k: report.get(k)
        for k in (
            "ok",
            "outcome",
            "error",
            "run_error",
            "strict_findings",
            "client_warnings",
            "wire_event_types",
            "applied_event_types",
        )
    }
    if report.get("followup"):
        keep["followup"] = {
            k: report["followup"].get(k) for k in ("ok", "outcome", "error", "strict_findings")
        }
    return (
        f"official AG-UI client ({report.get('oracle', '@ag-ui/client')}) rejected {label}:\n"
        + json.dumps(keep, indent=2, ensure_ascii=False)
    )


def _server_enabled() -> bool:
    return os.environ.get(_SERVER_SWITCH, "").strip().lower() not in ("0", "false", "no", "off")


def _client_env(client: str) -> dict[str, str]:
    return {**os.environ, "AGUI_CLIENT_DIR": str(CLIENTS[client])}


class _ServerGone(Exception):
    """The server closed its stdout (exited) before answering."""


class _CheckServer:
    """One ``agui_client_check.mjs --serve`` process: a request line in, its answer line out."""

    def __init__(self, client: str) -> None:
        self.args = [_node(), str(CLIENT_SCRIPT), "--serve"]
        self.proc = processes.start(
            self.args,
            cwd=CLIENT_DIR,
            env=_client_env(client),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=100)
        self._next_id = 0
        # Pumps drain both pipes, so a chatty server never blocks on a full pipe.
        threading.Thread(target=self._pump_stdout, name="agui-oracle-stdout", daemon=True).start()
        threading.Thread(target=self._pump_stderr, name="agui-oracle-stderr", daemon=True).start()

    def _pump_stdout(self) -> None:
        assert self.proc.stdout is not None
        with self.proc.stdout:
            for line in self.proc.stdout:
                self._lines.put(line)
        self._lines.put(None)

    def _pump_stderr(self) -> None:
        assert self.proc.stderr is not None
        with self.proc.stderr:
            for line in self.proc.stderr:
                self._stderr.append(line)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stderr_tail(self) -> str:
        return "".join(self._stderr)[-2000:]

    def send(self, argv: list[str]) -> int:
        """Write one request; ``OSError`` (a broken pipe) when the server is gone."""
        assert self.proc.stdin is not None
        self._next_id += 1
        self.proc.stdin.write(json.dumps({"id": self._next_id, "argv": argv}) + "\n")
        self.proc.stdin.flush()
        return self._next_id

    def answer(self, request_id: int, timeout: float) -> dict[str, Any]:
        """The answer to ``request_id``; ``subprocess.TimeoutExpired`` past ``timeout``, ``_ServerGone``
        when the server exits first. Lines that are not an answer (stray output) are skipped."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise subprocess.TimeoutExpired(self.args, timeout) from None
            if line is None:
                raise _ServerGone
            try:
                answer = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(answer, dict) and answer.get("id") == request_id:
                if time.monotonic() > deadline:  # read after the deadline (already queued when a 0 s one began)
                    raise subprocess.TimeoutExpired(self.args, timeout)
                return answer

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.close()  # the server's own way out: stdin closed
                self.proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                pass
        processes.stop(self.proc, first=signal.SIGKILL, close_streams=False)
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.close()  # stdout and stderr: their pumps close them at EOF
        except OSError:
            pass

    def kill(self) -> None:
        processes.stop(self.proc, first=signal.SIGKILL, close_streams=False)
        self.close()


class _ServerPool:
    """Up to ``size`` servers of one client generation, each lent to one check at a time."""

    def __init__(self, client: str, size: int) -> None:
        self.client, self.size = client, size
        self._cond = threading.Condition()
        self._idle: list[_CheckServer] = []
        self._count = 0  # servers alive or being started, lent or idle
        self._all: set[_CheckServer] = set()

    def _acquire(self) -> _CheckServer:
        with self._cond:
            while True:
                while self._idle:
                    server = self._idle.pop()
                    if server.alive():
                        return server
                    self._drop(server)  # died while idle: replace it
                if self._count < self.size:
                    self._count += 1
                    break
                self._cond.wait()
        try:
            server = _CheckServer(self.client)
        except BaseException:
            with self._cond:
                self._count -= 1
                self._cond.notify()
            raise
        with self._cond:
            self._all.add(server)
        return server

    def _drop(self, server: _CheckServer) -> None:
        # under self._cond
        self._count -= 1
        self._all.discard(server)
        self._cond.notify()

    def _release(self, server: _CheckServer, *, healthy: bool) -> None:
        if not healthy:
            server.kill()
        with self._cond:
            if healthy and server.alive():
                self._idle.append(server)
                self._cond.notify()
            else:
                self._drop(server)

    def run(self, argv: list[str], timeout: float) -> tuple[dict[str, Any] | None, int, str]:
        """One check: ``(report, exit code, stderr)`` as the CLI would give them."""
        for attempt in (1, 2):
            server = self._acquire()
            healthy = False
            try:
                try:
                    request_id = server.send(argv)
                except OSError:
                    if attempt == 1:
                        continue  # it died before taking the request: once more, on a fresh one
                    raise OracleSetupError(
                        f"agui_client_check.mjs --serve exited {server.proc.poll()} before taking a check\n"
                        f"stderr: {server.stderr_tail()}"
                    ) from None
                try:
                    answer = server.answer(request_id, timeout)
                except _ServerGone:
                    code = server.proc.wait()
                    raise OracleSetupError(
                        f"agui_client_check.mjs --serve exited {code} without a JSON report\n"
                        f"stderr: {server.stderr_tail()}"
                    ) from None
                healthy = True
                return answer.get("report"), int(answer.get("exitCode", 2)), str(answer.get("stderr") or "")
            finally:
                self._release(server, healthy=healthy)
        raise AssertionError("unreachable")

    def close(self) -> None:
        with self._cond:
            servers, self._all, self._idle = list(self._all), set(), []
            self._count = 0
        for server in servers:
            server.kill()


_pools: dict[str, _ServerPool] = {}
_pools_pid = os.getpid()
_pools_lock = threading.Lock()


def _pool(client: str) -> _ServerPool:
    global _pools, _pools_pid
    with _pools_lock:
        if _pools_pid != os.getpid():  # a forked child: the parent's servers are not ours to use (or kill)
            _pools, _pools_pid = {}, os.getpid()
        if client not in _pools:
            _pools[client] = _ServerPool(client, _MAX_WORKERS)
        return _pools[client]


@atexit.register
def _close_servers() -> None:
    """Kill every server this process started (no node process outlives pytest)."""
    with _pools_lock:
        pools = list(_pools.values()) if _pools_pid == os.getpid() else []
        _pools.clear()
    for pool in pools:
        pool.close()


def _run_client(argv: list[str], client: str) -> tuple[dict[str, Any] | None, int, str, str]:
    """``agui_client_check.mjs argv``: ``(report or None, exit code, stdout tail, stderr tail)``."""
    if _server_enabled():
        report, code, stderr = _pool(client).run(argv, _NODE_TIMEOUT_S)
        return report, code, "", stderr[-2000:]
    proc = subprocess.run(
        [_node(), str(CLIENT_SCRIPT), *argv],
        cwd=CLIENT_DIR,
        stdin=subprocess.DEVNULL,
        env=_client_env(client),
        capture_output=True,
        text=True,
        timeout=_NODE_TIMEOUT_S,
        check=False,
    )
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        report = None
    return report, proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:]


def run_official_client(argv: Sequence[str], *, client: str = CURRENT) -> tuple[dict[str, Any] | None, int, str]:
    """``node agui_client_check.mjs *argv`` for any check the CLI runs, a live one included (``URL input.json
    --strict --followup TEXT --events-out FILE ...``), on a long-lived server of ``client``'s generation (a
    process per check with ``AGUI_ORACLE_SERVER=0``): ``(report or None, exit code, stderr tail)``, as the CLI
    prints, exits and writes them. Paths in ``argv`` must be absolute (the servers' working directory is
    ``CLIENT_DIR``)."""
    _node()
    _ensure_client_installed(client)
    report, code, _stdout, stderr = _run_client(list(argv), client)
    return report, code, stderr


def _run_client_on_file(
    path: Path,
    *,
    strict: bool,
    fail_on_run_error: bool,
    input: dict[str, Any] | None,
    label: str,
    proto: bool = False,
    client: str = CURRENT,
) -> dict[str, Any]:
    _node()
    _ensure_client_installed(client)
    args = [str(path), *(["--proto"] if proto else [])]
    input_file = None
    try:
        if input is not None:
            fd, name = tempfile.mkstemp(prefix="agui-input-", suffix=".json")
            input_file = Path(name)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(input, f)
            args.append(str(input_file))
        if strict:
            args.append("--strict")
        if fail_on_run_error:
            args.append("--fail-on-run-error")
        report, returncode, stdout, stderr = _run_client(args, client)
    finally:
        if input_file is not None:
            input_file.unlink(missing_ok=True)
    if not isinstance(report, dict):
        raise OracleSetupError(
            f"agui_client_check.mjs exited {returncode} without a JSON report\n"
            f"stdout: {stdout}\nstderr: {stderr}"
        )
    report["exit_code"] = returncode
    if returncode != 0:
        raise AssertionError(_format_client_report(report, f"{label} (exit {returncode})"))
    return report


def _client_on_text(
    text: str | bytes,
    suffix: str,
    *,
    strict: bool,
    fail_on_run_error: bool,
    input: dict[str, Any] | None,
    label: str,
    proto: bool = False,
    client: str = CURRENT,
) -> dict[str, Any]:
    fd, name = tempfile.mkstemp(prefix="agui-stream-", suffix=suffix)
    path = Path(name)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode("utf-8") if isinstance(text, str) else text)
        return _run_client_on_file(
            path, strict=strict, fail_on_run_error=fail_on_run_error, input=input, label=label, proto=proto,
            client=client,
        )
    finally:
        path.unlink(missing_ok=True)


def check_official_client(
    events: Iterable[Any],
    *,
    strict: bool = True,
    fail_on_run_error: bool = False,
    input: dict[str, Any] | None = None,
    client: str = CURRENT,
) -> dict[str, Any]:
    """Replay ``events`` through the official ``@ag-ui/client`` pipeline (``client``: which generation).

    Returns the tool's JSON report (``ok``, ``outcome``, ``messages``, ``state``, ``strict_findings``,
    ``client_warnings``, ...; plus ``exit_code``). Raises ``AssertionError`` with the report when the client
    rejects the stream (exit != 0). ``input`` is an optional RunAgentInput (camelCase) whose
    ``messages``/``state`` seed the client, e.g. the earlier tool call a TOOL_CALL_RESULT answers.
    ``fail_on_run_error`` makes a RUN_ERROR a failure too.
    """
    return _client_on_text(
        _jsonl(events),
        ".jsonl",
        strict=strict,
        fail_on_run_error=fail_on_run_error,
        input=input,
        label="the event stream",
        client=client,
    )


def check_official_client_sse(
    raw: bytes | str,
    strict: bool = True,
    *,
    fail_on_run_error: bool = False,
    input: dict[str, Any] | None = None,
    client: str = CURRENT,
) -> dict[str, Any]:
    """Like :func:`check_official_client`, for a raw SSE body (bytes as the server sent them).

    The client's own SSE parser runs on it (note: it only splits frames on ``\\n\\n``, so CRLF framing is
    rejected). The content type is not checked in this offline mode.
    """
    return _client_on_text(
        raw, ".sse", strict=strict, fail_on_run_error=fail_on_run_error, input=input, label="the SSE body",
        client=client,
    )


def check_official_client_proto(
    raw: bytes,
    strict: bool = True,
    *,
    fail_on_run_error: bool = False,
    input: dict[str, Any] | None = None,
    client: str = CURRENT,
) -> dict[str, Any]:
    """Like :func:`check_official_client_sse`, for a body in the AG-UI protobuf framing (length-prefixed
    ``ag_ui.Event`` frames): the client decodes it with ``@ag-ui/proto``, as it does a response whose
    Content-Type is ``application/vnd.ag-ui.event+proto``."""
    return _client_on_text(raw, ".bin", strict=strict, fail_on_run_error=fail_on_run_error, input=input,
                           label="the protobuf body", proto=True, client=client)


def check_official_client_many(
    streams: Sequence[Iterable[Any]],
    *,
    strict: bool = True,
    fail_on_run_error: bool = False,
    max_workers: int = _MAX_WORKERS,
    proto: bool = False,
    client: str = CURRENT,
) -> list[dict[str, Any]]:
    """:func:`check_official_client` over several event lists, ``max_workers`` checks at a time (the
    servers are at most ``_MAX_WORKERS`` per generation);
    ``proto=True`` sends each list through the protobuf framing (``server.transport.proto.proto_frame``) instead.

    Returns the reports in order; raises one ``AssertionError`` listing every rejected stream.
    """
    # Normalise in the calling thread (pydantic models, generators).
    texts: list[str | bytes] = [_proto_body(s) if proto else _jsonl(s) for s in streams]
    _node()
    _ensure_client_installed(client)

    def one(i: int) -> dict[str, Any] | AssertionError:
        try:
            return _client_on_text(
                texts[i],
                ".bin" if proto else ".jsonl",
                strict=strict,
                fail_on_run_error=fail_on_run_error,
                input=None,
                label=f"stream #{i}",
                proto=proto,
                client=client,
            )
        except AssertionError as e:
            return e

    with ThreadPoolExecutor(max_workers=max(1, max_workers)) as pool:
        results = list(pool.map(one, range(len(texts))))
    failures = [r for r in results if isinstance(r, AssertionError)]
    if failures:
        raise AssertionError(
            f"{len(failures)} of {len(texts)} streams rejected:\n\n" + "\n\n".join(str(f) for f in failures)
        )
    return results  # type: ignore[return-value]


# --------------------------------------------------------------------------------------------
# oracle 2: ag-ui-validate
# --------------------------------------------------------------------------------------------


def ag_ui_validate_report(events: Iterable[Any], *, features: list[str] | None = None) -> Any:
    """The full ``ag_ui_validate.Report`` for ``events`` (diagnostics of every severity)."""
    from ag_ui_validate.pytest_plugin import validate_agui

    return validate_agui(to_wire_events(events), features=features)


def _findings(report: Any) -> list[dict[str, Any]]:
    return [dataclasses.asdict(d) for d in report.diagnostics]


def ag_ui_validate_findings(
    events: Iterable[Any], *, features: list[str] | None = None
) -> list[dict[str, Any]]:
    """Every ag-ui-validate finding (error, warning AND info) as dicts:
    ``{rule, severity, message, event_index, spec_url, event_type, pointer, related_event_index}``."""
    return _findings(ag_ui_validate_report(events, features=features))


def _validate_sse_report(raw: bytes | str, content_type: str | None, features: list[str] | None) -> Any:
    from ag_ui_validate.transport import TransportOptions, validate_body
    from ag_ui_validate.types import ValidatorOptions

    data = raw.encode("utf-8") if isinstance(raw, str) else raw

    async def body() -> Any:
        yield data

    opts = TransportOptions(validator=ValidatorOptions(features=features), recorded=True)

    async def go() -> Any:
        return (await validate_body(body(), content_type, opts)).report

    # Works from sync tests and from inside a running loop (pytest-asyncio tests) alike.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, go()).result()


def ag_ui_validate_sse_findings(
    raw: bytes | str, *, content_type: str | None = "text/event-stream", features: list[str] | None = None
) -> list[dict[str, Any]]:
    """Every ag-ui-validate finding for a raw SSE body (incl. AGUI501 framing / AGUI505 content type)."""
    return _findings(_validate_sse_report(raw, content_type, features))


def _judge(report: Any, forbid_info: Iterable[str], label: str) -> None:
    from ag_ui_validate.report.pretty import format_diagnostic_line

    forbidden = set(forbid_info)
    bad = [d for d in report.diagnostics if d.severity in ("error", "warning") or d.rule in forbidden]
    if not bad and not report.internal_errors:
        return
    s = report.summary
    lines = [
        f"ag-ui-validate rejected {label}: {s.errors} errors, {s.warnings} warnings, {s.info} info"
        + (f" (info rules treated as failures: {sorted(forbidden)})" if forbidden else "")
    ]
    lines += [format_diagnostic_line(d, color=False) for d in bad]
    lines += [f"internal validator error: {e}" for e in report.internal_errors]
    raise AssertionError("\n".join(lines))


def check_ag_ui_validate(
    events: Iterable[Any],
    *,
    features: list[str] | None = None,
    forbid_info: Iterable[str] = DEFAULT_FORBIDDEN_INFO,
) -> None:
    """Assert ag-ui-validate finds no error, no warning, no internal error and none of the
    ``forbid_info`` info-level rules (default: AGUI208). Raises ``AssertionError`` listing the findings."""
    from ag_ui_validate.pytest_plugin import assert_valid_agui

    wire = to_wire_events(events)
    # The library's own assertion first (errors, or any warning with max_warnings=0) ...
    assert_valid_agui(wire, features=features, max_warnings=0)
    # ... then what it does not fail on: forbidden info rules and validator crashes.
    _judge(ag_ui_validate_report(wire, features=features), forbid_info, "the event stream")


def check_ag_ui_validate_sse(
    raw: bytes | str,
    *,
    content_type: str | None = "text/event-stream",
    features: list[str] | None = None,
    forbid_info: Iterable[str] = DEFAULT_FORBIDDEN_INFO,
) -> None:
    """:func:`check_ag_ui_validate` for a raw SSE body (adds SSE framing and content-type rules)."""
    _judge(_validate_sse_report(raw, content_type, features), forbid_info, "the SSE body")


# --------------------------------------------------------------------------------------------
# both
# --------------------------------------------------------------------------------------------


def assert_valid_stream(
    events: Iterable[Any],
    *,
    features: list[str] | None = None,
    forbid_info: Iterable[str] = DEFAULT_FORBIDDEN_INFO,
    fail_on_run_error: bool = False,
    input: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Both oracles on one event list; returns the official client's report (``messages``, ``state``...)."""
    wire = to_wire_events(events)
    check_ag_ui_validate(wire, features=features, forbid_info=forbid_info)
    return check_official_client(wire, strict=True, fail_on_run_error=fail_on_run_error, input=input)


def assert_valid_streams(
    streams: Sequence[Iterable[Any]],
    *,
    features: list[str] | None = None,
    forbid_info: Iterable[str] = DEFAULT_FORBIDDEN_INFO,
    fail_on_run_error: bool = False,
) -> list[dict[str, Any]]:
    """Both oracles on several event lists (node runs two at a time); returns the client reports."""
    wires = [to_wire_events(s) for s in streams]
    errors = []
    for i, w in enumerate(wires):
        try:
            check_ag_ui_validate(w, features=features, forbid_info=forbid_info)
        except AssertionError as e:
            errors.append(f"stream #{i}: {e}")
    if errors:
        raise AssertionError("\n\n".join(errors))
    return check_official_client_many(wires, strict=True, fail_on_run_error=fail_on_run_error)


def assert_valid_proto(
    raw: bytes,
    *,
    features: list[str] | None = None,
    forbid_info: Iterable[str] = DEFAULT_FORBIDDEN_INFO,
    fail_on_run_error: bool = False,
    input: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Both oracles on a body in the AG-UI protobuf framing: ag-ui-validate on its frames decoded by
    ``server.transport.proto.decode_frames``, the official client on the bytes. Returns the client's report."""
    from strands_agui.server.transport.proto import decode_frames

    check_ag_ui_validate(decode_frames(raw), features=features, forbid_info=forbid_info)
    return check_official_client_proto(raw, strict=True, fail_on_run_error=fail_on_run_error, input=input)


def assert_valid_sse(
    raw: bytes | str,
    *,
    content_type: str | None = "text/event-stream",
    features: list[str] | None = None,
    forbid_info: Iterable[str] = DEFAULT_FORBIDDEN_INFO,
    fail_on_run_error: bool = False,
    input: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Both oracles on a raw SSE body; returns the official client's report."""
    check_ag_ui_validate_sse(raw, content_type=content_type, features=features, forbid_info=forbid_info)
    return check_official_client_sse(raw, strict=True, fail_on_run_error=fail_on_run_error, input=input)
