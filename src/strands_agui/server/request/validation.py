"""Request validation for the run route: everything that can be known bad before a run starts is refused here,
with a 4xx whose body says what is wrong, so an accepted request always streams RUN_STARTED first.

Three layers, all FastAPI machinery:

* **Reading the body** (:class:`LimitedRoute`, FastAPI's documented custom ``APIRoute``/``Request`` hook). The body
  is read up to ``max_body_bytes`` (413 ``{"detail": ...}``, the same JSON whether or not ``Content-Length``
  was sent) and parsed by ``pydantic_core.from_json``, which refuses invalid UTF-8 and lone surrogates. Too
  deep a document, or a U+0000 in any string, is refused as well. Each of these is a JSON error: FastAPI
  answers 422 ``json_invalid`` with the reason in ``ctx.error``.
* **The schema**: pydantic validates ``RunAgentInput`` (422 naming the field), once what a newer client sends that
  this server does not know (a message role, a content part type) was skipped with a logged warning
  (``server/request/forward_compat.py``).
* **What the schema cannot say** (:func:`validated_run_input`, a dependency run after the caller's own
  dependencies): message count, base64 media data, image, document, video and audio types (no media part is
  ever dropped: what passes here reaches the model), provider ``file`` handles, video or audio in a tool result,
  media URLs (refused unless the endpoint has a ``fetch_media`` policy; then fetched here, see
  ``server/request/media.py``), tool names and JSON
  schemas, and tool results that answer no tool call. 422, in pydantic's error format.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from typing import Any

import pydantic_core
from ag_ui.core import AssistantMessage, ReasoningMessage, RunAgentInput, ToolMessage, UserMessage
from fastapi import HTTPException, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from jsonschema import SchemaError
from jsonschema.validators import validator_for

from ...config import MediaFetchPolicy
from ...runtime.building.conversation import MEDIA_FORMATS, TOOL_RESULT_MEDIA
from ...runtime.server_thread import held_marker
from ..transport.streaming import RunStream
from .admission import Admission
from .forward_compat import forward_compatible
from .media import IMAGE_MAGIC, MEDIA_PARTS, fetch_parts, scheme_problem

DEFAULT_MAX_BODY_BYTES = 1_048_576
DEFAULT_MAX_MESSAGES = 1_000
DEFAULT_MAX_DEPTH = 64
PARSER_MAX_DEPTH = 200  # pydantic_core.from_json refuses deeper documents itself
IMAGE_FORMATS = tuple(mime.removeprefix("image/") for mime in IMAGE_MAGIC)  # png jpeg gif webp: Strands' ImageContent
TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")  # what the model providers accept (Bedrock, OpenAI, Anthropic)

# The id grammar (docs/security.md "Ids"): a threadId, runId or parentRunId is 1-256 characters of
# ``A-Za-z0-9_.:~+=@-`` starting with a letter, digit or ``_``: every id the server accepts is a single URL path
# segment that needs no encoding (no ``/``, ``%``, ``?``, ``#``, no ``.``/``..`` segment), a safe header value, and
# printable ASCII; store keys never rely on it (they are hashed or namespaced). UUIDs, ULIDs and the ids CopilotKit,
# ``@ag-ui/client`` and the console make all match. An interrupt id is Strands' own (``v1:<kind>:<ids>``, where a
# Swarm node's id is an agent's name, so it may hold spaces): 1-512 printable ASCII characters.
MAX_ID = 256
ID_PATTERN = r"^[A-Za-z0-9_][A-Za-z0-9_.:~+=@-]{0,255}$"
ID = re.compile(ID_PATTERN)
ID_RULE = "1-256 characters of A-Za-z0-9_.:~+=@- starting with a letter, digit or _"
MAX_INTERRUPT_ID = 512
INTERRUPT_ID = re.compile(r"[\x20-\x7e]{1,512}")
INTERRUPT_ID_RULE = "1-512 printable ASCII characters"

Error = dict[str, Any]


@dataclass(frozen=True)
class RequestLimits:
    """The run route's limits. Each is a parameter of ``add_strands_fastapi_endpoint`` / ``create_strands_app``.

    ``max_body_bytes``: request body size (413 above it). ``max_messages``: ``RunAgentInput.messages`` length
    (422). ``max_depth``: JSON nesting depth of the whole body, ``{"a": {}}`` being 2 (422); at most 200."""

    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_messages: int = DEFAULT_MAX_MESSAGES
    max_depth: int = DEFAULT_MAX_DEPTH

    def __post_init__(self) -> None:
        for name in ("max_body_bytes", "max_messages", "max_depth"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, not {value!r}")
        if self.max_depth > PARSER_MAX_DEPTH:
            raise ValueError(f"max_depth must be at most {PARSER_MAX_DEPTH}, not {self.max_depth}")


# ----------------------------------------------------------------------------- reading the body


class _LimitedRequest(Request):
    """A request whose body is read up to the limit and parsed strictly (see the module docstring)."""

    limits: RequestLimits = RequestLimits()

    async def body(self) -> bytes:
        if not hasattr(self, "_body"):
            limit = self.limits.max_body_bytes
            declared = self.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > limit:
                raise _too_large(limit)
            chunks: list[bytes] = []
            size = 0
            async for chunk in self.stream():
                size += len(chunk)
                if size > limit:
                    raise _too_large(limit)
                chunks.append(chunk)
            self._body = b"".join(chunks)
        return self._body

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = parse_json(await self.body(), self.limits)
        return self._json


def parse_json(body: bytes, limits: RequestLimits) -> Any:
    """``body`` parsed strictly (see the module docstring): ``json.JSONDecodeError`` saying why it is refused
    (not JSON, nested deeper than ``max_depth``, a U+0000); what a newer client sends that we do not know skipped
    (``forward_compat.py``). The run route's body and a WebSocket's message alike."""
    try:
        value = pydantic_core.from_json(body, allow_inf_nan=False)
    except ValueError as exc:
        reason = str(exc)
        if reason.startswith("recursion limit exceeded"):
            reason = f"nested deeper than max_depth={limits.max_depth} ({reason})"
        elif "hex escape" in reason:
            reason += " (a \\u escape must be a character: a lone surrogate is refused)"
        raise json.JSONDecodeError(f"not valid JSON: {reason}", "", 0) from None
    # the walk naming the problem only when there may be one: no ``\u0000`` escape in the bytes means no
    # NUL (the parser refuses a raw one), and the depth is counted level by level without paths
    if _NUL_ESCAPE in body or not _nested_within(value, limits.max_depth):
        problem = _json_problem(value, limits.max_depth)
        if problem:
            raise json.JSONDecodeError(problem, "", 0)
    return forward_compatible(value)


def _too_large(limit: int) -> HTTPException:
    return HTTPException(413, detail=f"The request body is larger than {limit} bytes (max_body_bytes).")


_NUL_ESCAPE = b"\\u0000"  # how a U+0000 can be written in a JSON string (a raw NUL is refused by the parser)


def _nested_within(value: Any, max_depth: int) -> bool:
    """Whether ``value`` is nested at most ``max_depth`` deep (``{"a": {}}`` being 2): one level at a time, only
    the containers kept, no path built (the fast check; :func:`_json_problem` says where)."""
    level = [value] if isinstance(value, dict | list) else []
    for _ in range(max_depth):
        if not level:
            return True
        below: list[Any] = []
        for node in level:
            below += [child for child in (node.values() if type(node) is dict else node)
                      if isinstance(child, dict | list)]
        level = below
    return not level


def _json_problem(value: Any, max_depth: int) -> str | None:
    """Why a parsed body is refused: nested deeper than ``max_depth``, or a NUL in a string. None when fine."""
    stack: list[tuple[Any, int, tuple[str | int, ...]]] = [(value, 1, ())]
    while stack:
        node, depth, path = stack.pop()
        if isinstance(node, dict | list):
            if depth > max_depth:
                return f"nested deeper than max_depth={max_depth} at {_where(path)}"
            items = node.items() if isinstance(node, dict) else enumerate(node)
            stack.extend((child, depth + 1, (*path, key)) for key, child in items)
            if isinstance(node, dict) and any("\x00" in key for key in node):
                return f"U+0000 (NUL) in a key at {_where(path)}"
        elif isinstance(node, str) and "\x00" in node:
            return f"U+0000 (NUL) in the string at {_where(path)}"
    return None


def _where(path: tuple[str | int, ...]) -> str:
    shown = ".".join(str(part) for part in path[:8])
    return ("body." + shown if shown else "body") + (" ..." if len(path) > 8 else "")


class LimitedRoute(APIRoute):
    """The run route: FastAPI's own request handling, with :class:`_LimitedRequest` reading the body, after
    admission control (``admission.py``) admitted the run: a refused one is answered before its body is read."""

    limits: RequestLimits = RequestLimits()
    media: MediaFetchPolicy | None = None  # the endpoint's fetch_media
    admission: Admission | None = None  # the endpoint's (None: every run admitted)

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        request_class = type("LimitedRequest", (_LimitedRequest,), {"limits": self.limits})
        admission = self.admission

        async def limited(request: Request) -> Response:
            if admission is None:
                return await handler(request_class(request.scope, request.receive))
            held = admission.admit()
            if isinstance(held, Response):
                return held  # 503: refused before anything of the request was read
            try:
                response = await handler(request_class(request.scope, request.receive))
            except BaseException:
                held.leave()
                raise
            if isinstance(response, RunStream):
                response.held = held  # the driver leaves it at the run's end
            else:
                held.leave()
            return response

        return limited


def run_route(limits: RequestLimits, media: MediaFetchPolicy | None = None,
              admission: Admission | None = None) -> type[APIRoute]:
    """The route class for one endpoint's limits, media fetching and admission (``route_class_override``)."""
    return type("LimitedRoute", (LimitedRoute,), {"limits": limits, "media": media, "admission": admission})


