"""Content negotiation for the run route: which request bodies it reads and which media types it produces.

Every check here runs as a route dependency, before the run starts, so its status code is final before the
first byte of the stream.
"""

from __future__ import annotations

from fastapi import HTTPException, Request

SSE_MEDIA_TYPE = "text/event-stream"
PRODUCED_MEDIA_TYPES: tuple[str, ...] = (SSE_MEDIA_TYPE,)


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


def accepts(accept: str | None, media_type: str = SSE_MEDIA_TYPE) -> bool:
    """Whether an ``Accept`` header admits ``media_type``, following RFC 9110 section 12.5.1.

    The most specific matching range decides, and its q must be above 0. So
    ``text/event-stream;q=0, */*`` refuses SSE, and ``application/json, text/event-stream;q=0.5``
    admits it. A missing or blank header admits anything.
    """
    if accept is None or not accept.strip():
        return True
    best: tuple[int, float] | None = None
    for media_range, q in _media_ranges(accept):
        specificity = _specificity(media_range, media_type)
        if specificity is not None and (best is None or specificity > best[0]):
            best = (specificity, q)
    return best is not None and best[1] > 0


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


async def require_event_stream(request: Request) -> None:
    """406 unless the Accept header admits something this endpoint produces. The detail names what
    it can produce."""
    accept = ", ".join(request.headers.getlist("accept")) or None  # repeated headers form one list
    if not any(accepts(accept, media_type) for media_type in PRODUCED_MEDIA_TYPES):
        raise HTTPException(
            status_code=406,
            detail=f"Not acceptable: {accept!r}. This endpoint produces {', '.join(PRODUCED_MEDIA_TYPES)}.",
        )
