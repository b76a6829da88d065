"""``strands-agui``: serve, record, replay, diagram.

    strands-agui serve [--host H] [--port P] [--app MODULE:ATTR] [--reload] [--sessions DIR|s3://B/P] [--threads]
                       [--pause-retention S] [--workers N] [--no-docs]
                       [--resumable [--events redis://HOST:PORT/DB] [--detach-seconds S]]
                       [--metrics]
    strands-agui record MODULE:ATTR (--prompt TEXT | --input input.json) -o run.jsonl
    strands-agui replay run.jsonl [--input input.json] [--config MODULE:ATTR | --ignore-config]
                                  [--format jsonl|sse] [--trace] [--partial]
    strands-agui diagram [--out diagrams] [--no-svg] [--readme README.md] [--console PATH]

Every ordinary mistake (a missing file, a log cut short, a module or attribute that does not exist, a busy
port, a bad flag, an app where an agent is expected or the reverse, the console's Trace file given as a log, a
model provider's missing package) ends with one line on stderr, ``strands-agui: error: <problem>: <fix>``, and exit
code 2 (a misspelt flag, verb or choice: "did you mean ..."); ``--debug`` adds the traceback. ``record`` says where
it wrote the log, and exits 1 when the run ends in ``RUN_ERROR``. ``replay`` replays with the
configuration the log's header names (written by the recorder whenever it can be named, see
``runtime/runlog/naming.py``): one that cannot be loaded is an error unless ``--ignore-config``.
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import re
import sys
import traceback
from collections.abc import AsyncIterator, Sequence
from typing import Any

from ag_ui.core import BaseEvent, RunAgentInput, RunErrorEvent

from ..environment import ServeEnvironment
from .cli_checks import (
    CliError,
    check_port_free,
    is_asgi_app,
    load_app,
    load_input,
    load_object,
    load_replay_log,
    open_output,
    replay_config,
)

DEFAULT_APP = "strands_agui.examples.demo:app"
USAGE_ERROR = 2
WORKER_HEALTHCHECK_SECONDS = 60  # uvicorn's 5 s kills a worker still importing the app on a loaded machine, forever
RUN_FAILED = 1

__all__ = ["CliError", "DEFAULT_APP", "load_object", "main", "parser"]
APP_ENV = "STRANDS_AGUI_APP"  # the app a `serve --no-docs` worker loads (see app_without_docs)


def _write(events: AsyncIterator[BaseEvent], fmt: str, input_data: RunAgentInput | None) -> BaseEvent | None:
    """Print every event (JSON Lines or SSE) as the server sends it to the client that made ``input_data``
    (the AG-UI version it declares, see docs/protocol-versions.md) and return the last one."""
    from ag_ui.encoder import EventEncoder

    from ..server.transport.versions import declared_event, legacy_event, speaks_legacy

    encoder = EventEncoder(accept="text/event-stream")
    as_sent = legacy_event if speaks_legacy(input_data.protocol_version if input_data else None) else declared_event

    async def pump() -> BaseEvent | None:
        last = None
        async for last in events:
            sent = as_sent(last)
            if fmt == "sse":
                sys.stdout.write(encoder.encode(sent))
            else:
                sys.stdout.write(sent.model_dump_json(by_alias=True, exclude_none=True) + "\n")
        sys.stdout.flush()
        return last

    return asyncio.run(pump())


def cmd_replay(args: argparse.Namespace) -> int:
    from .replay import replay

    log = load_replay_log(args.log, partial=args.partial)
    input_data = load_input(args.input)
    config = replay_config(log, args.log, args.config, args.ignore_config)
    trace: list[tuple[str, str, str]] | None = [] if args.trace else None
    _write(replay(log, config=config, input_data=input_data, trace=trace), args.format, input_data or log.input_data)
    for cause, trigger, state in trace or ():
        print(f"{cause:>28} -> {trigger:<16} => {state}", file=sys.stderr)
    return 0


def cmd_record(args: argparse.Namespace) -> int:
    from ..runtime.agent import StrandsAgent
    from ..runtime.runlog import Recorder

    input_data = load_input(args.input, args.prompt)
    if input_data is None:
        raise CliError("record needs what to ask: add --prompt TEXT or --input input.json")
    target = load_object(args.agent, "agent")
    if is_asgi_app(target):
        raise CliError(f"{args.agent} is an ASGI app ({type(target).__name__}), not an agent: record runs one agent "
                       "once; name the StrandsAgent or strands.Agent it serves (MODULE:ATTR), or serve the app with "
                       f"`strands-agui serve --app {args.agent}`")
    if not (isinstance(target, StrandsAgent) or callable(target) or hasattr(target, "stream_async")):
        raise CliError(f"{args.agent} is a {type(target).__name__}, not an agent: name a StrandsAgent, a "
                       "strands.Agent or a factory `lambda run_input: Agent(...)`")
    adapter = target if isinstance(target, StrandsAgent) else StrandsAgent(target)
    with open_output(args.output) as sink, Recorder(sink, input_data=input_data,
                                                     metadata={"agent": args.agent}) as recorder:
        last = _write(adapter.run(input_data, recorder=recorder), args.format, input_data)
    if isinstance(last, RunErrorEvent):
        print(f"strands-agui: error: the run ended in RUN_ERROR {last.code}: "
              f"{last.message} (recorded in {args.output})", file=sys.stderr)
        return RUN_FAILED
    print(f"strands-agui: wrote the run's log to {args.output}: replay it with `strands-agui replay {args.output}`, "
          "or open it in the console (Open a log)", file=sys.stderr)
    return 0


def cmd_diagram(args: argparse.Namespace) -> int:
    from .diagrams import DOT_HINT, GRAPHVIZ_HINT, embed_in_readme, graphviz_missing, render

    if args.console and (missing := graphviz_missing()):
        raise CliError(f"--console draws the console's SVG, but {missing}: {GRAPHVIZ_HINT}")
    for path in render(args.out, with_svg=not args.no_svg):
        print(path)
    if missing := graphviz_missing(with_svg=not args.no_svg):
        hint = DOT_HINT if args.no_svg else GRAPHVIZ_HINT  # --no-svg never needs Graphviz's `dot`
        print(f"strands-agui: wrote the Mermaid diagrams only ({missing}); {hint}", file=sys.stderr)
    if args.readme and embed_in_readme(args.readme):
        print(args.readme)
    if args.console:
        from pathlib import Path

        from .diagrams import console_svg

        Path(args.console).write_text(console_svg(), encoding="utf-8")
        print(args.console)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the app; ``--sessions`` reaches every worker as ``$STRANDS_AGUI_SESSIONS`` (the default store of
    every ``StrandsAgent`` without ``sessions=``); ``--workers N`` > 1 makes uvicorn import the app in N
    processes, which share the session directory, so a pause parked by one is resumed by any."""
    import os
    import shutil

    import uvicorn

    from ..runtime.sessions import DEFAULT_DIRECTORY
    from ..server.app import without_api_docs

    made = serve_environment(args)
    try:
        app: Any = load_app(args.app)  # also checked when the workers import it themselves
        imported = args.workers > 1 or args.reload  # uvicorn imports the app itself, in each worker or reload
        factory = args.no_docs and imported
        if factory:
            os.environ[APP_ENV] = args.app
            app = f"{__name__}:app_without_docs"
        elif imported:
            app = args.app  # workers import the app themselves
        elif args.no_docs:
            app = without_api_docs(app)
        check_port_free(args.host, args.port)
        sessions = ServeEnvironment.from_env().sessions or str(DEFAULT_DIRECTORY)
        reloading = f", reloading when a .py file under {os.getcwd()} changes" if args.reload else ""
        print(f"strands-agui: serving {args.app} on http://{args.host}:{args.port}/ ({args.workers} worker(s)"
              f"{reloading}); paused runs are kept in {sessions}", file=sys.stderr)
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, workers=args.workers,
                    factory=factory, timeout_worker_healthcheck=WORKER_HEALTHCHECK_SECONDS, reload=args.reload)
    finally:
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)
    return 0