# ----------------------------------------------------------------------------- what the schema cannot say


async def validated_run_input(input_data: RunAgentInput, request: Request) -> RunAgentInput:
    """The run route's input checked beyond its schema (called by the route once FastAPI validated the body): the
    input, or 422 listing every problem found. The limits are the route's (:func:`run_route`)."""
    route = request.scope.get("route")
    errors = await run_input_problems(input_data, getattr(route, "limits", RequestLimits()),
                                      getattr(route, "media", None))
    if errors:
        raise RequestValidationError(errors)
    return input_data


async def run_input_problems(input_data: RunAgentInput, limits: RequestLimits,
                             media: MediaFetchPolicy | None) -> list[Error]:
    """Every problem of a schema-valid input (:func:`run_input_errors`), then, for an input valid otherwise, its
    media URLs fetched (``media``: the endpoint's policy); none: the input may run."""
    errors = list(run_input_errors(input_data, limits, media))
    if not errors and media is not None:  # media URLs are fetched only for an input valid otherwise
        errors = [_error(loc, why) for loc, why in await fetch_parts(input_data, media)]
    return errors


def run_input_errors(input_data: RunAgentInput, limits: RequestLimits,
                     media: MediaFetchPolicy | None = None) -> Iterator[Error]:
    """Every problem of an otherwise schema-valid input, as pydantic-style error dicts."""
    if len(input_data.messages) > limits.max_messages:
        yield _error(("messages",), f"{len(input_data.messages)} messages; at most {limits.max_messages} "
                     "(max_messages)", "too_long")
        return
    yield from id_errors(input_data)
    yield from _holds_errors(input_data)
    yield from _message_errors(input_data, media)
    yield from _tool_errors(input_data)


