"""What every handler shares: the items a handler returns, a model turn, a tool call as the client holds it."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from ag_ui.core import BaseEvent, SubagentErrorEvent, SubagentFinishedEvent, SubagentStartedEvent

from ...config import ToolCallContext
from ...errors import IdFactoryError


@dataclass(frozen=True)
class HookCall:
    """A user hook to run between two Strands events: ``kind`` names the ToolBehavior field."""

    kind: str
    fn: Callable[..., Any]
    context: ToolCallContext


Item: TypeAlias = BaseEvent | HookCall


@dataclass
class Turn:
    """What one model turn has shown the client so far."""

    tool_use_ids: list[str] = field(default_factory=list)
    message_ids: list[str] = field(default_factory=list)  # every text message the turn opened (and kept)
    needs_snapshot: bool = False  # the client's copy of the turn was corrected (the turn's end sends it)

    @property
    def text_message_id(self) -> str | None:
        """The turn's latest text message the client holds: the parent of the tool calls that follow it."""
        return self.message_ids[-1] if self.message_ids else None

    @property
    def shown(self) -> bool:
        return bool(self.message_ids or self.tool_use_ids)


def new_id() -> str:
    return str(uuid.uuid4())


def checked_ids(factory: Callable[[], str]) -> Callable[[], str]:
    """A run's id source over the user's ``id_factory``: every id a non-empty ``str`` never issued before in the
    run, else :class:`~strands_agui.errors.IdFactoryError` (RUN_ERROR ``ID_FACTORY_ERROR``), raised before the
    move that needed the id (events before moves). A factory already checked is returned as it is."""
    if getattr(factory, "checked", False):
        return factory
    issued: set[str] = set()

    def ids() -> str:
        try:
            value = factory()
        except Exception as exc:  # noqa: BLE001 - the run reports it
            raise IdFactoryError(f"id_factory raised {type(exc).__name__}: {exc}") from exc
        if not isinstance(value, str) or not value:
            raise IdFactoryError(f"id_factory returned {value!r}, not a non-empty str")
        if value in issued:
            raise IdFactoryError(f"id_factory returned {value!r} twice in one run: ids must be unique")
        issued.add(value)
        return value

    ids.checked = True  # type: ignore[attr-defined]
    return ids


def attributed(items: list[Item], owner: str | None) -> list[Item]:
    """Stamp ``subagentRunId`` on every event of a subagent that can carry it (its own start and end aside)."""
    if owner is None:
        return items
    for item in items:
        if isinstance(item, BaseEvent) and "subagent_run_id" in type(item).model_fields \
                and not isinstance(item, SubagentStartedEvent | SubagentFinishedEvent | SubagentErrorEvent):
            item.subagent_run_id = owner  # type: ignore[attr-defined]
    return items


def parse_args(args: str) -> Any:
    """Tool arguments as data; text that is not JSON stays text."""
    try:
        return json.loads(args) if args else {}
    except ValueError:
        return args


@dataclass
class ToolCallRecord:
    """A tool call as announced to the client; ``args`` grows while the input streams."""

    tool_use_id: str
    name: str
    parent_message_id: str | None
    shown: list[str]  # argument deltas the client has seen (shared with ClientMessages)
    chunks: list[str] = field(default_factory=list)  # argument fragments Strands streamed
    tool_input: Any = None
    answered: bool = False  # a TOOL_CALL_RESULT was sent (or the client already holds the result)
    wire_id: str = ""  # the toolCallId on the wire: the Strands id, unless this run already showed that id

    def __post_init__(self) -> None:
        self.wire_id = self.wire_id or self.tool_use_id

    @property
    def args(self) -> str:
        return "".join(self.chunks)
