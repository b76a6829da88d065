"""Tool results as the client sees them: Strands result content -> text, text -> data for hooks."""

from __future__ import annotations

import ast
import base64
import json
from collections.abc import Mapping
from typing import Any

UNANSWERED = "No result was returned for this tool call."
"""The error result of a tool call the client's messages never answered (a pause abandoned for a new message):
the model reads it (``runtime/building/conversation.py``) and the client is shown it (``snapshot.ClientMessages``)."""


def result_text(content: Any) -> str:
    """The text of a Strands ``toolResult.content`` list: text blocks as they are, JSON blocks dumped,
    media blocks described (their bytes stay on the server)."""
    if not isinstance(content, list):
        return "" if content is None else str(content)
    return "\n".join(_block_text(block) for block in content if isinstance(block, Mapping))


def wire_result(content: Any) -> str:
    """What ``TOOL_CALL_RESULT.content`` and the tool message carry for a Strands ``toolResult.content`` list,
    encoded as upstream ``ag_ui_strands`` encodes it (``_extract_tool_result_data`` then
    ``_serialize_tool_result_data``), so a renderer written for upstream can ``JSON.parse`` it: compact JSON
    (``,`` and ``:`` separators, Unicode kept) of the result's value, the value being its text parsed as JSON
    (or as JSON once single quotes are double quotes), else the text itself, a JSON string. No content is ``""``.
    One difference: the text is every block's (:func:`result_text`), where upstream keeps only the last text
    block (docs/events.md, "Tool results")."""
    if not isinstance(content, list) or not any(isinstance(block, Mapping) for block in content):
        return "" if content is None or isinstance(content, list) else wire_text(str(content))
    return wire_text(result_text(content))


def wire_text(text: str) -> str:
    """``text`` as :func:`wire_result` encodes a result's text: the JSON it holds re-dumped compact, else the
    text as a JSON string. A value JSON cannot carry (``NaN``, ``1e999``) stays text."""
    for candidate in (text, text.replace("'", '"')) if "'" in text else (text,):
        try:
            return json.dumps(json.loads(candidate), separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        except (ValueError, RecursionError):
            continue
    return json.dumps(text, ensure_ascii=False)


def _block_text(block: Mapping[str, Any]) -> str:
    if isinstance(block.get("text"), str):
        return str(block["text"])
    if "json" in block:
        return json.dumps(block["json"], ensure_ascii=False)
    for kind in ("image", "document", "video"):
        media = block.get(kind)
        if isinstance(media, Mapping):
            return f"[{kind}: {media.get('format', 'unknown')}, {_media_size(media)} bytes]"
    return json.dumps(block, ensure_ascii=False, default=str)


def _media_size(media: Mapping[str, Any]) -> int:
    return len(raw_bytes((media.get("source") or {}).get("bytes")) or b"")


def raw_bytes(value: Any) -> bytes | None:
    """Bytes Strands holds: live bytes, or a recorded log's ``__bytes_encoded__`` marker
    (``strands.types.session.encode_bytes_values``); None for anything else."""
    if isinstance(value, bytes | bytearray):
        return bytes(value)
    if isinstance(value, Mapping) and value.get("__bytes_encoded__"):
        return base64.b64decode(str(value.get("data", "")))
    return None


def parse_result(text: str) -> Any:
    """Parse a result tolerantly: JSON, then a Python literal (single-quoted JSON), else the text itself."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text


MIME_TYPES: dict[str, str] = {
    "png": "image/png", "jpeg": "image/jpeg", "jpg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
    "pdf": "application/pdf", "csv": "text/csv", "doc": "application/msword",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xls": "application/vnd.ms-excel", "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "html": "text/html", "txt": "text/plain", "md": "text/markdown",
    "mp4": "video/mp4", "mov": "video/quicktime", "mkv": "video/x-matroska", "webm": "video/webm",
    "flv": "video/x-flv", "mpeg": "video/mpeg", "mpg": "video/mpeg", "three_gp": "video/3gpp", "wmv": "video/x-ms-wmv",
}


def result_content(content: Any, text: str) -> str | list[dict[str, Any]]:
    """What TOOL_CALL_RESULT carries: ``text`` (:func:`result_text` of ``content``), or, when the
    result holds media with its bytes, AG-UI content parts in order (text and JSON blocks as text parts,
    media as image/document/video parts)."""
    blocks = [b for b in content if isinstance(b, Mapping)] if isinstance(content, list) else []
    if not any(_media_bytes(b) is not None for b in blocks):
        return text
    parts: list[dict[str, Any]] = []
    for block in blocks:
        data = _media_bytes(block)
        if data is None:
            parts.append({"type": "text", "text": _block_text(block)})
            continue
        kind, media = next((k, block[k]) for k in ("image", "document", "video") if isinstance(block.get(k), Mapping))
        fmt = str(media.get("format", ""))
        part: dict[str, Any] = {"type": kind, "source": {"type": "data", "value": data,
                                                         "mimeType": MIME_TYPES.get(fmt, "application/octet-stream")}}
        if kind == "document" and media.get("name"):
            part["metadata"] = {"name": media["name"]}
        parts.append(part)
    return parts


def _media_bytes(block: Mapping[str, Any]) -> str | None:
    """The base64 bytes of a media block (live bytes or a recorded log's marker), or None."""
    for kind in ("image", "document", "video"):
        media = block.get(kind)
        if not isinstance(media, Mapping):
            continue
        raw = raw_bytes((media.get("source") or {}).get("bytes"))
        if raw is not None:
            return base64.b64encode(raw).decode("ascii")
    return None


def complete_json(text: str) -> str | None:
    """The shortest suffix found that makes a truncated JSON text parse ("" when it already does), or None."""
    if _parses(text):
        return ""
    closers, in_string, escaped, hex_left = _open_brackets(text)
    string_ends = ['\\"' if escaped else "0" * hex_left + '"'] if in_string else [""]
    fills = ["", "null", ": null", '"":null', "0", "e", "ue", "rue", "l", "ll", "ull", "se", "lse", "alse"]
    for end in string_ends:
        for fill in fills:
            for extra in ("", ": null" if end else ""):
                suffix = end + extra + fill + closers
                if _parses(text + suffix):
                    return suffix
    return None


def _open_brackets(text: str) -> tuple[str, bool, bool, int]:
    """The brackets to close, whether a string is open, after a backslash, and how many hex digits of a
    ``\\uXXXX`` escape are missing."""
    stack: list[str] = []
    in_string = escaped = False
    hex_left = 0
    for char in text:
        if in_string:
            if hex_left:
                hex_left -= 1
            elif escaped:
                escaped = False
                hex_left = 4 if char == "u" else 0
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append("}" if char == "{" else "]")
        elif char in "}]" and stack:
            stack.pop()
    return "".join(reversed(stack)), in_string, escaped, hex_left


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
