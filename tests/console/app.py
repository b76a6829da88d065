"""The scripted app the console's browser tests drive: scripted Strands agents behind real endpoints, plus raw
SSE routes for what a page must survive or show (state patches, endless text, interrupts, subagents).

The raw routes send AG-UI events (not Strands events) so the page is tested on every shape the protocol
allows before the routes producing them exist; each raw stream is checked by both oracles in
``test_console_assets.py``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from ag_ui.core import RunAgentInput
from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse
from strands import Agent, tool

from strands_agui.runtime.adapter import StrandsAgent
from strands_agui.runtime.building.conversation import conversation
from strands_agui.server.console.page import mount_console
from strands_agui.server.endpoint import add_strands_fastapi_endpoint
from strands_agui.tooling.scripted import Cancel, Fail, ScriptedModel, Text, ToolUse

HOSTILE = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script><b>not bold</b>'
CHANGE_BACKGROUND = {
    "name": "change_background",
    "description": "Change the page's background colour.",
    "parameters": {"type": "object",
                   "properties": {"background": {"type": "string", "description": "CSS colour"}},
                   "required": ["background"]},
}


# ---- the scripted app --------------------------------------------------------------------------------------

@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return json.dumps({"city": city, "conditions": "sunny", "temperature_c": 21})


def chat_agent(input_data: RunAgentInput) -> Agent:
    """Calls change_background with the prompt's last word; after the tool message arrives, says it is done."""
    if input_data.messages and input_data.messages[-1].role == "tool":
        turn = [Text("Done: the background is now changed.", chunks=4)]
    else:
        colour = (conversation(input_data).prompt_text.split() or ["blue"])[-1]
        turn = [Text("Sure, let me change the background colour for you.", chunks=6),
                ToolUse("change_background", {"background": colour}, chunks=4)]
    return Agent(model=ScriptedModel([turn], delay=0.05), callback_handler=None)


def weather_agent(_: RunAgentInput) -> Agent:
    def script(messages: list[dict[str, Any]]) -> list[Any]:
        if any("toolResult" in block for block in messages[-1]["content"]):
            return [Text("It is sunny and 21 degrees in Paris.")]
        return [Text("Let me check the weather."), ToolUse("get_weather", {"city": "Paris"})]
    return Agent(model=ScriptedModel(script, delay=0.02), tools=[get_weather], callback_handler=None)


@tool
async def slow_lookup(query: str) -> str:
    """A lookup that takes a minute (the page's Stop ends the run first)."""
    await asyncio.sleep(60)
    return query


def slow_tool_agent(_: RunAgentInput) -> Agent:
    """Calls slow_lookup, which is still running when the user presses Stop."""
    return Agent(model=ScriptedModel([[Text("Looking it up."), ToolUse("slow_lookup", {"query": "tides"})]]),
                 tools=[slow_lookup], callback_handler=None)


def cancelling_agent(_: RunAgentInput) -> Agent:
    """The run is cancelled (``agent.cancel()``) after the model asked for a tool: the call never runs."""
    return Agent(model=ScriptedModel([[Text("Looking it up."), ToolUse("slow_lookup", {"query": "tides"}), Cancel()]]),
                 tools=[slow_lookup], callback_handler=None)


def failing_after_tool_agent(_: RunAgentInput) -> Agent:
    """get_weather runs, then the model fails on the turn that should read its result."""
    return Agent(model=ScriptedModel([[Text("Checking."), ToolUse("get_weather", {"city": "Oslo"})],
                                      [Fail(RuntimeError("model exploded after the tool"))]]),
                 tools=[get_weather], callback_handler=None)


@tool
def echo_markup(text: str) -> str:
    """Returns its argument unchanged (HTML included)."""
    return text


def hostile_agent(_: RunAgentInput) -> Agent:
    """Text and a tool result full of HTML and script, plus some real markdown."""
    return Agent(model=ScriptedModel([[Text(f"**Bold** and `code` then {HOSTILE}"),
                                       ToolUse("echo_markup", {"text": HOSTILE})],
                                      [Text(f"[a link](javascript:window.__xss=3) {HOSTILE}")]]),
                 tools=[echo_markup], callback_handler=None)


def failing_agent(_: RunAgentInput) -> Agent:
    return Agent(model=ScriptedModel([[Text("Thinking about it"), Fail(RuntimeError("boom"))]]),
                 callback_handler=None)


def sse(event: dict[str, Any]) -> str:
    return f"data: {json.dumps(event)}\n\n"


def add_endpoint(app: FastAPI, agent: StrandsAgent, path: str) -> None:
    add_strands_fastapi_endpoint(app, agent, path, inspect=True)


