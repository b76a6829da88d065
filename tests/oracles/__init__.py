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

Usage::

    from tests.oracles import assert_valid_stream
    report = assert_valid_stream(events)   # events: dicts (camelCase) or ag_ui.core models
    report["messages"]                      # what the official client rebuilt

See ``tests/test_oracles.py`` for what each oracle catches.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

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
    "check_official_client_batch",
    "check_official_client_proto",
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
BATCH_SCRIPT = CLIENT_DIR / "agui_client_batch.mjs"
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

    from strands_agui.server.proto import proto_frame

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
    node = _node()
    _ensure_client_installed(client)
    args = [node, str(CLIENT_SCRIPT), str(path), *(["--proto"] if proto else [])]
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
        proc = subprocess.run(
            args,
            cwd=CLIENT_DIR,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "AGUI_CLIENT_DIR": str(CLIENTS[client])},
            capture_output=True,
            text=True,
            timeout=_NODE_TIMEOUT_S,
            check=False,
        )
    finally:
        if input_file is not None:
            input_file.unlink(missing_ok=True)
    try:
        report: dict[str, Any] = json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise OracleSetupError(
            f"agui_client_check.mjs exited {proc.returncode} without a JSON report\n"
            f"stdout: {proc.stdout[-2000:]}\nstderr: {proc.stderr[-2000:]}"
        ) from None
    report["exit_code"] = proc.returncode
    if proc.returncode != 0:
        raise AssertionError(_format_client_report(report, f"{label} (exit {proc.returncode})"))
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
    """:func:`check_official_client` over several event lists, ``max_workers`` node processes at a time;
    ``proto=True`` sends each list through the protobuf framing (``server.proto.proto_frame``) instead.

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


def check_official_client_batch(
    streams: Sequence[Iterable[Any]],
    *,
    strict: bool = True,
    client: str = CURRENT,
) -> list[dict[str, Any]]:
    """:func:`check_official_client` over several event lists in ONE node process (``agui_client_batch.mjs``:
    the client's packages load once, then each stream gets a fresh instance of the check), for suites that check
    many streams. Returns the reports in order; raises one ``AssertionError`` listing every rejected stream."""
    node = _node()
    _ensure_client_installed(client)
    with tempfile.TemporaryDirectory(prefix="agui-batch-") as tmp:
        jobs = []
        for i, stream in enumerate(streams):
            path = Path(tmp) / f"stream-{i}.jsonl"
            path.write_text(_jsonl(stream), encoding="utf-8")
            jobs.append([str(path), *(["--strict"] if strict else [])])
        jobs_file = Path(tmp) / "jobs.json"
        jobs_file.write_text(json.dumps(jobs), encoding="utf-8")
        proc = subprocess.run([node, str(BATCH_SCRIPT), str(jobs_file)], cwd=CLIENT_DIR, stdin=subprocess.DEVNULL,
                              env={**os.environ, "AGUI_CLIENT_DIR": str(CLIENTS[client])}, capture_output=True,
                              text=True, timeout=_NODE_TIMEOUT_S + len(jobs), check=False)
    try:
        reports: list[dict[str, Any]] = json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise OracleSetupError(f"agui_client_batch.mjs exited {proc.returncode} without a JSON report\n"
                               f"stdout: {proc.stdout[-2000:]}\nstderr: {proc.stderr[-2000:]}") from None
    failures = [_format_client_report(r, f"stream #{i} (exit {r['exit_code']})")
                for i, r in enumerate(reports) if r["exit_code"] != 0]
    if failures:
        raise AssertionError(f"{len(failures)} of {len(reports)} streams rejected by @ag-ui/client {client}:\n\n"
                             + "\n\n".join(failures))
    return reports


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
    ``server.proto.decode_frames``, the official client on the bytes. Returns the client's report."""
    from strands_agui.server.proto import decode_frames

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
