"""Tool results as the client sees them: Strands result content -> text, text -> data for hooks."""

from __future__ import annotations

import ast
import base64
import json
from collections.abc import Mapping
from typing import Any


def result_text(content: Any) -> str:
    """The text of a Strands ``toolResult.content`` list: text blocks as they are, JSON blocks dumped,
    media blocks described (their bytes stay on the server)."""
    if not isinstance(content, list):
        return "" if content is None else str(content)
    return "\n".join(_block_text(block) for block in content if isinstance(block, Mapping))


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
    raw = (media.get("source") or {}).get("bytes")
    if isinstance(raw, bytes | bytearray):
        return len(raw)
    if isinstance(raw, Mapping) and raw.get("__bytes_encoded__"):
        return len(base64.b64decode(str(raw.get("data", ""))))
    return 0


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
