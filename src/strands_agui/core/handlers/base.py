"""What every handler shares: the items a handler returns, and the base that binds it to its run."""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

from ag_ui.core import BaseEvent

from ...config import ToolCallContext

if TYPE_CHECKING:
    from ..translator import Translator


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


def parse_args(args: str) -> Any:
    """Tool arguments as data; text that is not JSON stays text."""
    try:
        return json.loads(args) if args else {}
    except ValueError:
        return args


class Handler:
    """One concern of one run's translation. ``run`` is the translator: the machine and the shared run state."""

    def __init__(self, run: Translator) -> None:
        self.run = run


def plain(value: Any, depth: int = 0) -> Any:
    """``value`` as plain JSON data for a RAW event: bytes as base64 (``__bytes_encoded__``, Strands' marker),
    any other object (a live agent, a span, a pydantic model) as ``{"__live__": "<class name>"}``."""
    if depth > 50:
        return {"__live__": "depth"}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, bytes | bytearray):
        return {"__bytes_encoded__": True, "data": base64.b64encode(value).decode("ascii")}
    if isinstance(value, Mapping):
        return {str(k): plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v, depth + 1) for v in value]
    return {"__live__": type(value).__name__}
