"""What a newer client sends that this server does not know: skipped or kept, never a 422, never a crash.

``RunAgentInput.messages`` is a union tagged by ``role``, and a user or tool message's list ``content`` a union
tagged by ``type``: a tag the installed ``ag_ui`` does not know fails the whole request in pydantic
(``union_tag_invalid``), so a client merely newer than the server would be refused. Before the schema is applied
(``validation._LimitedRequest.json``), :func:`forward_compatible` reduces the parsed body to what the installed
models can dispatch, with one logged warning per request naming what it did (``docs/protocol-versions.md``,
"What a newer client sends"):

* a **message whose role we do not know** is skipped: the model never sees it, and what the server holds of the
  conversation (a ``MESSAGES_SNAPSHOT`` this run sends, a server-side thread) does not hold it;
* a **content part whose type we do not know** is skipped from its message; the model sees the message's other
  parts. A user message left with no part is skipped as a whole; a tool message left with none answers its call
  with empty content (the call stays answered);
* a **field we do not know** (on the input, a message, a tool call, a content part) is kept as it came: the
  ``ag_ui`` models allow extra fields, nothing of ours reads it, the model never sees it, and it comes back as sent
  where the server returns the client's messages (``MESSAGES_SNAPSHOT``, a thread). 1.1's ``encryptedValueType`` is
  such a field, known and not warned about (``server/transport/versions.py``).

Only the tags decide: an item whose tag is known stays untouched and still fails validation when malformed, and
an item with no tag, or one not a non-empty string, is malformed, not new (pydantic-ai's AG-UI adapter,
``_forward_compat.py``, is the model). The known tags and fields are read off the installed models, so they
follow whatever ``ag_ui`` is installed.
"""

from __future__ import annotations

import logging
from typing import Any, get_args

from ag_ui.core import InputContent, Message, RunAgentInput, ToolCall
from pydantic import BaseModel

logger = logging.getLogger(__name__)

ADDED_IN_1_1 = "encryptedValueType"  # a field 1.1 adds, known here (``server/transport/versions.py``)
MAX_NAMED = 8  # what one warning names at most


def _members(union: Any) -> tuple[type[BaseModel], ...]:
    return get_args(get_args(union)[0])


def _fields(*models: type[BaseModel]) -> frozenset[str]:
    return frozenset(field.alias or name for model in models for name, field in model.model_fields.items())


def _tags(union: Any, discriminator: str) -> dict[str, frozenset[str]]:
    """Each tag of a tagged union -> the fields its member knows (``ADDED_IN_1_1`` among them)."""
    return {tag: _fields(member) | {ADDED_IN_1_1} for member in _members(union)
            for tag in get_args(member.model_fields[discriminator].annotation) if isinstance(tag, str)}


ROLES = _tags(Message, "role")
PARTS = _tags(InputContent, "type")
INPUT_FIELDS = _fields(RunAgentInput)
CALL_FIELDS = _fields(ToolCall) | {ADDED_IN_1_1}
TAGGED_CONTENT = frozenset({"user", "tool"})  # the roles whose list content is a union tagged by ``type``


def forward_compatible(body: Any) -> Any:
    """``body`` (a parsed run request) reduced to what the installed models dispatch: unknown roles and content
    parts skipped, unknown fields kept; one warning names both. Anything not shaped like a run input is left
    for the schema to refuse."""
    if type(body) is not dict or type(messages := body.get("messages")) is not list:
        return body
    skipped: list[str] = []
    unread = [f"{key!r}" for key in body if key not in INPUT_FIELDS]
    kept: list[Any] = []
    for index, message in enumerate(messages):
        if type(message) is dict and type(role := message.get("role")) is str and (known := ROLES.get(role)) \
                and message.keys() <= known and type(message.get("content")) is not list and "toolCalls" not in message:
            kept.append(message)  # the common case, one look: a known role, known fields, no parts, no calls
        elif _keep(message, f"messages[{index}]", skipped, unread):
            kept.append(message)
    if skipped or unread:
        body["messages"] = kept
        _warn(skipped, unread)
    return body


def _keep(message: Any, where: str, skipped: list[str], unread: list[str]) -> bool:
    """Whether ``message`` stays (its unknown parts removed in place); what was skipped or is unread, noted."""
    if type(message) is not dict or not isinstance(role := message.get("role"), str) or not role:
        return True  # malformed (no role, not a string, empty), not new: the schema says why
    known = ROLES.get(role)
    if known is None:
        skipped.append(f"{where}: role {role[:40]!r}")
        return False
    unread += [f"{where}.{key!r}"[:80] for key in message if key not in known]
    calls = message.get("toolCalls")
    for n, call in enumerate(calls if role == "assistant" and type(calls) is list else ()):
        if type(call) is dict:
            unread += [f"{where}.toolCalls[{n}].{key!r}"[:80] for key in call if key not in CALL_FIELDS]
    content = message.get("content")
    if role not in TAGGED_CONTENT or type(content) is not list:
        return True
    parts = [part for n, part in enumerate(content) if _keep_part(part, f"{where}.content[{n}]", skipped, unread)]
    if len(parts) == len(content):
        return True
    if not parts and role == "user":
        skipped.append(f"{where}: a user message with no part left")
        return False
    message["content"] = parts or ""
    return True


def _keep_part(part: Any, where: str, skipped: list[str], unread: list[str]) -> bool:
    if type(part) is not dict or not isinstance(kind := part.get("type"), str) or not kind:
        return True  # malformed, not new
    known = PARTS.get(kind)
    if known is None:
        skipped.append(f"{where}: part type {kind[:40]!r}")
        return False
    unread += [f"{where}.{key!r}"[:80] for key in part if key not in known]
    return True


def _warn(skipped: list[str], unread: list[str]) -> None:
    def named(items: list[str]) -> str:
        more = f" and {len(items) - MAX_NAMED} more" if len(items) > MAX_NAMED else ""
        return "; ".join(items[:MAX_NAMED]) + more

    said = []
    if skipped:
        said.append(f"skipped (this server's AG-UI does not know them): {named(skipped)}")
    if unread:
        said.append(f"kept unread (fields this server does not know): {named(unread)}")
    logger.warning("a run request from a newer client: %s", "; ".join(said))


__all__ = ["forward_compatible"]
