"""The ``strands-agui`` command line's parser: every verb, option, help text and default, and the one-line
errors with "did you mean" (:class:`_Parser`). The verbs' commands are in ``tooling/cli.py``."""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from collections.abc import Callable, Mapping
from typing import Any

from .cli_checks import CliError

DEFAULT_APP = "strands_agui.examples.demo:app"


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


def build_parser(commands: Mapping[str, Callable[[argparse.Namespace], int]]) -> argparse.ArgumentParser:
    """The CLI's parser; ``commands`` maps each verb to the function it runs (``args.func``)."""
    common = _Parser(add_help=False)
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="print the traceback of an error (default: one line)")
    root = _Parser(prog="strands-agui", description=DESCRIPTION, parents=[common],
                   formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = root.add_subparsers(dest="command", required=True, parser_class=_Parser, title="verbs", metavar="VERB")
    for add in (_serve_parser, _record_parser, _replay_parser, _diagram_parser):
        add(sub, common, commands)
    return root


def _serve_parser(sub: Any, common: argparse.ArgumentParser,
                  commands: Mapping[str, Callable[[argparse.Namespace], int]]) -> None:
    """`strands-agui serve`: run an ASGI app (by default the examples and the console)."""
    serve = sub.add_parser(
        "serve", parents=[common], help="serve an app (default: the bundled examples and the console)",
        description="Serve an ASGI app with uvicorn: by default the bundled examples and the console at "
        "http://127.0.0.1:8000/. With --app, your own FastAPI app (MODULE:ATTR, the current directory is "
        "importable); `mount_console(app)` puts its agents in the console. One line says where it serves.")
    serve.add_argument("--app", default=DEFAULT_APP, metavar="MODULE:ATTR",
                       help=f"the ASGI app to serve, e.g. my_app:app (default: {DEFAULT_APP})")
    serve.add_argument("--host", help="the address to listen on (default: 127.0.0.1, with --agentcore 0.0.0.0; "
                       "0.0.0.0: every interface)")
    serve.add_argument("--port", type=int, help="the port to listen on (default: 8000, with --agentcore 8080)")
    serve.add_argument("--agentcore", action="store_true",
                       help="serve one agent as Amazon Bedrock AgentCore Runtime calls it: POST /invocations, /ws, "
                       "GET /ping (--app names a StrandsAgent, a strands.Agent or an app of create_strands_app; "
                       "docs/deployment.md; default: off)")
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
    serve.add_argument("--max-runs", type=int, metavar="N",
                       help="admission control's fixed ceiling: a worker answers a new run 503 with Retry-After while "
                       "N runs are in flight in it (docs/capacity.md; default: only the limit learned from its load)")
    serve.add_argument("--no-admission", action="store_true",
                       help="admit every run, however loaded the worker (a balancer in front sheds load; default: "
                       "admission control on)")
    serve.set_defaults(func=commands["serve"])


def _record_parser(sub: Any, common: argparse.ArgumentParser,
                   commands: Mapping[str, Callable[[argparse.Namespace], int]]) -> None:
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
    record.set_defaults(func=commands["record"])


def _replay_parser(sub: Any, common: argparse.ArgumentParser,
                   commands: Mapping[str, Callable[[argparse.Namespace], int]]) -> None:
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
    replay.set_defaults(func=commands["replay"])


def _diagram_parser(sub: Any, common: argparse.ArgumentParser,
                    commands: Mapping[str, Callable[[argparse.Namespace], int]]) -> None:
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
    diagram.set_defaults(func=commands["diagram"])
