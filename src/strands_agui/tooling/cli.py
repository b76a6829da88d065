"""``strands-agui``: serve, record, replay, diagram.

    strands-agui serve [--host H] [--port P] [--app MODULE:ATTR] [--sessions DIR] [--workers N]
    strands-agui record MODULE:ATTR (--prompt TEXT | --input input.json) -o run.jsonl
    strands-agui replay run.jsonl [--input input.json] [--config MODULE:ATTR] [--format jsonl|sse] [--trace]
    strands-agui diagram [--out diagrams] [--no-svg] [--readme README.md] [--console PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from ag_ui.core import BaseEvent, RunAgentInput
from ag_ui.encoder import EventEncoder

DEFAULT_APP = "strands_agui.examples.server:app"


def load_object(spec: str) -> Any:
    """``package.module:attribute`` -> the attribute (the current directory is importable)."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise SystemExit(f"expected MODULE:ATTRIBUTE, got {spec!r}")
    if "" not in sys.path:
        sys.path.insert(0, "")
    return getattr(importlib.import_module(module_name), attribute)


def load_input(path: str | None, prompt: str | None = None) -> RunAgentInput | None:
    if path:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        data.setdefault("threadId", "cli-thread")
        data.setdefault("runId", "cli-run")
        data.setdefault("messages", [])
        return RunAgentInput.model_validate(data)
    if prompt is not None:
        return RunAgentInput.model_validate({"threadId": "cli-thread", "runId": "cli-run", "messages": [
            {"id": "cli-user", "role": "user", "content": prompt}], "state": {}, "tools": [], "context": [],
            "forwardedProps": {}})
    return None


def _write(events: AsyncIterator[BaseEvent], fmt: str) -> int:
    encoder = EventEncoder(accept="text/event-stream")

    async def pump() -> int:
        async for event in events:
            if fmt == "sse":
                sys.stdout.write(encoder.encode(event))
            else:
                sys.stdout.write(event.model_dump_json(by_alias=True, exclude_none=True) + "\n")
        sys.stdout.flush()
        return 0

    return asyncio.run(pump())


def cmd_replay(args: argparse.Namespace) -> int:
    from .replay import replay

    config = load_object(args.config) if args.config else None
    trace: list[tuple[str, str, str]] | None = [] if args.trace else None
    status = _write(replay(args.log, config=config, input_data=load_input(args.input), trace=trace), args.format)
    for cause, trigger, state in trace or ():
        print(f"{cause:>28} -> {trigger:<16} => {state}", file=sys.stderr)
    return status


def cmd_record(args: argparse.Namespace) -> int:
    from ..runtime.agent import StrandsAgent
    from .recording import Recorder

    target = load_object(args.agent)
    adapter = target if isinstance(target, StrandsAgent) else StrandsAgent(target)
    input_data = load_input(args.input, args.prompt)
    if input_data is None:
        raise SystemExit("record needs --prompt TEXT or --input input.json")
    with Recorder(args.output, input_data=input_data, metadata={"agent": args.agent}) as recorder:
        return _write(adapter.run(input_data, recorder=recorder), args.format)


def cmd_diagram(args: argparse.Namespace) -> int:
    from .diagrams import embed_in_readme, render

    for path in render(args.out, with_svg=not args.no_svg):
        print(path)
    if args.readme and embed_in_readme(args.readme):
        print(args.readme)
    if args.console:
        from .diagrams import console_svg

        Path(args.console).write_text(console_svg(), encoding="utf-8")
        print(args.console)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the app; ``--sessions`` reaches every worker as ``$STRANDS_AGUI_SESSIONS`` (the default store of
    every ``StrandsAgent`` without ``sessions=``); ``--workers N`` > 1 makes uvicorn import the app in N
    processes, which share the session directory, so a pause parked by one is resumed by any."""
    import os

    import uvicorn

    from ..runtime.sessions import SESSIONS_ENV

    if args.sessions:
        os.environ[SESSIONS_ENV] = str(Path(args.sessions).resolve())
    app = load_object(args.app) if args.workers == 1 else args.app  # workers import the app themselves
    if "" not in sys.path:
        sys.path.insert(0, "")
    print(f"strands-agui: serving {args.app} on http://{args.host}:{args.port}/ ({args.workers} worker(s))",
          file=sys.stderr)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, workers=args.workers)
    return 0


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="strands-agui", description="Serve Strands agents over AG-UI.")
    sub = root.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve an app (default: the bundled examples and chat page)")
    serve.add_argument("--app", default=DEFAULT_APP)
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--log-level", default="info")
    serve.add_argument("--sessions", help="directory where paused runs wait for their resume "
                       "(default: $STRANDS_AGUI_SESSIONS, else ~/.strands/sessions)")
    serve.add_argument("--workers", type=int, default=1, help="uvicorn worker processes (default 1)")
    serve.set_defaults(func=cmd_serve)
    record = sub.add_parser("record", help="run an agent once and record its Strands events")
    record.add_argument("agent", help="MODULE:ATTR of a StrandsAgent or strands.Agent")
    record.add_argument("--prompt")
    record.add_argument("--input", help="a RunAgentInput JSON file (camelCase)")
    record.add_argument("-o", "--output", required=True)
    record.add_argument("--format", choices=("jsonl", "sse"), default="jsonl")
    record.set_defaults(func=cmd_record)
    replay = sub.add_parser("replay", help="print the AG-UI stream of a recorded log")
    replay.add_argument("log")
    replay.add_argument("--input", help="a RunAgentInput JSON file; default: the log's header")
    replay.add_argument("--config", help="MODULE:ATTR of a StrandsAgentConfig")
    replay.add_argument("--format", choices=("jsonl", "sse"), default="jsonl")
    replay.add_argument("--trace", action="store_true", help="print the transition trace to stderr")
    replay.set_defaults(func=cmd_replay)
    diagram = sub.add_parser("diagram", help="render the run machine into diagrams/")
    diagram.add_argument("--out", default="diagrams")
    diagram.add_argument("--no-svg", action="store_true")
    diagram.add_argument("--readme", help="also refresh the Mermaid block of this README")
    diagram.add_argument("--console", help="also write the console's SVG of the machine to this path "
                         "(src/strands_agui/server/static/run_machine.svg in the repo)")
    diagram.set_defaults(func=cmd_diagram)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
