"""What the CLI checks before it acts: each ordinary mistake becomes a :class:`CliError` whose message names
the problem and the fix, in one line."""

from __future__ import annotations

import difflib
import errno
import importlib
import inspect
import json
import socket
import sys
from pathlib import Path
from typing import Any, TextIO

from ag_ui.core import PROTOCOL_VERSION, RunAgentInput
from pydantic import ValidationError

from ..runtime.recordings import IncompleteLog, LogFormatError, RecordedRun, read_log


class CliError(Exception):
    """A mistake of the caller's: the message says what is wrong and what to do."""


def load_object(spec: str, what: str = "object") -> Any:
    """``package.module:attribute`` -> the attribute (the current directory is importable)."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise CliError(f"{what} {spec!r} is not MODULE:ATTRIBUTE: write it as e.g. my_app.agents:{what}")
    if "" not in sys.path:
        sys.path.insert(0, "")
    module = _import(module_name)
    try:
        return getattr(module, attribute)
    except AttributeError:
        names = [n for n in vars(module) if not n.startswith("_")]
        close = difflib.get_close_matches(attribute, names, n=1)
        hint = f"did you mean {module_name}:{close[0]}?" if close else f"name one it defines, as {module_name}:NAME"
        raise CliError(f"module {module_name!r} has no attribute {attribute!r}: {hint}") from None


def _import(module_name: str) -> Any:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing and (module_name == missing or module_name.startswith(missing + ".")):
            raise CliError(f"no module named {module_name!r}: run from the directory that contains it "
                           f"(current: {Path.cwd()}) or install its package") from exc
        raise CliError(f"importing {module_name!r} failed: it imports {missing!r}, which is not installed: "
                       f"pip install the package that provides it") from exc
    except ImportError as exc:
        from .models import ModelProviderUnavailable

        if isinstance(exc, ModelProviderUnavailable):  # STRANDS_AGUI_MODEL names a provider whose client is absent
            raise CliError(f"importing {module_name!r} failed: {exc}") from exc
        raise CliError(f"importing {module_name!r} failed: ImportError: {exc}: fix the module "
                       "(--debug shows the traceback)") from exc
    except ValueError as exc:
        if str(exc).startswith("STRANDS_AGUI_"):  # an environment variable the module read (models.py): fix that
            raise CliError(f"importing {module_name!r} failed: {exc}") from exc
        raise CliError(f"importing {module_name!r} failed: ValueError: {exc}: fix the module "
                       "(--debug shows the traceback)") from exc
    except Exception as exc:
        if "pip install" in str(exc):  # it says what to install: a missing extra, not a bug in the module
            raise CliError(f"importing {module_name!r} failed: {exc}") from exc
        raise CliError(f"importing {module_name!r} failed: {type(exc).__name__}: {exc}: fix the module "
                       "(--debug shows the traceback)") from exc


def is_asgi_app(obj: Any) -> bool:
    """A Starlette/FastAPI app, or a callable taking ASGI's ``(scope, receive, send)``."""
    from starlette.applications import Starlette

    if isinstance(obj, Starlette):
        return True
    try:
        parameters = list(inspect.signature(obj).parameters)
    except (TypeError, ValueError):
        return False
    return parameters[-3:] == ["scope", "receive", "send"]


def is_agent(obj: Any) -> bool:
    """A ``StrandsAgent``, a ``strands.Agent`` or a Swarm/Graph: what ``record`` runs, not an app to serve."""
    from strands import Agent
    from strands.multiagent.base import MultiAgentBase

    from ..runtime.adapter import StrandsAgent

    return isinstance(obj, (StrandsAgent, Agent, MultiAgentBase))


def load_app(spec: str) -> Any:
    app = load_object(spec, "app")
    if is_agent(app):
        raise CliError(f"{spec} is an agent ({type(app).__name__}), not an ASGI app: serve it from an app, e.g. "
                       "`app = create_strands_app(agent)` in your module and --app MODULE:app, or run it once with "
                       f"`strands-agui record {spec} --prompt TEXT -o run.jsonl`")
    if not callable(app):
        raise CliError(f"{spec} is a {type(app).__name__}, not an ASGI app: name a FastAPI app, e.g. "
                       "`app = create_strands_app(agent)`")
    return app


def load_config(spec: str) -> Any:
    """``MODULE:ATTR`` naming a ``StrandsAgentConfig``, or a factory returning one (called with no argument)."""
    from ..config import StrandsAgentConfig

    config = load_object(spec, "config")
    if not isinstance(config, StrandsAgentConfig) and _takes_no_argument(config):
        what = f"{spec}() returned a"
        try:
            config = config()
        except Exception as exc:
            raise CliError(f"calling {spec}() failed ({type(exc).__name__}: {exc}): name a StrandsAgentConfig or a "
                           "factory that takes no argument and returns one") from exc
    else:
        what = f"{spec} is a"
    if not isinstance(config, StrandsAgentConfig):
        raise CliError(f"{what} {type(config).__name__}, not a StrandsAgentConfig: name the config your "
                       "StrandsAgent uses, or a factory returning it")
    return config


