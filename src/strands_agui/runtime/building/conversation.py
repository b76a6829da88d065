"""The frontend is the source of truth: each run rebuilds the Strands conversation from ``RunAgentInput``.

AG-UI messages become Bedrock Converse-shaped Strands messages: user text, images, documents, video and audio
(inline base64 data: a URL was fetched before, ``server/request/media.py``; anything else was refused with a 422,
``server/request/validation.py``), assistant text with ``toolUse`` blocks, tool messages (including results of frontend
tools the client ran) as ``toolResult`` blocks (text, with their image and document parts), reasoning messages as
the ``reasoningContent`` block Strands kept (see :func:`reasoning_block`). Consecutive messages of one role are
merged (the model APIs require alternation), and a tool call the client never answered gets an error result, so the
history is always one the model accepts.

The *prompt* of the run is the newest user message when it is the last message; when the conversation ends
with tool results (the client's follow-up after a frontend tool) there is no prompt and Strands continues
from the results.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ag_ui.core import AssistantMessage, Message, ReasoningMessage, RunAgentInput, ToolMessage, UserMessage

from ...core.results import UNANSWERED

DOCUMENT_FORMATS = {  # media type -> Strands' DocumentContent format
    "application/pdf": "pdf", "text/csv": "csv", "application/msword": "doc",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.ms-excel": "xls", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "text/html": "html", "text/plain": "txt", "text/markdown": "md"}
VIDEO_FORMATS = {  # media type -> Strands' VideoContent format (strands.types.media.VideoFormat)
    "video/x-flv": "flv", "video/x-matroska": "mkv", "video/quicktime": "mov", "video/mpeg": "mpeg",
    "video/mp4": "mp4", "video/3gpp": "three_gp", "video/webm": "webm", "video/x-ms-wmv": "wmv"}
AUDIO_FORMATS = {  # media type -> Strands' AudioContent format (strands.types.media.AudioFormat)
    "audio/mpeg": "mp3", "audio/mp3": "mp3", "audio/opus": "opus", "audio/wav": "wav", "audio/x-wav": "wav",
    "audio/wave": "wav", "audio/aac": "aac", "audio/x-aac": "x-aac", "audio/flac": "flac", "audio/x-flac": "flac",
    "audio/mp4": "mp4", "audio/x-m4a": "m4a", "audio/m4a": "m4a", "audio/ogg": "ogg", "audio/x-matroska": "mka",
    "audio/webm": "webm", "audio/pcm": "pcm", "audio/l16": "pcm"}
MEDIA_FORMATS = {"document": DOCUMENT_FORMATS, "video": VIDEO_FORMATS, "audio": AUDIO_FORMATS}
"""Each media part's accepted media types (images: ``server/request/validation.py``'s ``IMAGE_FORMATS``)."""
TOOL_RESULT_MEDIA = ("image", "document")
"""The media Strands' ``ToolResultContent`` holds: a tool message's other media is refused (422)."""


@dataclass(frozen=True)
class Conversation:
    """Strands history, and the new user turn (content blocks) or ``None`` to continue from tool results."""

    history: list[dict[str, Any]]
    prompt: list[dict[str, Any]] | None
    prompt_text: str


_TURNS = (UserMessage, AssistantMessage, ToolMessage, ReasoningMessage)


def conversation(input_data: RunAgentInput) -> Conversation:
    """Split the input into history and prompt (see the module docstring)."""
    messages = [m for m in input_data.messages if isinstance(m, _TURNS)]
    if messages and isinstance(messages[-1], UserMessage):
        blocks = user_blocks(messages[-1])
        return Conversation(to_strands(messages[:-1]), blocks, _text(blocks))
    if not messages:
        return Conversation([], None, "")
    return Conversation(to_strands(messages), None, "")


def last_turn(input_data: RunAgentInput) -> Conversation:
    """``conversation(input_data)`` with only the last message of its history (what its role is decides whether a
    run continues from tool results): the cost of the input's last messages, not of the whole thread."""
    messages = input_data.messages
    end = len(messages)
    while end and not isinstance(messages[end - 1], _TURNS):
        end -= 1
    final = messages[end - 1] if end else None
    if isinstance(final, UserMessage):
        blocks = user_blocks(final)
        end -= 1
        prompt: list[dict[str, Any]] | None = blocks
    else:
        prompt, blocks = None, []
    for message in reversed(messages[:end]):
        if not isinstance(message, _TURNS):
            continue
        role, content = _convert(message)
        if content:  # an assistant turn ending in tool calls is answered (``_answer_dangling_tool_uses``): a user one
            last = "user" if role == "assistant" and any("toolUse" in b for b in content) else role
            return Conversation([{"role": last, "content": content}], prompt, _text(blocks) if prompt else "")
    return Conversation([], prompt, _text(blocks) if prompt else "")