def serve_environment(args: argparse.Namespace) -> str | None:
    """``serve``'s flags checked, written into the :class:`~strands_agui.environment.ServeEnvironment` every worker
    reads when its app is built (as environment variables, over what was set before); returns the metrics
    directory made for the workers (:func:`metrics_environment`)."""
    import os
    from dataclasses import replace
    from pathlib import Path

    if args.workers < 1:
        raise CliError(f"--workers {args.workers}: give at least 1 worker")
    if args.reload and args.workers > 1:
        raise CliError(f"--reload with --workers {args.workers}: reloading serves one worker; drop one of them")
    if args.pause_retention is not None and not args.pause_retention > 0:
        raise CliError(f"--pause-retention {args.pause_retention}: give a number of seconds > 0 (inf: forever)")
    try:
        environment = ServeEnvironment.from_env()
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.sessions:  # a directory, or s3://BUCKET/PREFIX (runtime/s3sessions.py)
        s3 = args.sessions.startswith("s3://")
        environment = replace(environment, sessions=args.sessions if s3 else str(Path(args.sessions).resolve()))
    if args.pause_retention is not None:
        environment = replace(environment, pause_retention=str(args.pause_retention))
    if args.threads:
        environment = replace(environment, threads=True)
    environment, made = metrics_environment(args, resumable_environment(args, environment))
    os.environ.update(environment.to_env())
    return made