def _takes_no_argument(obj: Any) -> bool:
    try:
        inspect.signature(obj).bind()
    except (TypeError, ValueError):
        return False
    return True


def replay_config(log: RecordedRun, path: str, override: str | None, ignore: bool) -> Any:
    """The config to replay ``log`` with: ``override`` (``--config``), else the one its header names; None
    (the default config) when ``ignore`` is set or the log names none (then a note says so on stderr)."""
    from ..runtime.recordings import CONFIG_KEY

    if override:
        return load_config(override)
    reference = log.metadata.get(CONFIG_KEY)
    if ignore:
        return None
    if not isinstance(reference, str):
        print(f"strands-agui: note: {path} names no configuration: replaying with the default one (pass "
              "--config MODULE:ATTR to use yours)", file=sys.stderr)
        return None
    try:
        return load_config(reference)
    except CliError as exc:
        raise CliError(f"{path} was recorded with the config {reference}, which cannot be loaded here ({exc}): run "
                       "where it imports, pass --config MODULE:ATTR, or --ignore-config to replay with the default "
                       "configuration") from exc


def load_input(path: str | None, prompt: str | None = None) -> RunAgentInput | None:
    """The run input of ``--input FILE`` (ids default to ``cli-*``), or one user message ``prompt``."""
    if path:
        data = _read_json(path)
        if not isinstance(data, dict):
            raise CliError(f"{path} holds a JSON {type(data).__name__}: a RunAgentInput is an object "
                           '{"messages": [...], ...}')
        data.setdefault("threadId", "cli-thread")
        data.setdefault("runId", "cli-run")
        data.setdefault("messages", [])
        try:
            return RunAgentInput.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "(top level)"
            raise CliError(f"{path} is not a RunAgentInput: {where}: {first['msg']} "
                           f"({exc.error_count()} error(s)): fix the file (camelCase AG-UI fields)") from exc
    if prompt is not None:
        return RunAgentInput.model_validate({"threadId": "cli-thread", "runId": "cli-run", "messages": [
            {"id": "cli-user", "role": "user", "content": prompt}], "state": {}, "tools": [], "context": [],
            "forwardedProps": {}, "protocolVersion": PROTOCOL_VERSION})
    return None


def _read_json(path: str) -> Any:
    text = _read_text(path, "a RunAgentInput JSON file")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CliError(f"{path} is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno}): "
                       "give a RunAgentInput JSON file") from exc


def _read_text(path: str, what: str) -> str:
    file = _existing_file(path, what)
    try:
        return file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise CliError(f"{path} is not UTF-8 text: give {what}") from exc


def _existing_file(path: str, what: str) -> Path:
    file = Path(path)
    if not file.exists():
        raise CliError(f"{path}: no such file: give the path of {what}")
    if not file.is_file():
        raise CliError(f"{path} is not a file: give the path of {what}")
    return file


def load_replay_log(path: str, *, partial: bool) -> RecordedRun:
    """Read the log to replay; a log cut short, empty or not a log is refused (``partial`` allows the first)."""
    what = "a log written by `strands-agui record` (or a Recorder)"
    _existing_file(path, what)
    try:
        return read_log(path, partial=partial)
    except IncompleteLog as exc:
        if not partial:
            load_replay_log(path, partial=True)  # --partial is offered only where it would replay the file
        raise CliError(f"{path}: {exc}: record it again, or replay what it holds with --partial") from exc
    except LogFormatError as exc:
        if _is_console_trace(path):
            raise CliError(f"{path} is a trace (the console's Trace download: the machine's moves), not a run log: "
                           "download the Log beside it (run-<runId>.jsonl) and replay that") from exc
        problem = str(exc).removesuffix(": not a strands-agui log")
        raise CliError(f"{path} is not a strands-agui log: {problem}: give {what}") from exc
    except OSError as exc:
        raise CliError(f"{path}: cannot read it ({exc.strerror}): give {what}") from exc


def _is_console_trace(path: str) -> bool:
    """The JSON document the console's Trace button writes (``downloads.js`` ``traceDocument``)."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(document, dict) and "strands_agui_trace" in document


def open_output(path: str) -> TextIO:
    """The file ``record -o`` writes, opened here so a bad path fails before the run."""
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot write {path} ({exc.strerror}): give -o a path in an existing, writable "
                       "directory") from exc


def check_port_free(host: str, port: int) -> None:
    """Bind ``host:port`` the way uvicorn will, and release it: a busy or invalid address fails here, before
    anything claims to serve."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, OverflowError) as exc:
        raise CliError(f"cannot serve on {host}:{port} ({exc}): pass a valid --host and --port (0-65535)") from exc
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise CliError(f"port {port} on {host} is already in use (another server?): stop it, or pick "
                               f"another port with --port") from exc
            raise CliError(f"cannot listen on {host}:{port} ({exc.strerror}): pick another --host or "
                           "--port") from exc
