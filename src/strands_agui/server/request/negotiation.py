"""Content negotiation for the run route: which request bodies it reads and which media types it produces.

Every check here runs as a route dependency, before the run starts, so its status code is final before the
first byte of the stream.

The route produces SSE (``text/event-stream``) and, with ``protobuf`` installed, the AG-UI protobuf framing
(``application/vnd.ag-ui.event+proto``). The Accept header picks one by RFC 9110 quality: the most specific
range naming a type gives its q, the highest q wins, and SSE wins a tie (so ``*/*``, a missing header and
``text/event-stream, application/vnd.ag-ui.event+proto`` all get SSE).
"""

from __future__ import annotations

import functools

from fastapi import HTTPException, Request

from ..transport import proto
from ..transport.proto import PROTO_MEDIA_TYPE
from ..transport.streaming import SSE

SSE_MEDIA_TYPE = SSE.media_type  # "text/event-stream"
PRODUCED_MEDIA_TYPES: tuple[str, ...] = (SSE_MEDIA_TYPE, PROTO_MEDIA_TYPE)
"""Every media type the route can produce, in order of preference on a tie (see :func:`produced_media_types`)."""


def produced_media_types() -> tuple[str, ...]:
    """The media types this process can produce: the protobuf framing only when ``protobuf`` is installed."""
    return PRODUCED_MEDIA_TYPES if proto.available() else (SSE_MEDIA_TYPE,)


def _media_ranges(accept: str) -> list[tuple[str, float]]:
    """``(media_range, q)`` for every well-formed element of an Accept header.

    The range is lower-cased with its parameters dropped. A missing q is 1. An unparsable q is also
    taken as 1 (read leniently), and q is clamped to [0, 1].
    """
    ranges: list[tuple[str, float]] = []
    for element in accept.split(","):
        media_range, *parameters = (part.strip() for part in element.split(";"))
        if media_range.count("/") != 1:
            continue
        q = 1.0
        for parameter in parameters:
            key, _, value = parameter.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = min(max(float(value.strip()), 0.0), 1.0)
                except ValueError:
                    q = 1.0
        ranges.append((media_range.lower(), q))
    return ranges


def _specificity(media_range: str, media_type: str) -> int | None:
    """How specifically ``media_range`` names ``media_type``. ``*/*`` is 0, ``type/*`` is 1 and
    ``type/subtype`` is 2. None means the range does not match the type."""
    if media_range == "*/*":
        return 0
    kind, subtype = media_range.split("/")
    wanted_kind, wanted_subtype = media_type.split("/")
    if kind != wanted_kind:
        return None
    if subtype == "*":
        return 1
    return 2 if subtype == wanted_subtype else None


def quality(accept: str | None, media_type: str) -> float:
    """The q an ``Accept`` header gives ``media_type`` (RFC 9110 section 12.5.1): that of the most specific
    range matching it, 0 when none does. A missing or blank header gives every type 1."""
    if accept is None or not accept.strip():
        return 1.0
    best: tuple[int, float] | None = None
    for media_range, q in _media_ranges(accept):
        specificity = _specificity(media_range, media_type)
        if specificity is not None and (best is None or specificity > best[0]):
            best = (specificity, q)
    return 0.0 if best is None else best[1]


def accepts(accept: str | None, media_type: str = SSE_MEDIA_TYPE) -> bool:
    """Whether an ``Accept`` header admits ``media_type``: :func:`quality` above 0. So
    ``text/event-stream;q=0, */*`` refuses SSE, and ``application/json, text/event-stream;q=0.5``
    admits it."""
    return quality(accept, media_type) > 0


@functools.lru_cache(maxsize=256)  # asked on every request, of the few Accept headers clients send
def preferred_media_type(accept: str | None, offered: tuple[str, ...]) -> str | None:
    """The type of ``offered`` that ``accept`` rates highest, the earlier one on a tie; None when it admits
    none of them. Cached by header (a bounded LRU: a client varying its header only evicts)."""
    best, best_q = None, 0.0
    for media_type in offered:
        q = quality(accept, media_type)
        if q > best_q:
            best, best_q = media_type, q
    return best


def _is_json(content_type: str | None) -> bool:
    """``application/json`` or ``application/*+json``, with any parameters."""
    media_type = (content_type or "").split(";")[0].strip().lower()
    return media_type == "application/json" or (
        media_type.startswith("application/") and media_type.endswith("+json")
    )


async def require_json_body(request: Request) -> None:
    """415 unless the request declares a JSON body. FastAPI reads a body of any other type as raw
    bytes, which would otherwise fail validation with a misleading 422."""
    content_type = request.headers.get("content-type")
    if not _is_json(content_type):
        raise HTTPException(
            status_code=415,
            detail=f"Content-Type must be application/json (got {content_type!r}).",
        )


async def require_event_stream(request: Request) -> str:
    """The media type to answer with (:func:`preferred_media_type` of :func:`produced_media_types`), or 406
    when the Accept header admits none of them. The detail names what the endpoint produces, and how to
    install the protobuf framing when only that was acceptable."""
    accept = ", ".join(request.headers.getlist("accept")) or None  # repeated headers form one list
    produced = produced_media_types()
    chosen = preferred_media_type(accept, produced)
    if chosen is None:
        hint = "" if PROTO_MEDIA_TYPE in produced or not accepts(accept, PROTO_MEDIA_TYPE) else (
            f" {PROTO_MEDIA_TYPE} needs protobuf: {proto.INSTALL_HINT}.")
        raise HTTPException(
            status_code=406,
            detail=f"Not acceptable: {accept!r}. This endpoint produces {', '.join(produced)}.{hint}",
        )
    return chosen


async def negotiate(request: Request) -> str:
    """The run route's one content negotiation dependency: 415 unless the body is declared JSON
    (:func:`require_json_body`), then the media type to answer with, or 406 (:func:`require_event_stream`).
    One dependency, not two: FastAPI's cost per dependency is paid on every request."""
    await require_json_body(request)
    return await require_event_stream(request)
