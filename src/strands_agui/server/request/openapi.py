"""What an app's OpenAPI document says about the run route: its responses (SSE or the protobuf framing, the
refusals before a run) and that every message needs its ``role``."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from ..transport.proto import INSTALL_HINT, PROTO_MEDIA_TYPE
from .negotiation import PRODUCED_MEDIA_TYPES, SSE_MEDIA_TYPE

_SSE_ITEM = {  # one SSE event, as FastAPI documents a generator SSE route
    "type": "object",
    "properties": {"data": {"type": "string"}, "event": {"type": "string"}, "id": {"type": "string"},
                   "retry": {"type": "integer", "minimum": 0}},
}
_PROTO_BODY = {  # the AG-UI protobuf framing (server/transport/proto): length-prefixed ag_ui.Event messages
    "type": "string", "format": "binary",
    "description": "Frames of a 4-byte big-endian length and one ag_ui.Event (@ag-ui/proto 1.0.0 schema).",
}
RUN_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"description": "The run's AG-UI events: SSE, or the protobuf framing when Accept prefers it "
                         f"(needs {INSTALL_HINT}).",
          "content": {SSE_MEDIA_TYPE: {"itemSchema": _SSE_ITEM}, PROTO_MEDIA_TYPE: {"schema": _PROTO_BODY}}},
    406: {"description": f"The Accept header allows none of: {', '.join(PRODUCED_MEDIA_TYPES)}."},
    413: {"description": "The request body is larger than the endpoint's max_body_bytes."},
    415: {"description": "The request body is not JSON (Content-Type must be application/json)."},
}
"""The run route's responses besides FastAPI's own 422."""


def document_message_roles(app: FastAPI) -> None:
    """Make the app's OpenAPI say that every message needs its ``role`` (once per app)."""
    if getattr(app.openapi, "requires_message_roles", False):
        return
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = require_message_roles(generate())
        return app.openapi_schema

    openapi.requires_message_roles = True  # type: ignore[attr-defined]
    app.openapi = openapi  # type: ignore[method-assign]


def require_message_roles(openapi: dict[str, Any]) -> dict[str, Any]:
    """Mark ``role`` required in every message schema of an OpenAPI document: ``messages`` is a union
    discriminated by ``role``, so a message without one is refused (422) although each model defaults it."""
    for schema in openapi.get("components", {}).get("schemas", {}).values():
        properties = schema.get("properties", {})
        if schema.get("title", "").endswith("Message") and "role" in properties:
            required = schema.setdefault("required", [])
            if "role" not in required:
                required.append("role")
    return openapi
