"""The AG-UI protobuf framing (``Accept: application/vnd.ag-ui.event+proto``), as ``@ag-ui/client`` reads it.

A stream is a sequence of frames, each a 4-byte big-endian length and one serialized ``ag_ui.Event``
(``agui_v1/events.proto``, the schema of ``@ag-ui/proto`` 1.0.0). The client takes this framing only when the
response's Content-Type is exactly :data:`PROTO_MEDIA_TYPE`, and refuses a frame over :data:`MAX_FRAME_BYTES`.

``protobuf`` is an optional dependency (``pip install 'strands-agui[proto]'``): without it, or with a runtime
older than the generated code needs, :func:`available` is False and the endpoint does not offer the media
type (a request that accepts only it gets 406).
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from ag_ui.core import BaseEvent
from ag_ui.encoder import AGUI_MEDIA_TYPE

PROTO_MEDIA_TYPE = AGUI_MEDIA_TYPE  # "application/vnd.ag-ui.event+proto"
MAX_FRAME_BYTES = 10 * 1024 * 1024  # @ag-ui/client's limit for one message
INSTALL_HINT = "pip install 'strands-agui[proto]'"

logger = logging.getLogger(__name__)


@functools.cache
def available() -> bool:
    """Whether ``protobuf`` is installed in a version the generated schema code runs on."""
    try:
        from . import codec  # noqa: F401
    except Exception as exc:  # noqa: BLE001 - ImportError, or protobuf's VersionError for an old runtime
        logger.debug("protobuf framing unavailable: %s", exc)
        return False
    return True


def proto_frame(event: BaseEvent) -> bytes:
    """One frame: the event's length-prefixed ``ag_ui.Event``. Raises ``ValueError`` for an event the schema
    cannot carry or a message larger than the client reads."""
    from .codec import encode

    return length_prefixed(encode(event.model_dump(mode="json", by_alias=True)))


def length_prefixed(payload: bytes) -> bytes:
    """One frame of an encoded ``ag_ui.Event``; ``ValueError`` when it is larger than the client reads."""
    if len(payload) > MAX_FRAME_BYTES:
        raise ValueError(f"the encoded event is {len(payload)} bytes; @ag-ui/client reads at most {MAX_FRAME_BYTES}")
    return len(payload).to_bytes(4, "big") + payload


def decode_frames(body: bytes) -> list[dict[str, Any]]:
    """The events (JSON dicts, as SSE would carry them) of a whole proto-framed body. Raises ``ValueError``
    for a body that ends mid-frame or a frame that holds no known event."""
    from .codec import decode

    events, offset = [], 0
    while offset < len(body):
        if len(body) - offset < 4:
            raise ValueError(f"the body ends mid-frame: {len(body) - offset} trailing bytes")
        size = int.from_bytes(body[offset:offset + 4], "big")
        end = offset + 4 + size
        if end > len(body):
            raise ValueError(f"the body ends mid-frame: a {size}-byte message has {len(body) - offset - 4} bytes")
        events.append(decode(body[offset + 4:end]))
        offset = end
    return events