def id_errors(input_data: RunAgentInput) -> Iterator[Error]:
    """The ids of the input that break the id grammar (see ``ID_PATTERN``), each naming its field."""
    for field, value in (("threadId", input_data.thread_id), ("runId", input_data.run_id),
                         ("parentRunId", input_data.parent_run_id)):
        if value is not None and not ID.fullmatch(value):
            yield _error((field,), f"{field} {value[:80]!r} is not an id: {ID_RULE}", "string_pattern_mismatch")
    for index, entry in enumerate(input_data.resume or ()):
        if not INTERRUPT_ID.fullmatch(entry.interrupt_id):
            yield _error(("resume", index, "interruptId"), f"interruptId {entry.interrupt_id[:80]!r} is not an "
                         f"interrupt id: {INTERRUPT_ID_RULE}", "string_pattern_mismatch")


def _holds_errors(input_data: RunAgentInput) -> Iterator[Error]:
    """A malformed ``forwardedProps.strandsAgui.holds`` (``runtime/server_thread.held_marker``)."""
    try:
        held_marker(input_data)
    except ValueError as exc:
        yield _error(("forwardedProps", "strandsAgui", "holds"), str(exc))


def check_id(value: str, field: str) -> str:
    """``value`` when it is an id (``ID_PATTERN``), else 422 naming the path parameter ``field``."""
    if not ID.fullmatch(value):
        raise RequestValidationError([{"type": "string_pattern_mismatch", "loc": ("path", field), "input": None,
                                       "msg": f"{field} {value[:80]!r} is not an id: {ID_RULE}"}])
    return value


def _error(loc: tuple[str | int, ...], msg: str, kind: str = "value_error") -> Error:
    return {"type": kind, "loc": ("body", *loc), "msg": msg, "input": None}


