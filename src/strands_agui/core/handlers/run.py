"""What a handler may ask of its run: the :class:`Run` protocol the translator satisfies, and the base of handlers.

Handlers never import the translator (``core/translator.py`` imports them): they see the run through these
protocols, which name exactly the members one handler uses of the run or of a sibling handler. The sibling
protocols are small on purpose: a handler that needs more of a sibling says so here first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from ag_ui.core import Interrupt, RunAgentInput, StateSnapshotEvent

from ...config import StrandsAgentConfig
from ...errors import RunFailure
from ..facts import RunFacts
from ..snapshot import ClientMessages
from .base import Item, ToolCallRecord, Turn


class Text(Protocol):
    def show_text(self, text: str, cause: str) -> list[Item]: ...


class Tools(Protocol):
    calls: dict[str, ToolCallRecord]

    def retract(self, tool_use_ids: list[str], message_ids: Sequence[str] = ()) -> None: ...

    def show_unstreamed(self, tool_use: Mapping[str, Any]) -> list[Item]: ...

    def on_tool_result_message(self, message: Mapping[str, Any]) -> list[Item]: ...

    def pending(self) -> list[str]: ...


class Interrupts(Protocol):
    waiting: dict[str, Interrupt]

    def pending(self) -> list[Interrupt]: ...

    def wait_for(self, interrupts: Iterable[Any], tool_call_id: str | None = None,
                 subagent_run_id: str | None = None) -> list[Interrupt]: ...


class Outcome(Protocol):
    def usage_entries(self) -> Mapping[tuple[str | None, str | None], Mapping[str, int]]: ...

    def absorb(self, sub: Outcome) -> None: ...


class Subagents(Protocol):
    def on_results(self, results: list[Mapping[str, Any]], texts: list[str]) -> list[Item]: ...

    open: dict[str, Any]

    def close_all(self, failed: bool) -> list[Item]: ...


class Background(Protocol):
    def on_halted(self) -> list[Item]: ...


class Run(Protocol):
    """One (sub)run as its handlers see it: what it was given, where its machine is, how it moves."""

    input: RunAgentInput
    config: StrandsAgentConfig
    facts: RunFacts
    frontend_tools: frozenset[str]
    new_id: Callable[[], str]
    client: ClientMessages
    owner: str | None
    turn: Turn
    open_id: str
    subagent: bool  # a subagent's (sub)run, not the run itself

    @property
    def state(self) -> str: ...

    @property
    def halt(self) -> str | None: ...  # why the run halted (the table's ``halt`` of its row), once it has

    @property
    def text(self) -> Text: ...

    @property
    def tools(self) -> Tools: ...

    @property
    def interrupts(self) -> Interrupts: ...

    @property
    def outcome(self) -> Outcome: ...

    @property
    def subagents(self) -> Subagents: ...

    @property
    def background(self) -> Background: ...

    @property
    def paused(self) -> bool: ...

    def can(self, trigger: str) -> bool: ...

    def goes_to(self, trigger: str) -> str: ...

    def fire(self, trigger: str, cause: str, events: Sequence[Item] = ()) -> list[Item]: ...

    def abort(self, failure: RunFailure, ending: Sequence[Item] | None = None) -> list[Item]: ...

    def decline(self, trigger: str, cause: str) -> list[Item]: ...

    def close_open(self, cause: str) -> list[Item]: ...

    def handle(self, event: Mapping[str, Any]) -> list[Item]: ...

    def nested(self, owner: str | None, name: str, facts: RunFacts) -> Run: ...

    def merge_state(self, fragment: Mapping[str, Any]) -> StateSnapshotEvent: ...


class Handler:
    """One concern of one run's translation. ``run`` is the (sub)run: its machine and its shared state."""

    def __init__(self, run: Run) -> None:
        self.run = run