def resumable_environment(args: argparse.Namespace, environment: ServeEnvironment) -> ServeEnvironment:
    """``--resumable``, ``--events`` and ``--detach-seconds``, for every worker's endpoints
    (``server/resumable/run_routes.from_environment``)."""
    from dataclasses import replace

    if not args.resumable:
        if args.events or args.detach_seconds is not None:
            raise CliError("--events and --detach-seconds need --resumable")
        return environment
    if args.events and not args.events.startswith(("redis://", "rediss://", "unix://")):
        raise CliError(f"--events {args.events}: give a Redis URL (redis://HOST:PORT/DB)")
    if args.workers > 1 and not (args.events or environment.events):
        raise CliError("--resumable with --workers > 1 needs --events redis://HOST:PORT/DB (in-memory events "
                       "are one process's: a reconnect reaching another worker would not find its run)")
    if args.detach_seconds is not None and not 0 <= args.detach_seconds < float("inf"):
        raise CliError(f"--detach-seconds {args.detach_seconds}: give a number of seconds >= 0")
    environment = replace(environment, resumable=True)
    if args.events:
        environment = replace(environment, events=args.events)
    if args.detach_seconds is not None:
        environment = replace(environment, detach_seconds=float(args.detach_seconds))
    return environment


def metrics_environment(args: argparse.Namespace,
                        environment: ServeEnvironment) -> tuple[ServeEnvironment, str | None]:
    """``--metrics``, for every worker's endpoints (``server/observability/metrics.py``); with several workers, a
    fresh ``$PROMETHEUS_MULTIPROC_DIR`` (unless one is set) makes ``/metrics`` sum every worker's values. Returns
    the environment and the directory made here, removed when the server stops."""
    import tempfile
    from dataclasses import replace
    from importlib.util import find_spec

    if not args.metrics:
        return environment, None
    if find_spec("prometheus_client") is None:
        raise CliError("--metrics needs prometheus-client: pip install 'strands-agui[observability]'")
    environment = replace(environment, metrics=True)
    if args.workers == 1 or environment.metrics_directory:
        return environment, None
    made = tempfile.mkdtemp(prefix="strands-agui-metrics-")  # set before any worker imports prometheus_client
    return replace(environment, metrics_directory=made), made


def app_without_docs() -> Any:
    """uvicorn's factory for ``serve --no-docs --workers N``: the app ``$STRANDS_AGUI_APP`` without its API
    docs routes."""
    import os

    from ..server.app import without_api_docs

    return without_api_docs(load_app(os.environ[APP_ENV]))


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad flag as one line (through :class:`CliError`) instead of usage + exit, with the
    flag, verb or choice that was probably meant."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.argv: list[str] = []

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:  # type: ignore[override]
        self.argv = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> Any:  # type: ignore[override]
        hint = self._did_you_mean(message)
        see = f"`{self._help_prog()} --help`"
        # main() adds the "strands-agui: error: " prefix
        raise CliError(f"{message}: did you mean {hint}? (see {see})" if hint else f"{message}: see {see}")

    def _verb(self) -> argparse.ArgumentParser | None:
        """The verb's parser, when the arguments name one (the root parser reports unknown flags of every verb)."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                chosen = next((arg for arg in self.argv if arg in action.choices), None)
                return action.choices[chosen] if chosen else None
        return None

    def _help_prog(self) -> str:
        verb = self._verb()
        return verb.prog if verb is not None else self.prog

    def _did_you_mean(self, message: str) -> str | None:
        if message.startswith("unrecognized arguments: "):
            verb = self._verb() or self
            flags = [flag for action in verb._actions for flag in action.option_strings]
            for word in message.removeprefix("unrecognized arguments: ").split():
                name = word.split("=", 1)[0]
                if name.startswith("-") and (close := difflib.get_close_matches(name, flags, n=1, cutoff=0.6)):
                    return close[0]
            return None
        choice = re.search(r"invalid choice: '(.*?)' \(choose from (.*)\)$", message)
        if choice:
            options = re.findall(r"'([^']*)'", choice.group(2))
            close = difflib.get_close_matches(choice.group(1), options, n=1, cutoff=0.5)
            return close[0] if close else None
        return None


DESCRIPTION = """Serve Strands agents over AG-UI, record a run's Strands events, replay them, draw the run machine.

  strands-agui serve                          the bundled examples and the console at http://127.0.0.1:8000/
  strands-agui serve --app my_app:app         your FastAPI app (the current directory is importable)
  strands-agui record my_app:agent --prompt "Hi" -o run.jsonl
  strands-agui replay run.jsonl               the AG-UI stream the log gives, without a model