def raw_route(app: FastAPI, path: str, received: list[dict[str, Any]],
              script: Callable[[dict[str, Any]], list[dict[str, Any]]], delay: float = 0.02) -> None:
    """``POST path`` streams ``script(body)`` (AG-UI events, RUN_STARTED/RUN_FINISHED ids filled in)."""

    async def route(request: Request) -> StreamingResponse:
        body = await request.json()
        received.append(body)

        async def events() -> AsyncIterator[str]:
            for event in script(body):
                if event["type"] in {"RUN_STARTED", "RUN_FINISHED"}:
                    event = {"threadId": body["threadId"], "runId": body["runId"], **event}
                yield sse(event)
                await asyncio.sleep(delay)

        return StreamingResponse(events(), media_type="text/event-stream")

    app.add_api_route(path, route, methods=["POST"])


APPROVAL_SCHEMA = {"type": "object", "properties": {"approved": {"type": "boolean"}, "reason": {"type": "string"}},
                   "required": ["approved"]}


def interrupting(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A booking that asks for approval; the resume says what the human chose (the tool message arrives in a
    MESSAGES_SNAPSHOT: a run may only send TOOL_CALL_RESULT for a call it started itself)."""
    if not body.get("resume"):
        return [{"type": "RUN_STARTED"},
                {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
                {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "I will book flight **LH 123**."},
                {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
                {"type": "TOOL_CALL_START", "toolCallId": "call-1", "toolCallName": "book_flight",
                 "parentMessageId": "m1"},
                {"type": "TOOL_CALL_ARGS", "toolCallId": "call-1", "delta": '{"flight": "LH 123"}'},
                {"type": "TOOL_CALL_END", "toolCallId": "call-1"},
                {"type": "RUN_FINISHED", "outcome": {"type": "interrupt", "interrupts": [{
                    "id": "int-1", "reason": "tool_approval", "message": "Book flight LH 123 for <b>you</b>?",
                    "toolCallId": "call-1", "responseSchema": APPROVAL_SCHEMA}]}}]
    approved = body["resume"][0].get("payload", {}).get("approved") is True
    result = {"booked": approved}
    return [{"type": "RUN_STARTED"},
            {"type": "MESSAGES_SNAPSHOT", "messages": [*body["messages"], {
                "id": "r1", "role": "tool", "toolCallId": "call-1", "content": json.dumps(result)}]},
            {"type": "TEXT_MESSAGE_START", "messageId": "m2", "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2",
             "delta": "Booked: LH 123." if approved else "Not booked, as you asked."},
            {"type": "TEXT_MESSAGE_END", "messageId": "m2"},
            {"type": "RUN_FINISHED", "outcome": {"type": "success"}}]


def subagents(_: dict[str, Any]) -> list[dict[str, Any]]:
    """A swarm-like run: a researcher answers (with a tool call), a writer fails, the run is cancelled."""
    return [{"type": "RUN_STARTED"},
            {"type": "SUBAGENT_STARTED", "subagentRunId": "sa-1", "name": "researcher", "description": "finds facts"},
            {"type": "TEXT_MESSAGE_START", "messageId": "s1", "role": "assistant", "subagentRunId": "sa-1"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "s1", "delta": "Research notes", "subagentRunId": "sa-1"},
            {"type": "TEXT_MESSAGE_END", "messageId": "s1", "subagentRunId": "sa-1"},
            {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search", "parentMessageId": "s1",
             "subagentRunId": "sa-1"},
            {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '{"q": "facts"}', "subagentRunId": "sa-1"},
            {"type": "TOOL_CALL_END", "toolCallId": "c1", "subagentRunId": "sa-1"},
            {"type": "TOOL_CALL_RESULT", "messageId": "r1", "toolCallId": "c1", "content": "3 facts",
             "subagentRunId": "sa-1"},
            {"type": "SUBAGENT_FINISHED", "subagentRunId": "sa-1", "outcome": {"type": "success"}},
            {"type": "SUBAGENT_STARTED", "subagentRunId": "sa-2", "name": "writer"},
            {"type": "SUBAGENT_ERROR", "subagentRunId": "sa-2", "message": "writer crashed", "code": "NODE_FAILED"},
            {"type": "TEXT_MESSAGE_START", "messageId": "m9", "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m9", "delta": "Stopping here."},
            {"type": "TEXT_MESSAGE_END", "messageId": "m9"},
            {"type": "RUN_FINISHED", "outcome": {"type": "cancelled"}}]


def add_raw_routes(app: FastAPI, received: list[dict[str, Any]]) -> None:
    raw_route(app, "/interrupting", received, interrupting)
    raw_route(app, "/subagents", received, subagents)


def build_scripted_app(received: list[dict[str, Any]]) -> FastAPI:
    app = FastAPI()
    add_endpoint(app, StrandsAgent(chat_agent, name="agentic_chat"), "/agentic_chat")
    add_endpoint(app, StrandsAgent(weather_agent, name="backend_tool_rendering"), "/backend_tool_rendering")
    add_endpoint(app, StrandsAgent(failing_agent, name="failing"), "/failing")
    add_endpoint(app, StrandsAgent(failing_after_tool_agent, name="after_tool"), "/after_tool")
    add_endpoint(app, StrandsAgent(hostile_agent, name="hostile"), "/hostile")
    add_endpoint(app, StrandsAgent(slow_tool_agent, name="slow_tool"), "/slow_tool")
    add_endpoint(app, StrandsAgent(cancelling_agent, name="cancelling"), "/cancelling")
    add_raw_routes(app, received)

    @app.post("/state_patches")
    async def state_patches(request: Request) -> StreamingResponse:
        """Raw events: a recipe snapshot, then patches streamed one by one (and an SSE comment)."""
        body = await request.json()
        received.append(body)
        thread, run = body["threadId"], body["runId"]

        async def events() -> AsyncIterator[str]:
            yield sse({"type": "RUN_STARTED", "threadId": thread, "runId": run})
            yield ": keep-alive comment\n\n"
            if not body["state"]:
                yield sse({"type": "STATE_SNAPSHOT", "snapshot": {"recipe": {"title": "Soup", "ingredients": []}}})
            for op in ({"op": "add", "path": "/recipe/ingredients/-", "value": "leek"},
                       {"op": "replace", "path": "/recipe/title", "value": "Leek soup"},
                       {"op": "add", "path": "/recipe/servings", "value": len(received) + 1},
                       {"op": "remove", "path": "/recipe/servings"},
                       {"op": "add", "path": "/runs", "value": len(received)}):
                await asyncio.sleep(0.05)
                yield sse({"type": "STATE_DELTA", "delta": [op]})
            yield sse({"type": "RUN_FINISHED", "threadId": thread, "runId": run})

        return StreamingResponse(events(), media_type="text/event-stream")

    @app.post("/endless")
    async def endless(request: Request) -> StreamingResponse:
        """Text that never ends: only the client's Stop ends it."""
        body = await request.json()

        async def events() -> AsyncIterator[str]:
            yield sse({"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]})
            yield sse({"type": "TEXT_MESSAGE_START", "messageId": "endless", "role": "assistant"})
            while True:
                yield sse({"type": "TEXT_MESSAGE_CONTENT", "messageId": "endless", "delta": "and on "})
                await asyncio.sleep(0.05)

        return StreamingResponse(events(), media_type="text/event-stream")

    @app.get("/examples")
    async def examples() -> list[dict[str, Any]]:
        return [
            {"path": "/agentic_chat", "name": "Agentic chat", "description": "Frontend tool: change_background",
             "frontendTools": [CHANGE_BACKGROUND]},
            {"path": "/backend_tool_rendering", "name": "Backend tools", "description": "get_weather",
             "frontendTools": []},
            {"path": "/state_patches", "name": "State patches", "description": "STATE_SNAPSHOT + STATE_DELTA",
             "frontendTools": []},
            {"path": "/failing", "name": "Failing model", "description": "The model raises", "frontendTools": []},
            {"path": "/missing", "name": "Missing route", "description": "HTTP 404", "frontendTools": []},
            {"path": "/endless", "name": "Endless text", "description": "Press Stop", "frontendTools": []},
            {"path": "/after_tool", "name": "Error after a tool", "description": "", "frontendTools": []},
            {"path": "/hostile", "name": "Hostile text", "description": "", "frontendTools": []},
            {"path": "/interrupting", "name": "Interrupts", "description": "", "frontendTools": []},
            {"path": "/subagents", "name": "Subagents", "description": "", "frontendTools": []},
            {"path": "/slow_tool", "name": "Slow tool", "description": "Press Stop", "frontendTools": []},
            {"path": "/cancelling", "name": "Cancelled run", "description": "", "frontendTools": []},
        ]

    mount_console(app)
    return app


def build_examples_app() -> FastAPI:
    from strands_agui.examples.demo import build_app

    app = build_app()
    if not any(getattr(route, "path", None) == "/" for route in app.routes):
        mount_console(app)
    return app


