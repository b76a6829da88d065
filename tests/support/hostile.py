"""The battery of bad requests (``tests/server/test_hostile_input.py`` sends each to a live server; ``test_security.py``
checks the README's refusals table against it): each case, the status it must get and a fragment of the ``detail``
saying what is wrong."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from strands_agui.server.request.validation import DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH, DEFAULT_MAX_MESSAGES
from tests.support.wire import PNG, SSE_HEADERS, body, image, user


def call(call_id: str = "c-1", name: str = "get_weather") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


def assistant(*calls: dict[str, Any], message_id: str = "a-1") -> dict[str, Any]:
    return {"id": message_id, "role": "assistant", "toolCalls": list(calls)}


def tool_result(call_id: str = "c-1", content: Any = "ok") -> dict[str, Any]:
    return {"id": f"tool-{call_id}", "role": "tool", "toolCallId": call_id, "content": content}


def tool(parameters: Any = None, name: str = "pick_color") -> dict[str, Any]:
    spec: dict[str, Any] = {"name": name, "description": "Pick a color."}
    if parameters is not None:
        spec["parameters"] = parameters
    return spec


def nested(depth: int) -> Any:
    value: Any = {}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


def raw(obj: Any) -> bytes:
    """JSON bytes exactly as given: escapes such as ``\\ud800`` are written by hand, never by an encoder."""
    return obj if isinstance(obj, bytes) else json.dumps(obj).encode()


@dataclass(frozen=True)
class Case:
    name: str
    status: int
    says: str  # a fragment the response body must contain: what is wrong
    content: bytes | None = None
    method: str = "POST"
    path: str = "/"
    headers: dict[str, str] = field(default_factory=lambda: dict(SSE_HEADERS))
    chunked: bool = False


def post(name: str, status: int, says: str, payload: Any, **kwargs: Any) -> Case:
    return Case(name, status, says, raw(payload), **kwargs)


BASE = json.dumps(body())
MANY = [user(f"m{i}") | {"id": f"u-{i}"} for i in range(DEFAULT_MAX_MESSAGES + 1)]
CASES: list[Case] = [
    # malformed bodies
    post("empty body", 422, "Field required", b""),
    post("truncated JSON", 422, "JSON", b'{"threadId": "t-1", "runId"'),
    post("JSON null", 422, "valid dictionary", b"null"),
    post("JSON array", 422, "valid dictionary", b"[]"),
    post("JSON string", 422, "valid dictionary", b'"run"'),
    post("JSON number", 422, "valid dictionary", b"42"),
    post("trailing garbage", 422, "trailing characters", BASE.encode() + b" garbage"),
    post("two documents", 422, "trailing characters", BASE.encode() * 2),
    post("not UTF-8", 422, "invalid unicode", b'{"threadId": "\xff\xfe", "runId": "r", "messages": []}'),
    post("UTF-16", 422, "not valid JSON", BASE.encode("utf-16")),
    post("UTF-8 encoded surrogate", 422, "not valid JSON", BASE.replace("hi", "\\ud800").encode()[:-3]
         + b'\xed\xa0\x80"}]}'),
    post("NaN", 422, "not valid JSON", BASE.replace('"t-1"', "NaN").encode()),
    post("Infinity in state", 422, "not valid JSON", BASE[:-1].encode() + b', "state": {"x": Infinity}}'),
    post("single quotes", 422, "not valid JSON", BASE.replace('"', "'").encode()),
    post("comment", 422, "not valid JSON", b"/* run */" + BASE.encode()),
    # huge
    post("body over the limit (Content-Length)", 413, "max_body_bytes", b" " * (DEFAULT_MAX_BODY_BYTES + 1)),
    post("body over the limit (chunked)", 413, "max_body_bytes", b" " * (DEFAULT_MAX_BODY_BYTES + 1), chunked=True),
    post("huge text over the limit", 413, "max_body_bytes", body(messages=[user("x" * DEFAULT_MAX_BODY_BYTES)])),
    post("thousands of messages", 422, "max_messages", body(messages=MANY)),
    # deep nesting
    post("array nested 5,000 deep", 422, "max_depth", b"[" * 5000 + b"]" * 5000),
    post("state nested 300 deep", 422, "max_depth", body(state=nested(300))),
    post("state one level too deep", 422, "max_depth", body(state=nested(DEFAULT_MAX_DEPTH))),
    post("forwardedProps nested 100 deep", 422, "max_depth", body(forwardedProps=nested(100))),
    post("tool parameters nested 150 deep", 422, "max_depth", body(tools=[tool(nested(150))])),
    # wrong types
    post("threadId is a number", 422, "threadId", body(threadId=7)),
    post("runId is null", 422, "runId", body(runId=None)),
    post("threadId missing", 422, "threadId", {k: v for k, v in body().items() if k != "threadId"}),
    post("messages missing", 422, "messages", {"threadId": "t-1", "runId": "r-1"}),
    post("messages is an object", 422, "messages", body(messages={"id": "u-1"})),
    post("message content is a number", 422, "content", body(messages=[user(5)])),
    post("message id missing", 422, "id", body(messages=[{"role": "user", "content": "hi"}])),
    post("tools is a string", 422, "tools", body(tools="get_weather")),
    post("tool without name", 422, "name", body(tools=[{"description": "x"}])),
    post("context is a string", 422, "context", body(context="be nice")),
    post("resume is an object", 422, "resume", body(resume={"interruptId": "i"})),
    post("resume status unknown", 422, "status", body(resume=[{"interruptId": "i", "status": "maybe"}])),
    post("tool call without function", 422, "function",
         body(messages=[{"id": "a", "role": "assistant", "toolCalls": [{"id": "c", "type": "function"}]}])),
    post("tool call of another type", 422, "function",
         body(messages=[assistant(call() | {"type": "retrieval"})])),
    # roles
    # (a role this server does not know is skipped, not refused: tests/server/request/test_forward_compat.py)
    post("role is a list", 422, "role", body(messages=[user("hi") | {"role": ["user"]}])),
    post("message without role", 422, "role", body(messages=[{"id": "u-1", "content": "hi"}])),
    post("empty role", 422, "role", body(messages=[user("hi") | {"role": ""}])),
    post("role is a number", 422, "role", body(messages=[user("hi") | {"role": 1}])),
    # tool-call ids
    post("result for an unknown call", 422, "answers no tool call",
         body(messages=[user("hi"), tool_result("nope")])),
    post("result before its call", 422, "answers no tool call",
         body(messages=[user("hi"), tool_result("c-1"), assistant(call("c-1"))])),
    post("one call id used twice", 422, "used twice",
         body(messages=[user("hi"), assistant(call("c-1"), call("c-1"))])),
    post("a call id reused by a later turn", 422, "used twice",
         body(messages=[assistant(call("c-1")), tool_result("c-1"), assistant(call("c-1"), message_id="a-2")])),
    post("historical call of an unnamable tool", 422, "tool name",
         body(messages=[assistant(call(name="")), tool_result(), user("hi") | {"id": "u-2"}])),
    # multimodal parts
    post("invalid base64 image", 422, "base64", body(messages=[user([image("!!!not base64")])])),
    post("truncated base64 image", 422, "base64", body(messages=[user([image(PNG[:-3])])])),
    post("image that is HTML", 422, "unsupported image type", body(messages=[user([image(mime="text/html")])])),
    post("SVG image", 422, "unsupported image type", body(messages=[user([image(mime="image/svg+xml")])])),
    post("image URL (fetching is off)", 422, "not fetched",
         body(messages=[user([image("http://169.254.169.254/latest/meta-data", kind="url")])])),
    post("document URL (fetching is off)", 422, "not fetched",
         body(messages=[user([{"type": "document", "source": {"type": "url", "value": "file:///etc/passwd"}}])])),
    post("executable as a document", 422, "unsupported document type", body(messages=[user([
        {"type": "document", "source": {"type": "data", "value": PNG, "mimeType": "application/x-msdownload"}}])])),
    post("redacted reasoning that is not base64", 422, "base64", body(messages=[
        {"id": "r-1", "role": "reasoning", "content": "", "encryptedValue": "%%%"}, user("hi")])),
    post("bad base64 in a tool result", 422, "base64",
         body(messages=[assistant(call()), tool_result(content=[image("%%%")])])),
    post("part type is a number", 422, "content", body(messages=[user([{"type": 3, "data": "x"}])])),
    post("empty part type", 422, "content", body(messages=[user([{"type": "", "data": "x"}])])),
    post("image part without source", 422, "source", body(messages=[user([{"type": "image"}])])),
    # frontend tool declarations
    post("schema with properties 5", 422, "not a valid JSON Schema",
         body(tools=[tool({"type": "object", "properties": 5})])),
    post("schema is a string", 422, "JSON Schema object", body(tools=[tool("object")])),
    post("schema is true", 422, "JSON Schema object", body(tools=[tool(True)])),
    post("schema of a string", 422, "describe an object", body(tools=[tool({"type": "string"})])),
    post("schema type unknown", 422, "not a valid JSON Schema", body(tools=[tool({"type": "thing"})])),
    post("schema required not a list", 422, "not a valid JSON Schema",
         body(tools=[tool({"type": "object", "required": "x"})])),
    post("tool name with spaces", 422, "tool name", body(tools=[tool(name="pick a color")])),
    post("empty tool name", 422, "tool name", body(tools=[tool(name="")])),
    post("tool name of 100 characters", 422, "tool name", body(tools=[tool(name="t" * 100)])),
    post("tool name with markup", 422, "tool name", body(tools=[tool(name="<script>")])),
    post("tool declared twice", 422, "declared twice", body(tools=[tool(), tool()])),
    # NUL and lone surrogates
    post("NUL in threadId", 422, "NUL", BASE.replace("t-1", "t\\u0000").encode()),
    post("NUL in a message id", 422, "NUL", BASE.replace("u-1", "u\\u0000").encode()),
    post("NUL in text", 422, "NUL", BASE.replace('"hi"', '"h\\u0000i"').encode()),
    post("NUL in a state key", 422, "NUL", BASE[:-1].encode() + b', "state": {"k\\u0000": 1}}'),
    post("lone surrogate in threadId", 422, "surrogate", BASE.replace("t-1", "\\ud800").encode()),
    post("lone low surrogate in runId", 422, "surrogate", BASE.replace("r-1", "\\udc00").encode()),
    post("lone surrogate in text", 422, "surrogate", BASE.replace('"hi"', '"hi \\ud83d"').encode()),
    post("reversed surrogate pair", 422, "surrogate", BASE.replace('"hi"', '"\\ude00\\ud83d"').encode()),
    # headers
    post("Accept application/json", 406, "text/event-stream", body(),
         headers={**SSE_HEADERS, "Accept": "application/json"}),
    post("Accept with q=0", 406, "text/event-stream", body(),
         headers={**SSE_HEADERS, "Accept": "text/event-stream;q=0"}),
    post("Accept image/*", 406, "text/event-stream", body(), headers={**SSE_HEADERS, "Accept": "image/*"}),
    post("Accept garbage", 406, "text/event-stream", body(), headers={**SSE_HEADERS, "Accept": "%%%,;;;"}),
    post("Content-Type text/plain", 415, "application/json", body(),
         headers={**SSE_HEADERS, "Content-Type": "text/plain"}),
    post("no Content-Type", 415, "application/json", body(), headers={"Accept": "text/event-stream"}),
    post("form encoded", 415, "application/json", b"threadId=t", headers={
        **SSE_HEADERS, "Content-Type": "application/x-www-form-urlencoded"}),
    post("multipart", 415, "application/json", b"--x--",
         headers={**SSE_HEADERS, "Content-Type": "multipart/form-data"}),
    # methods and paths
    Case("GET the run route", 405, "Method Not Allowed", method="GET"),
    Case("PUT the run route", 405, "Method Not Allowed", raw(body()), method="PUT"),
    Case("DELETE the run route", 405, "Method Not Allowed", method="DELETE"),
    Case("PATCH the run route", 405, "Method Not Allowed", raw(body()), method="PATCH"),
    Case("dot-dot path", 404, "Not Found", raw(body()), path="/../../etc/passwd"),
    Case("encoded dot-dot path", 404, "Not Found", raw(body()), path="/%2e%2e/%2e%2e/etc/passwd"),
    Case("NUL in the path", 404, "Not Found", raw(body()), path="/%00"),
    Case("POST the health route", 405, "Method Not Allowed", raw(body()), path="/ping"),
]
