"""``strands-agui``: serve, record, replay, diagram.

    strands-agui serve [--host H] [--port P] [--app MODULE:ATTR] [--agentcore] [--reload] [--sessions DIR|s3://B/P]
                       [--threads]
                       [--pause-retention S] [--workers N] [--no-docs]
                       [--resumable [--events redis://HOST:PORT/DB] [--detach-seconds S]]
                       [--metrics] [--max-runs N | --no-admission]
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
``runtime/recordings/naming.py``): one that cannot be loaded is an error unless ``--ignore-config``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
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
from .cli_parser import DEFAULT_APP, build_parser
from .serving import agentcore_serving, serve_address

USAGE_ERROR = 2
WORKER_HEALTHCHECK_SECONDS = 60  # uvicorn's 5 s kills a worker still importing the app on a loaded machine, forever
RUN_FAILED = 1

__all__ = ["CliError", "DEFAULT_APP", "load_object", "main", "parser"]
APP_ENV = "STRANDS_AGUI_APP"  # the app a `serve --no-docs` worker loads (see app_without_docs)


def _write(events: AsyncIterator[BaseEvent], fmt: str, input_data: RunAgentInput | None) -> BaseEvent | None:
    """Print every event (JSON Lines or SSE) as the server sends it to the client that made ``input_data``
    (the AG-UI version it declares, see docs/protocol-versions.md) and return the last one."""
    from ag_ui.encoder import EventEncoder

    from ..server.transport.versions import as_sent as rewrite

    encoder = EventEncoder(accept="text/event-stream")
    as_sent = rewrite(input_data.protocol_version if input_data else None)

    async def pump() -> BaseEvent | None:
        last = None
        async for last in events:
            sent = as_sent(last)
            try:
                sys.stdout.write(encoder.encode(sent) if fmt == "sse" else
                                 sent.model_dump_json(by_alias=True, exclude_none=True) + "\n")
            except BrokenPipeError:
                _reader_gone()
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _reader_gone()
        return last

    return asyncio.run(pump())


def _reader_gone() -> None:
    """The reader closed our stdout (``record ... | head``): the rest of the run goes nowhere, and the run still
    ends as it would (its log complete, no generator torn down halfway)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


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
    from ..runtime.adapter import StrandsAgent
    from ..runtime.recordings import Recorder

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
    from .diagrams import embed_in_readme, graphviz_hint, graphviz_missing, render

    if args.console and (missing := graphviz_missing()):
        raise CliError(f"--console draws the console's SVG, but {missing}: {graphviz_hint()}")
    for path in render(args.out, with_svg=not args.no_svg):
        print(path)
    if missing := graphviz_missing(with_svg=not args.no_svg):
        hint = graphviz_hint(with_svg=not args.no_svg)  # --no-svg never needs Graphviz's `dot`
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

    from ..runtime.storage.sessions import DEFAULT_DIRECTORY
    from .serving import run_uvicorn

    made = serve_environment(args)
    try:
        app, factory, options = agentcore_serving(args) if args.agentcore else _app_to_serve(args)
        check_port_free(args.host, args.port)
        sessions = ServeEnvironment.from_env().sessions or str(DEFAULT_DIRECTORY)
        reloading = f", reloading when a .py file under {os.getcwd()} changes" if args.reload else ""
        print(f"strands-agui: serving {args.app} on http://{args.host}:{args.port}/ ({args.workers} worker(s)"
              f"{reloading}); {'threads and ' if args.threads else ''}paused runs are kept in {sessions}",
              file=sys.stderr)
        run_uvicorn(app, host=args.host, port=args.port, log_level=args.log_level, workers=args.workers,
                    factory=factory, timeout_worker_healthcheck=WORKER_HEALTHCHECK_SECONDS, reload=args.reload,
                    **options)
    finally:
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)
    return 0


def _app_to_serve(args: argparse.Namespace) -> tuple[Any, bool, dict[str, Any]]:
    """What uvicorn serves: the app (or, when it imports it itself, its name or factory), whether it is a factory,
    and uvicorn options of its own (none)."""
    import os

    from ..server.app import without_api_docs

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
    return app, factory, {}


def serve_environment(args: argparse.Namespace) -> str | None:
    """``serve``'s flags checked, written into the :class:`~strands_agui.environment.ServeEnvironment` every worker
    reads when its app is built (as environment variables, over what was set before); returns the metrics
    directory made for the workers (:func:`metrics_environment`)."""
    import os
    from dataclasses import replace
    from pathlib import Path

    serve_address(args)
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
    if args.sessions:  # a directory, or s3://BUCKET/PREFIX (runtime/storage/s3sessions.py)
        s3 = args.sessions.startswith("s3://")
        environment = replace(environment, sessions=args.sessions if s3 else str(Path(args.sessions).resolve()))
    if args.pause_retention is not None:
        environment = replace(environment, pause_retention=float(args.pause_retention))
    if args.threads:
        environment = replace(environment, threads=True)
    environment = admission_environment(args, resumable_environment(args, environment))
    environment, made = metrics_environment(args, environment)
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
    if events := args.events or environment.events:
        needs_redis(str(events))
    environment = replace(environment, resumable=True)
    if args.events:
        environment = replace(environment, events=args.events)
    if args.detach_seconds is not None:
        environment = replace(environment, detach_seconds=float(args.detach_seconds))
    return environment


def admission_environment(args: argparse.Namespace, environment: ServeEnvironment) -> ServeEnvironment:
    """``--max-runs N`` and ``--no-admission``, for every worker's endpoints (``server/request/admission.py``)."""
    from dataclasses import replace

    if args.max_runs is not None and args.no_admission:
        raise CliError(f"--max-runs {args.max_runs} with --no-admission: a ceiling needs admission control on; "
                       "drop one of them")
    if args.max_runs is not None and args.max_runs < 1:
        raise CliError(f"--max-runs {args.max_runs}: give a whole number of runs >= 1 (or --no-admission)")
    if args.no_admission:
        return replace(environment, no_admission=True, max_runs=None)
    if args.max_runs is not None:
        return replace(environment, max_runs=args.max_runs, no_admission=False)
    return environment


def needs_redis(events: str) -> None:
    """Events in Redis need the redis extra: say so before any worker imports the app."""
    try:
        import redis.asyncio  # noqa: F401
    except ImportError:
        raise CliError(f"--events {events} needs redis: pip install 'strands-agui[redis]'") from None


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


def parser() -> argparse.ArgumentParser:
    """The CLI's parser, each verb bound to its command here."""
    return build_parser({"serve": cmd_serve, "record": cmd_record, "replay": cmd_replay, "diagram": cmd_diagram})


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
