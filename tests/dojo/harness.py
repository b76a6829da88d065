"""The Dojo suite's parts: the agents as upstream ships them, the model server, the two adapters' servers, the
official client driving each scenario, and what that client ends up holding (``view``).

Everything runs for real on loopback: ``@copilotkit/aimock`` (npm, ``tests/dojo/node_modules``) answers the
agents' OpenAI calls from ``fixtures/``; each adapter serves the same extracted agents from its own uvicorn
process; the official ``@ag-ui/client`` (``tests/oracles``, 1.0.0 or 0.0.59) posts every step and reduces the
stream, as a browser's CopilotKit does.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.oracles import CURRENT, LEGACY, OracleSetupError, run_official_client
from tests.support import processes

DOJO = Path(__file__).resolve().parent
REPO = DOJO.parents[1]
UPSTREAM_VERSION = "1.0.2"
SDIST = DOJO / ".upstream" / f"ag_ui_strands-{UPSTREAM_VERSION}.tar.gz"
AIMOCK = DOJO / "node_modules" / "@copilotkit" / "aimock" / "dist" / "cli.js"
FIXTURES = DOJO / "fixtures"
REFERENCE = DOJO / "reference"
ADAPTERS = ("ours", "upstream")
GENERATIONS = (CURRENT, LEGACY)
TIMEOUT_S = 20
_IMPORT = re.compile(r"^(\s*)(from|import) ag_ui_strands\b", re.MULTILINE)


def examples_tree(dest: Path, adapter: str) -> Path:
    """Upstream's ``examples/`` from its sdist into ``dest``: for ``ours`` each agent module's
    ``ag_ui_strands`` imports name ``strands_agui`` instead, and nothing else changes. The two package
    ``__init__``s, which import and mount every demo, are left empty: ``serve.py`` mounts the ones a run needs."""
    if not SDIST.is_file():
        raise OracleSetupError(f"{SDIST.relative_to(REPO)} is missing: run `make deps`, which downloads it")
    prefix = f"ag_ui_strands-{UPSTREAM_VERSION}/examples/"
    with tarfile.open(SDIST) as tar:
        for member in tar.getmembers():
            if not member.isfile() or not member.name.startswith(prefix + "server/"):
                continue
            target = dest / member.name.removeprefix(prefix)
            target.parent.mkdir(parents=True, exist_ok=True)
            data = tar.extractfile(member).read()  # type: ignore[union-attr]
            if member.name.endswith("__init__.py"):
                data = b""
            elif adapter == "ours" and member.name.endswith(".py"):
                data = _IMPORT.sub(r"\1\2 strands_agui", data.decode()).encode()
            target.write_bytes(data)
    return dest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, proc: subprocess.Popen[bytes], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on {port} within {seconds} s")


@contextmanager
def _process(args: list[str], env: dict[str, str], port: int, what: str, logs: Path) -> Iterator[None]:
    """``args`` running until the block ends, its output in ``logs`` (``DOJO_LOG_DIR`` keeps them after a run)."""
    path = Path(os.environ.get("DOJO_LOG_DIR") or logs) / f"dojo-{what.split()[-1]}-{port}.log"
    log = path.open("wb")
    proc = processes.start(args, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=DOJO)
    try:
        try:
            _wait_port(port, proc, what)
        except RuntimeError as e:
            log.flush()
            raise RuntimeError(f"{e}:\n{path.read_text(errors='replace')[-3000:]}") from None
        yield
    finally:
        processes.stop(proc)
        log.close()


class ClientTimeout(AssertionError):
    """The official client gave up waiting for the end of a run."""


@dataclass
class Dojo:
    """The live parts: ``urls[adapter]`` serves every agent at ``/<name>``."""

    urls: dict[str, str]
    workdir: Path
    model_url: str = ""


@contextmanager
def dojo(agents: list[str]) -> Iterator[Dojo]:
    """aimock on a loopback port, and one uvicorn process per adapter serving ``agents``."""
    if not AIMOCK.is_file():
        raise OracleSetupError("tests/dojo/node_modules is missing: run `make deps` (npm ci there)")
    with ExitStack() as stack:
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="dojo-")))
        model_port = free_port()
        stack.enter_context(_process(
            ["node", str(AIMOCK), "-p", str(model_port), "-h", "127.0.0.1", "-f", str(FIXTURES),
             "--log-level", "warn"], dict(os.environ), model_port, "aimock", work))
        # CORS_ALLOW_ORIGINS: unset, the agents ask for "*", which ours refuses (README.md, "Found on the way")
        env = {**os.environ, "OPENAI_API_KEY": "aimock", "OPENAI_BASE_URL": f"http://127.0.0.1:{model_port}/v1",
               "MODEL_PROVIDER": "openai", "CORS_ALLOW_ORIGINS": "http://localhost:3000",
               "STRANDS_DEMO_FIXED_WEATHER": "1", "OTEL_SDK_DISABLED": "true",
               "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO)])}
        urls = {}
        for adapter in ADAPTERS:
            tree = examples_tree(work / adapter, adapter)
            port = free_port()
            stack.enter_context(_process([sys.executable, str(DOJO / "serve.py"), str(tree), str(port), *agents],
                                         env, port, f"the {adapter} server", work))
            urls[adapter] = f"http://127.0.0.1:{port}"
        yield Dojo(urls, work, f"http://127.0.0.1:{model_port}")


# ------------------------------------------------------------------------------------------- scenarios


@dataclass(frozen=True)
class Step:
    """What the browser adds before one run: a user message, a tool message answering each call the last run
    left unanswered (a frontend tool's result), or a resume answering each pending interrupt."""

    user: str | list[dict[str, Any]] | None = None  # text, or content parts (text, image)
    tool_result: str | None = None
    resume: dict[str, Any] | None = None
    generations: tuple[str, ...] = GENERATIONS


@dataclass(frozen=True)
class Scenario:
    name: str
    agent: str
    steps: tuple[Step, ...]
    tools: tuple[dict[str, Any], ...] = ()
    state: dict[str, Any] = field(default_factory=dict)
    spec: str = ""  # the Dojo spec it replays


@dataclass
class Run:
    """One scenario on one adapter and client generation: per step, the client's report and the wire events."""

    reports: list[dict[str, Any]]
    events: list[list[dict[str, Any]]]
    attempt: int = 1  # 2: upstream's first try timed out (_attempts)

    @property
    def views(self) -> list[dict[str, Any]]:
        return [view(r) for r in self.reports]

    @property
    def event_types(self) -> list[list[str]]:
        return [[e["type"] for e in step] for step in self.events]


def _client(url: str, body: dict[str, Any], generation: str, work: Path, strict: bool) -> tuple[dict[str, Any],
                                                                                                 list[Any]]:
    fd, name = tempfile.mkstemp(dir=work, suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump(body, f)
    events_out = Path(name).with_suffix(".jsonl")
    args = [url, name, "--timeout", str(TIMEOUT_S), "--events-out", str(events_out)]
    # the CLI's check on a long-lived client process of this generation (tests.oracles' servers)
    found, returncode, stderr = run_official_client([*args, *(["--strict"] if strict else [])], client=generation)
    if found is None:
        raise OracleSetupError(f"the client exited {returncode}: {stderr[-2000:]}")
    report: dict[str, Any] = found
    if "timed out" in json.dumps(report.get("error") or {}):
        raise ClientTimeout(f"the official client {generation} got no end of the run from {url} in {TIMEOUT_S} s")
    if returncode != 0:
        keep = {k: report.get(k) for k in ("outcome", "error", "run_error", "strict_findings", "http_status")}
        raise AssertionError(f"the official client {generation} rejected {url}: {json.dumps(keep, indent=1)}")
    events = [json.loads(line) for line in events_out.read_text().splitlines() if line.strip()]
    return report, events


def play(dojo: Dojo, adapter: str, scenario: Scenario, generation: str, attempt: int = 1) -> Run:
    """The scenario's steps through the official client of ``generation``, each run's input the messages and
    state the client held after the last one (what CopilotKit's runtime keeps) plus the step's additions."""
    url = f"{dojo.urls[adapter]}/{scenario.agent}/"
    thread = f"dojo-{scenario.name}-{adapter}-{generation}-{attempt}".replace(".", "_")
    messages: list[dict[str, Any]] = []
    state: dict[str, Any] = dict(scenario.state)
    last: dict[str, Any] | None = None
    run = Run([], [], attempt)
    for index, step in enumerate(s for s in scenario.steps if generation in s.generations):
        messages = list(messages)
        body: dict[str, Any] = {"threadId": thread, "runId": f"run-{index + 1}", "state": state,
                                "tools": list(scenario.tools), "context": [], "forwardedProps": {}}
        if step.tool_result is not None and last is not None:
            messages += [{"id": f"tool-{index}-{i}", "role": "tool", "toolCallId": call, "content": step.tool_result}
                         for i, call in enumerate(last["unanswered_tool_call_ids"])]
        if step.user is not None:
            messages.append({"id": f"user-{index}", "role": "user", "content": step.user})
        if step.resume is not None and last is not None:
            body["resume"] = [{"interruptId": i["id"], "status": "resolved", "payload": step.resume}
                              for i in last["interrupts"]]
        body["messages"] = messages
        report, events = _client(url, body, generation, dojo.workdir, strict=adapter == "ours")
        run.reports.append(report)
        run.events.append(events)
        messages, state, last = report["messages"], report["state"] or {}, report
    return run


# ------------------------------------------------------------------------------------------- the view


def _arguments(raw: str) -> Any:
    try:
        return json.loads(raw) if raw else {}
    except json.JSONDecodeError:
        return {"<unparsed>": raw}


def view(report: dict[str, Any]) -> dict[str, Any]:
    """What the client holds after a run, without the ids a run makes up: each message's role and text, its
    tool calls (name, parsed arguments), which call a tool message answers (by its order among the calls), the
    state, the run's outcome and its pending interrupts (reason, message, metadata, the call each pauses)."""
    calls: dict[str, int] = {}
    messages = []
    for m in report["messages"]:
        entry: dict[str, Any] = {"role": m["role"]}
        if m.get("content") not in (None, ""):
            entry["content"] = m["content"]
        for tc in m.get("toolCalls") or []:
            calls[tc["id"]] = len(calls)
            entry.setdefault("toolCalls", []).append(
                {"name": tc["function"]["name"], "arguments": _arguments(tc["function"]["arguments"])})
        if m["role"] == "tool":
            entry["answers"] = calls.get(m.get("toolCallId", ""), "unknown call")
        if m["role"] == "activity" and isinstance(m.get("content"), dict) and "toolCallId" in m["content"]:
            entry["content"] = {**m["content"], "toolCallId": calls.get(m["content"]["toolCallId"], "unknown call")}
        messages.append(entry)
    interrupts = []
    for i in report.get("interrupts") or []:
        entry = {k: v for k, v in i.items() if k in ("reason", "message", "metadata")}
        if "toolCallId" in i:
            entry["answers"] = calls.get(i["toolCallId"], "unknown call")
        interrupts.append(entry)
    return {"messages": messages, "state": report.get("state") or {}, "outcome": report.get("outcome"),
            "interrupts": interrupts}


def reference_path(scenario: Scenario) -> Path:
    return REFERENCE / f"{scenario.name}.json"


def load_reference(scenario: Scenario) -> dict[str, Any]:
    return json.loads(reference_path(scenario).read_text())  # type: ignore[no-any-return]


def play_all(dojo: Dojo, scenarios: tuple[Scenario, ...],
             adapters: tuple[str, ...] = ADAPTERS) -> dict[tuple[str, str, str], Run | BaseException]:
    """Every scenario on every adapter and client generation: each a Run, or what it raised (the test that
    reads that run reports it). The adapters play side by side, each its runs one at a time: upstream's agents
    are module-level singletons, and two runs of one of them at once are not what the Dojo does either."""
    from concurrent.futures import ThreadPoolExecutor

    def one(adapter: str) -> dict[tuple[str, str, str], Run | BaseException]:
        return {(adapter, s.name, g): _attempts(dojo, adapter, s, g) for s in scenarios for g in GENERATIONS}

    with ThreadPoolExecutor(max_workers=len(adapters)) as pool:
        return {key: run for runs in pool.map(one, adapters) for key, run in runs.items()}


def _attempts(dojo: Dojo, adapter: str, scenario: Scenario, generation: str) -> Run | BaseException:
    """One play; upstream's once more on a new thread when the client timed out: ag_ui_strands 1.0.2 now and then
    never answers a run that follows an interrupted one on the same agent (README.md: "Upstream's hang")."""
    try:
        return play(dojo, adapter, scenario, generation)
    except ClientTimeout as e:
        if adapter != "upstream":
            return e
        try:
            return play(dojo, adapter, scenario, generation, attempt=2)
        except Exception as again:  # noqa: BLE001 -- kept for the test that reads this run
            return again
    except Exception as e:  # noqa: BLE001 -- kept for the test that reads this run
        return e


def model_requests(dojo: Dojo) -> list[dict[str, Any]]:
    """What the model was asked (aimock's journal), oldest first."""
    import httpx

    return list(httpx.get(f"{dojo.model_url}/__aimock/journal", params={"limit": 1000}, timeout=10).json())