Every mistake ends with one line, `strands-agui: error: <problem>: <fix>` (exit 2; --debug adds the traceback).
Run `strands-agui VERB --help` for a verb's options."""


def parser() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="print the traceback of an error (default: one line)")
    root = _Parser(prog="strands-agui", description=DESCRIPTION, parents=[common],
                   formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = root.add_subparsers(dest="command", required=True, parser_class=_Parser, title="verbs", metavar="VERB")
    for add in (_serve_parser, _record_parser, _replay_parser, _diagram_parser):
        add(sub, common)
    return root


def _serve_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    """`strands-agui serve`: run an ASGI app (by default the examples and the console)."""
    serve = sub.add_parser(
        "serve", parents=[common], help="serve an app (default: the bundled examples and the console)",
        description="Serve an ASGI app with uvicorn: by default the bundled examples and the console at "
        "http://127.0.0.1:8000/. With --app, your own FastAPI app (MODULE:ATTR, the current directory is "
        "importable); `mount_console(app)` puts its agents in the console. One line says where it serves.")
    serve.add_argument("--app", default=DEFAULT_APP, metavar="MODULE:ATTR",
                       help=f"the ASGI app to serve, e.g. my_app:app (default: {DEFAULT_APP})")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: 127.0.0.1; 0.0.0.0: "
                       "every interface)")
    serve.add_argument("--port", type=int, default=8000, help="the port to listen on (default: 8000)")
    serve.add_argument("--reload", action="store_true", help="restart the server when a .py file under the current "
                       "directory changes (development; one worker; default: off)")
    serve.add_argument("--log-level", default="info", choices=("critical", "error", "warning", "info", "debug"),
                       help="uvicorn's log level (default: info)")
    serve.add_argument("--sessions", metavar="DIR|s3://BUCKET/PREFIX",
                       help="directory, or s3://BUCKET/PREFIX shared by several machines, where "
                       "paused runs wait for their resume (default: $STRANDS_AGUI_SESSIONS, else ~/.strands/sessions)")
    serve.add_argument("--pause-retention", type=float, metavar="SECONDS",
                       help="how long a paused run stays resumable (its interrupts' expiresAt; default: 86400, "
                       "inf: forever)")
    serve.add_argument("--threads", action="store_true",
                       help="keep each caller's threads on the server, in the --sessions store (a request may send "
                       "only its new messages; GET <path>/threads lists them; default: off)")
    serve.add_argument("--workers", type=int, default=1, metavar="N", help="uvicorn worker processes (default: 1)")
    serve.add_argument("--no-docs", action="store_true", help="serve without /docs, /redoc and /openapi.json "
                       "(default: served)")
    serve.add_argument("--resumable", action="store_true",
                       help="number and store every event: clients reconnect with Last-Event-ID, cancel by run id "
                       "(default: off)")
    serve.add_argument("--events", metavar="URL", help="with --resumable: the event store shared by workers "
                       "(redis://HOST:PORT/DB; default: in memory, one process)")
    serve.add_argument("--detach-seconds", type=float, metavar="S",
                       help="with --resumable: how long a run outlives its client awaiting a reconnect (default: 60)")
    serve.add_argument("--metrics", action="store_true", help="Prometheus metrics of the runs at GET /metrics "
                       "(every worker's; needs the observability extra; default: off)")
    serve.set_defaults(func=cmd_serve)