def to_strands(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """AG-UI messages as alternating Strands messages, every toolUse answered by a toolResult."""
    out: list[dict[str, Any]] = []
    for message in messages:
        role, blocks = _convert(message)
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return _answer_dangling_tool_uses(out)


def _convert(message: Message) -> tuple[str, list[dict[str, Any]]]:
    if isinstance(message, UserMessage):
        return "user", user_blocks(message)
    if isinstance(message, ToolMessage):
        status = "error" if message.error else "success"
        parts = [] if isinstance(message.content, str) else _parts(message.content)
        text = message.content if isinstance(message.content, str) else _text(parts)
        media = [block for block in parts if "text" not in block]
        content = ([{"text": message.error or text or "(empty)"}] if not media
                   else [{"text": message.error}, *media] if message.error else parts)
        return "user", [{"toolResult": {"toolUseId": message.tool_call_id, "status": status, "content": content}}]
    if isinstance(message, ReasoningMessage):
        block = reasoning_block(message)
        return "assistant", [block] if block else []
    assert isinstance(message, AssistantMessage)
    blocks: list[dict[str, Any]] = [{"text": message.content}] if message.content else []
    for call in message.tool_calls or ():
        blocks.append({"toolUse": {"toolUseId": call.id, "name": call.function.name,
                                   "input": _arguments(call.function.arguments)}})
    return "assistant", blocks


def reasoning_block(message: ReasoningMessage) -> dict[str, Any] | None:
    """The ``reasoningContent`` block a reasoning message was streamed from (``core/handlers/text.py``): with
    content, ``reasoningText`` (its ``encryptedValue`` is the signature); without, ``redactedContent`` (its
    ``encryptedValue`` is the base64 of the redacted bytes). Strands keeps both in its history and each model
    provider decides what to send back (Anthropic and Bedrock replay signed and redacted blocks)."""
    if message.content:
        text: dict[str, Any] = {"text": message.content}
        if message.encrypted_value:
            text["signature"] = message.encrypted_value
        return {"reasoningContent": {"reasoningText": text}}
    if message.encrypted_value:
        return {"reasoningContent": {"redactedContent": base64.b64decode(message.encrypted_value)}}
    return None


def user_blocks(message: UserMessage) -> list[dict[str, Any]]:
    """A user message's content blocks: its text, and its media sent inline as base64 data."""
    if isinstance(message.content, str):
        return [{"text": message.content}] if message.content else []
    return _parts(message.content)


def _parts(parts: Sequence[Any]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for part in parts:
        if part.type == "text" and part.text:
            blocks.append({"text": part.text})
        elif part.type == "image" and getattr(part.source, "type", None) == "data":
            image_format = (part.source.mime_type or "image/png").split("/")[-1]
            blocks.append({"image": {"format": image_format, "source": {"bytes": base64.b64decode(part.source.value)}}})
        elif part.type in MEDIA_FORMATS and getattr(part.source, "type", None) == "data" \
                and part.source.mime_type.lower() in MEDIA_FORMATS[part.type]:
            media: dict[str, Any] = {"format": MEDIA_FORMATS[part.type][part.source.mime_type.lower()]}
            if part.type == "document":
                media["name"] = f"document-{len(blocks) + 1}"
            media["source"] = {"bytes": base64.b64decode(part.source.value)}
            blocks.append({part.type: media})
    return blocks


def _answer_dangling_tool_uses(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for index, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        asked = [b["toolUse"]["toolUseId"] for b in message["content"] if "toolUse" in b]
        following = messages[index + 1]["content"] if index + 1 < len(messages) else None
        answered = {b["toolResult"]["toolUseId"] for b in following or () if "toolResult" in b}
        missing = [{"toolResult": {"toolUseId": i, "status": "error", "content": [{"text": UNANSWERED}]}}
                   for i in asked if i not in answered]
        if not missing:
            continue
        if following is not None and messages[index + 1]["role"] == "user":
            following[:0] = missing
        else:
            messages.insert(index + 1, {"role": "user", "content": missing})
    return messages


def _arguments(arguments: str) -> Any:
    try:
        value = json.loads(arguments) if arguments else {}
    except ValueError:
        return {"arguments": arguments}
    return value if isinstance(value, dict) else {"value": value}


def _text(blocks: Sequence[dict[str, Any]]) -> str:
    return "".join(block["text"] for block in blocks if "text" in block)
