"""The messages the client holds, kept the way ``@ag-ui/client``'s reducer builds them from our events.

``MESSAGES_SNAPSHOT`` replaces the client's timeline, so a snapshot must carry every message the client
has: the run's input messages plus everything this run's events created, under the same ids. Text and
arguments are kept as lists of deltas and joined only when a snapshot is taken (deltas are the hot path).

Activity messages (``ACTIVITY_SNAPSHOT`` appends one, or replaces the one of its id; ``ACTIVITY_DELTA`` patches
it) are held too, where the client put them (``held``: what a server-side thread keeps), but no snapshot carries
them: a snapshot without activity messages leaves the client's own where they are (``@ag-ui/client``), so a card
this run showed is never dropped by a correction.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import jsonpatch
from ag_ui.core import ActivityDeltaEvent, ActivitySnapshotEvent, BaseEvent, ToolMessage

from .results import wire_text


@dataclass
class _ToolCall:
    id: str
    name: str
    args: list[str] = field(default_factory=list)

    def dump(self) -> dict[str, Any]:
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": "".join(self.args)}}


@dataclass
class _Message:
    id: str
    role: str
    text: list[str] | None = None
    tool_calls: list[_ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None
    parts: list[dict[str, Any]] | None = None  # a tool message's content parts (media results)
    error: str | None = None
    metadata: dict[str, Any] | None = None
    owner: str | None = None  # the subagentRunId of the subagent that produced it
    activity: tuple[str, Any] | None = None  # an activity message's (activityType, content)

    def dump(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "role": self.role}
        if self.owner is not None:
            out["subagentRunId"] = self.owner
        if self.activity is not None:
            out["activityType"], out["content"] = self.activity
        if self.parts is not None:
            out["content"] = self.parts
        elif self.text is not None:
            out["content"] = "".join(self.text)
        if self.tool_calls:
            out["toolCalls"] = [call.dump() for call in self.tool_calls]
        if self.tool_call_id is not None:
            out["toolCallId"] = self.tool_call_id
        if self.error is not None:
            out["error"] = self.error
        if self.metadata:
            out["metadata"] = self.metadata
        return out


def _answers(messages: Sequence[Any]) -> tuple[set[Any], list[str]]:
    """The tool call ids tool messages of ``messages`` answer, and the assistant calls none answers. A list
    that starts with the messages of one checked before (the same objects: a server-side thread's next run, see
    :func:`remember_answers`) is read from where that one ended."""
    start, answered, calls = 0, set(), []
    key = id(messages[0]) if messages else None
    with _ANSWERS_LOCK:
        seen = _ANSWERS.get(key) if key is not None else None
    if seen is not None and len(seen[0]) <= len(messages) and messages[:len(seen[0])] == seen[0]:
        start, answered, calls = len(seen[0]), set(seen[1]), list(seen[2])  # a list compares identity first, in C
    for message in messages[start:]:
        role = getattr(message, "role", None)
        if role == "tool":
            answered.add(getattr(message, "tool_call_id", None))
        elif role == "assistant":
            calls += [call.id for call in getattr(message, "tool_calls", None) or ()]
    pending = [call for call in calls if call not in answered]
    if seen is not None:
        with _ANSWERS_LOCK:
            _ANSWERS[key] = (list(messages), answered, pending, messages[0])  # type: ignore[index]
    return answered, pending


def remember_answers(messages: Sequence[Any]) -> None:
    """Keep what :meth:`ClientMessages.answer_unanswered` learns of lists starting with ``messages[0]`` (a
    server-side thread's stored messages, the same objects run after run), so the next run on the thread reads
    only what was added: a few ns per earlier message instead of a pass over the thread. At most
    ``REMEMBERED`` threads (least recently used first out); never for a client that sends its whole history."""
    if not messages:
        return
    with _ANSWERS_LOCK:
        if id(messages[0]) not in _ANSWERS:
            _ANSWERS[id(messages[0])] = ([], set(), [], messages[0])  # nothing checked yet; holds the key's object
        _ANSWERS.move_to_end(id(messages[0]))
        while len(_ANSWERS) > REMEMBERED:
            _ANSWERS.popitem(last=False)


REMEMBERED = 64  # as many threads as ``runtime/storage/thread_layout.CACHED_THREADS``
_ANSWERS: OrderedDict[int, tuple[list[Any], set[Any], list[str], Any]] = OrderedDict()
_ANSWERS_LOCK = threading.Lock()


class ClientMessages:
    """Mirror of the client's message list for one run (reasoning messages are left to the client)."""

    def __init__(self, input_messages: Sequence[Any]) -> None:
        self._input = input_messages
        self._created: list[_Message] = []
        self._calls: dict[str, tuple[_Message, _ToolCall]] = {}
        self._shown_call_ids: set[str] = set()  # every toolCallId this run announced, retracted ones included
        self._adopted = False  # an input activity message was taken into the run's own (``_adopt``)

    def answer_unanswered(self, new_id: Callable[[], str], text: str) -> bool:
        """Give each input tool call no tool message answers an error tool message saying ``text`` (what the
        model is told, ``runtime/building/conversation.py``; its content a JSON string, as every tool result of ours),
        right after its assistant message: a new message instead of a resume abandons those calls, and the client
        is shown so. True when any was added (idempotent)."""
        answered, pending = _answers(self._input)
        if not pending:
            return False  # the common case, without copying the thread
        out: list[Any] = []
        for message in self._input:
            out.append(message)
            calls = getattr(message, "tool_calls", None) if getattr(message, "role", None) == "assistant" else None
            out.extend(ToolMessage(id=new_id(), role="tool", tool_call_id=call.id, content=wire_text(text),
                                   error=text) for call in calls or () if call.id not in answered)
        added = len(out) > len(self._input)
        self._input = out
        return added

    def open_text(self, message_id: str, owner: str | None = None) -> list[str]:
        """Start an assistant text message; returns the list its deltas are appended to."""
        message = _Message(message_id, "assistant", text=[], owner=owner)
        self._created.append(message)
        return message.text  # type: ignore[return-value]

    def fresh_tool_call_id(self, tool_call_id: str) -> str:
        """``tool_call_id``, or a suffixed variant when this run already announced a call under that id (a
        retracted one too: the protocol never lets an id be started twice)."""
        wire_id, n = tool_call_id, 1
        while wire_id in self._shown_call_ids:
            n += 1
            wire_id = f"{tool_call_id}-{n}"
        return wire_id

    def open_tool_call(self, tool_call_id: str, name: str, parent_message_id: str | None,
                       owner: str | None = None) -> list[str]:
        """Attach a tool call to its parent message (or a new one named after it); returns its args list."""
        parent = next((m for m in self._created if m.id == parent_message_id), None)
        if parent is None:
            parent = _Message(parent_message_id or tool_call_id, "assistant", owner=owner)
            self._created.append(parent)
        call = _ToolCall(tool_call_id, name)
        self._shown_call_ids.add(tool_call_id)
        parent.tool_calls.append(call)
        self._calls[tool_call_id] = (parent, call)
        return call.args

    def tool_result(self, message_id: str, tool_call_id: str, content: str | list[dict[str, Any]],
                    error: str | None = None, owner: str | None = None) -> None:
        """Insert a tool message after its assistant message and the tool messages already following it."""
        result = _Message(message_id, "tool", tool_call_id=tool_call_id, error=error, owner=owner)
        if isinstance(content, str):
            result.text = [content]
        else:
            result.parts = content
        parent = self._calls.get(tool_call_id, (None, None))[0]
        if parent is None:
            self._created.append(result)
            return
        index = self._created.index(parent) + 1
        while index < len(self._created) and self._created[index].role == "tool":
            index += 1
        self._created.insert(index, result)

    def set_arguments(self, tool_call_id: str, arguments: str) -> None:
        """The arguments a call ran with, replacing those the model streamed (a hook transformed them)."""
        found = self._calls.get(tool_call_id)
        if found is not None:
            found[1].args[:] = [arguments]

    def text_of(self, message_id: str) -> str:
        """The text the client holds for one of this run's messages."""
        message = self._find(message_id)
        return "".join(message.text or ()) if message is not None else ""

    def set_text(self, message_id: str, text: str) -> None:
        """Replace the text of one of this run's messages (the next snapshot carries it)."""
        message = self._find(message_id)
        if message is not None:
            message.text = [text]

    def set_metadata(self, message_id: str, metadata: dict[str, Any]) -> None:
        message = self._find(message_id)
        if message is not None:
            message.metadata = {**(message.metadata or {}), **metadata}

    def retract(self, ids: Sequence[str]) -> None:
        """Remove this run's messages and tool calls named in ``ids`` (and assistant messages left empty)."""
        gone = set(ids)
        for message in self._created:
            message.tool_calls = [call for call in message.tool_calls if call.id not in gone]
        self._created = [m for m in self._created if m.id not in gone and (m.role != "assistant" or m.text is not None
                                                                           or m.tool_calls)]
        for call_id in gone:
            self._calls.pop(call_id, None)

    def _find(self, message_id: str) -> _Message | None:
        return next((m for m in self._created if m.id == message_id), None)

    def activity(self, event: BaseEvent) -> None:
        """An ``ACTIVITY_SNAPSHOT`` or ``ACTIVITY_DELTA`` the client applies (a delta of an activity message it does
        not hold, or a patch that does not apply, changes nothing there either)."""
        if not isinstance(event, ActivitySnapshotEvent | ActivityDeltaEvent):
            return
        message = self._find(event.message_id) or self._adopt(event.message_id)
        if isinstance(event, ActivitySnapshotEvent):
            if message is None:
                message = _Message(event.message_id, "activity", owner=event.subagent_run_id)
                self._created.append(message)
            if message.activity is None or event.replace is not False:
                message.activity = (event.activity_type, event.content)
            return
        if message is None or message.activity is None:
            return
        patch = [op.model_dump(mode="json", by_alias=True, exclude_unset=True) for op in event.patch]
        try:
            message.activity = (event.activity_type, jsonpatch.apply_patch(message.activity[1], patch))
        except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException):
            return

    def _adopt(self, message_id: str) -> _Message | None:
        """An input activity message of ``message_id``, taken into the run's own (in its place) to change it."""
        for index, given in enumerate(self._input):
            if getattr(given, "id", None) == message_id and getattr(given, "role", None) == "activity":
                message = _Message(message_id, "activity", owner=getattr(given, "subagent_run_id", None),
                                   activity=(given.activity_type, given.content))
                self._input = [*self._input[:index], message, *self._input[index + 1:]]
                self._adopted = True
                return message
        return None

    def snapshot(self) -> list[Any]:
        """Input messages, then the run's own, as a MESSAGES_SNAPSHOT carries them: no activity message (one pass
        over them, as the snapshot's encoding makes anyway)."""
        return [m for m in self.held() if (m.get("role") if isinstance(m, dict) else getattr(m, "role", None))
                != "activity"]

    def held(self) -> list[Any]:
        """Every message the client holds: the input's, then the run's own, activity messages among them."""
        given = self._input if not self._adopted else [m.dump() if isinstance(m, _Message) else m for m in self._input]
        return [*given, *(message.dump() for message in self._created)]