def _record_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    """`strands-agui record`: run an agent once, write its Strands events."""
    record = sub.add_parser(
        "record", parents=[common], help="run an agent once and record its Strands events",
        description="Run an agent once (a real run: its model, its tools), print the AG-UI stream it gives and "
        "write its Strands events to a log that `strands-agui replay` and the console's Open a log read back. "
        "Exits 1 when the run ends in RUN_ERROR (the log is written all the same).")
    record.add_argument("agent", metavar="MODULE:ATTR", help="the agent to run: a StrandsAgent, a strands.Agent or a "
                        "factory `lambda run_input: Agent(...)` (not the app serving it)")
    record.add_argument("--prompt", metavar="TEXT", help="the user's message (--prompt or --input is required)")
    record.add_argument("--input", metavar="FILE", help="a RunAgentInput JSON file (camelCase; threadId and runId "
                        "default to cli-thread and cli-run; --prompt or --input is required)")
    record.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="where to write the log (JSON Lines; required)")
    record.add_argument("--format", choices=("jsonl", "sse"), default="jsonl",
                        help="how the AG-UI stream is printed on stdout (default: jsonl)")
    record.set_defaults(func=cmd_record)


def _replay_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    """`strands-agui replay`: a recorded log's AG-UI stream."""
    replay = sub.add_parser(
        "replay", parents=[common], help="print the AG-UI stream of a recorded log",
        description="Replay a log written by `strands-agui record`, a Recorder or the console's Log button "
        "through the run machine, without a model: the AG-UI events the live run gave, on stdout.")
    replay.add_argument("log", metavar="LOG.jsonl", help="the run log (not the console's Trace file)")
    replay.add_argument("--input", metavar="FILE", help="a RunAgentInput JSON file (default: the log's header)")
    replay.add_argument("--config", metavar="MODULE:ATTR", help="the StrandsAgentConfig to replay with, or a factory "
                        "returning one (default: the one the log's header names)")
    replay.add_argument("--ignore-config", action="store_true", help="replay with the default configuration when "
                        "the log's config cannot be loaded (or is not wanted; default: off)")
    replay.add_argument("--format", choices=("jsonl", "sse"), default="jsonl",
                        help="JSON Lines or SSE frames (default: jsonl)")
    replay.add_argument("--trace", action="store_true", help="print the transition trace to stderr (default: off)")
    replay.add_argument("--partial", action="store_true",
                        help="replay a log without its end marker (cut short, or written before the marker; "
                        "default: refused)")
    replay.set_defaults(func=cmd_replay)


def _diagram_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    """`strands-agui diagram`: the run machine and a served run's phases as Mermaid, DOT and SVG."""
    diagram = sub.add_parser(
        "diagram", parents=[common], help="render the run machine into diagrams/",
        description="Draw the run machine (the transition table every run follows) and a served run's phases "
        "(the driver's table). Mermaid always; DOT when "
        "the graphviz Python package is installed (pip install 'strands-agui[diagrams]'); SVG when Graphviz's "
        "`dot` is on PATH too. Without them it writes the Mermaid file and says how to get the others.")
    diagram.add_argument("--out", default="diagrams", metavar="DIR",
                         help="directory for run_machine.* and served_run.*: .mmd, .dot and .svg (created if "
                         "absent; default: diagrams)")
    diagram.add_argument("--no-svg", action="store_true", help="skip the SVG (and the need for `dot`; default: "
                         "drawn when `dot` is there)")
    diagram.add_argument("--readme", metavar="PATH", help="also refresh the Mermaid block of this Markdown file "
                         "(between <!-- diagram:start --> and <!-- diagram:end -->; default: none)")
    diagram.add_argument("--console", metavar="PATH", help="also write the console's SVG of the machine to this "
                         "path (src/strands_agui/server/console/static/run_machine.svg in the repo; needs graphviz; "
                         "default: none)")
    diagram.set_defaults(func=cmd_diagram)


def _fail(message: str, exc: BaseException, debug: bool, status: int) -> int:
    if debug:
        traceback.print_exception(exc)
    print(f"strands-agui: error: {' '.join(message.split())}", file=sys.stderr)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    try:
        args = parser().parse_args(argv)
        return int(args.func(args))
    except CliError as exc:
        return _fail(str(exc), exc, debug, USAGE_ERROR)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `strands-agui replay run.jsonl | head`
        sys.stderr.close()
        return 0
    except Exception as exc:
        hint = "" if debug else " (rerun with --debug for the traceback)"
        return _fail(f"{type(exc).__name__}: {exc}{hint}", exc, debug, RUN_FAILED)


if __name__ == "__main__":
    sys.exit(main())