def _message_errors(input_data: RunAgentInput, media: MediaFetchPolicy | None) -> Iterator[Error]:
    calls: set[str] = set()
    for index, message in enumerate(input_data.messages):
        if isinstance(message, AssistantMessage):
            for n, call in enumerate(message.tool_calls or ()):
                if call.id in calls:
                    yield _error(("messages", index, "toolCalls", n, "id"), f"tool call id {call.id!r} is used twice")
                if not TOOL_NAME.fullmatch(call.function.name):
                    yield _error(("messages", index, "toolCalls", n, "function", "name"), _bad_name(call.function.name))
                calls.add(call.id)
        elif isinstance(message, ToolMessage) and message.tool_call_id not in calls:
            yield _error(("messages", index, "toolCallId"),
                         f"{message.tool_call_id!r} answers no tool call of an earlier assistant message")
        elif isinstance(message, ReasoningMessage) and not message.content and message.encrypted_value:
            if not _is_base64(message.encrypted_value):
                yield _error(("messages", index, "encryptedValue"), "a reasoning message without content is "
                             "redacted reasoning: its encryptedValue must be base64 data")
        if isinstance(message, UserMessage | ToolMessage) and not isinstance(message.content, str):
            for n, part in enumerate(message.content):
                yield from _part_errors(part, ("messages", index, "content", n), media,
                                        in_tool_result=isinstance(message, ToolMessage))


def _part_errors(part: Any, loc: tuple[str | int, ...], media: MediaFetchPolicy | None, *,
                 in_tool_result: bool = False) -> Iterator[Error]:
    """Why a media part cannot reach the model as it is sent (none is ever dropped: ``runtime/building/conversation.py``
    maps every part this lets through)."""
    source = getattr(part, "source", None)
    if part.type not in MEDIA_PARTS or source is None:
        return
    if in_tool_result and part.type not in TOOL_RESULT_MEDIA:
        yield _error(loc, f"a tool result cannot carry {part.type}: Strands' tool results hold text, JSON, "
                          f"{' and '.join(TOOL_RESULT_MEDIA)} parts")
        return
    if source.type == "file":
        yield _error((*loc, "source"), f"{part.type}: provider file handles are not resolved by this server; send "
                                       "the bytes as base64 data (or a URL, when the endpoint fetches media)")
    elif source.type == "url":
        problem = scheme_problem(source.value, media)
        if problem:
            yield _error((*loc, "source"), f"{part.type} {problem}")
    elif source.type == "data":
        mime = source.mime_type.lower()
        if part.type == "image" and (not mime.startswith("image/") or mime.split("/")[-1] not in IMAGE_FORMATS):
            yield _error((*loc, "source", "mimeType"),
                         f"unsupported image type {source.mime_type!r}; use image/{', image/'.join(IMAGE_FORMATS)}")
        elif part.type in MEDIA_FORMATS and mime not in MEDIA_FORMATS[part.type]:
            yield _error((*loc, "source", "mimeType"), f"unsupported {part.type} type {source.mime_type!r}; use one "
                                                       f"of {', '.join(MEDIA_FORMATS[part.type])}")
        if not _is_base64(source.value):
            yield _error((*loc, "source", "value"), "not valid base64 data")


def _is_base64(value: str) -> bool:
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _tool_errors(input_data: RunAgentInput) -> Iterator[Error]:
    names: set[str] = set()
    for index, tool in enumerate(input_data.tools or ()):
        if not TOOL_NAME.fullmatch(tool.name):
            yield _error(("tools", index, "name"), _bad_name(tool.name))
        elif tool.name in names:
            yield _error(("tools", index, "name"), f"tool name {tool.name!r} is declared twice")
        names.add(tool.name)
        if tool.parameters is not None:
            problem = schema_problem(tool.parameters)
            if problem:
                yield _error(("tools", index, "parameters"), problem)


def _bad_name(name: str) -> str:
    return f"tool name {name!r} must be 1-64 letters, digits, '_' or '-'"


def schema_problem(schema: Any) -> str | None:
    """Why ``schema`` cannot be a tool's input schema: not a JSON object, not a valid JSON Schema (its own
    ``$schema`` dialect, else 2020-12), or a ``type`` other than object. None when it can."""
    if not isinstance(schema, dict):
        return f"a tool's parameters must be a JSON Schema object, not {type(schema).__name__}"
    try:
        validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(part) for part in exc.path)
        return f"not a valid JSON Schema{f' at {where}' if where else ''}: {exc.message}"
    if schema.get("type", "object") != "object":
        return f"a tool's parameters must describe an object (type 'object'), not {schema.get('type')!r}"
    return None

