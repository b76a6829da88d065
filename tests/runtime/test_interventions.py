"""Issue 29 item 3: Strands interventions (``Agent(interventions=[...])``) as the client sees them.

A real ``strands.Agent`` on a scripted model with one intervention handler each; every stream goes through the
official clients (1.0 and 0.0.59), the resumes built from what the client holds:

* ``Confirm`` pauses as an interrupt answered with our one approval contract: ``{approved: true}`` runs the
  tool (it used to read as a refusal), ``{approved: false}`` refuses it;
* ``Deny`` shows its reason on the tool call's result;
* ``Guide`` after a model call discards that answer: the client holds only the retried one;
* ``Transform`` of a tool's input: the client holds the arguments that ran.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import RunAgentInput
from strands import Agent, tool
from strands.interventions import Confirm, Deny, Guide, InterventionHandler, Proceed, Transform
from strands.types.content import Messages

from strands_agui import FileSessions, StrandsAgent
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse, Turn
from strands_agui.tooling.testing import dump_events
from tests.oracles import LEGACY, assert_valid_stream, check_official_client
from tests.support.generations import legacy_event

CLIENTS = ["1.0", LEGACY]


@tool
def book_flight(city: str) -> str:
    """Book a flight."""
    return f"Booked a flight to {city}."


def booking(messages: Messages) -> Turn:
    results = [b["toolResult"] for m in messages for b in m["content"] if "toolResult" in b]
    if results:
        return [Text(f"Done: {results[-1]['content'][0]['text']}")]
    return [ToolUse("book_flight", {"city": "Lisbon"}, tool_use_id="tool-book")]


class AskFirst(InterventionHandler):
    name = "ask-first"

    def before_tool_call(self, event: Any, **kwargs: Any) -> Any:
        return Confirm(prompt=f"Book a flight to {event.tool_use['input']['city']}?")


class NoSundays(InterventionHandler):
    name = "no-sundays"

    def before_tool_call(self, event: Any, **kwargs: Any) -> Any:
        return Deny(reason="no bookings on Sundays")


class ToPorto(InterventionHandler):
    name = "to-porto"

    def before_tool_call(self, event: Any, **kwargs: Any) -> Any:
        def apply(e: Any) -> None:
            e.tool_use["input"] = {**e.tool_use["input"], "city": "Porto"}
        return Transform(apply=apply)


class FrenchPlease(InterventionHandler):
    name = "french-please"

    def __init__(self) -> None:
        self.guided = False

    def after_model_call(self, event: Any, **kwargs: Any) -> Any:
        if self.guided:
            return Proceed()
        self.guided = True
        return Guide(feedback="Answer in French.")


def agent(handler: InterventionHandler, script: Any = booking) -> Any:
    return lambda _: Agent(model=ScriptedModel(script), tools=[book_flight], callback_handler=None,
                           interventions=[handler])


def body(run: int, messages: list[dict[str, Any]], resume: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"threadId": "thread-iv", "runId": f"run-{run}", "messages": messages, "tools": [], "context": [],
            "forwardedProps": {}, "state": {}, **({"resume": resume} if resume else {})}


async def through(adapter: StrandsAgent, data: dict[str, Any], client: str) -> tuple[list[dict[str, Any]], dict]:
    events = [e async for e in adapter.run(RunAgentInput.model_validate(data))]
    if client == LEGACY:
        report = check_official_client([legacy_event(e) for e in events], input=data, client=LEGACY)
    else:
        report = assert_valid_stream(events, input=data)
    return dump_events(events), report


FIRST = [{"id": "user-1", "role": "user", "content": "Book me a flight to Lisbon."}]


def tool_message(report: dict[str, Any]) -> dict[str, Any]:
    [message] = [m for m in report["messages"] if m["role"] == "tool"]
    return message


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize(("answer", "ran"), [({"approved": True}, True), ({"approved": False}, False)])
async def test_a_confirm_is_our_approval(tmp_path: Path, client: str, answer: dict[str, Any], ran: bool) -> None:
    adapter = StrandsAgent(agent(AskFirst()), sessions=FileSessions(tmp_path))
    _, paused = await through(adapter, body(0, FIRST), client)
    assert paused["outcome"] == "interrupt"
    [interrupt] = paused["interrupts"]
    assert interrupt["reason"] == "ask-first" and interrupt["message"] == "Book a flight to Lisbon?"
    assert interrupt["toolCallId"] == "tool-book"
    assert interrupt["responseSchema"]["required"] == ["approved"]  # the approval card's schema
    assert interrupt["metadata"]["intervention"] == "confirm"
    resume = [{"interruptId": interrupt["id"], "status": "resolved", "payload": answer}]
    events, done = await through(adapter, body(1, paused["messages"], resume), client)
    assert done["outcome"] == "success"
    result = tool_message(done)
    if ran:
        assert json.loads(result["content"]) == "Booked a flight to Lisbon." and not result.get("error")
    else:
        assert "CONFIRMATION_FAILED: Book a flight to Lisbon?" in result["content"]


async def test_a_cancelled_confirm_refuses_the_call(tmp_path: Path) -> None:
    adapter = StrandsAgent(agent(AskFirst()), sessions=FileSessions(tmp_path))
    _, paused = await through(adapter, body(0, FIRST), "1.0")
    [interrupt] = paused["interrupts"]
    _, done = await through(adapter, body(1, paused["messages"], [{"interruptId": interrupt["id"],
                                                                    "status": "cancelled"}]), "1.0")
    assert "CONFIRMATION_FAILED" in tool_message(done)["content"]


@pytest.mark.parametrize("client", CLIENTS)
async def test_a_deny_shows_its_reason_on_the_call(tmp_path: Path, client: str) -> None:
    _, report = await through(StrandsAgent(agent(NoSundays()), sessions=FileSessions(tmp_path)), body(0, FIRST),
                              client)
    result = tool_message(report)
    assert json.loads(result["content"]) == "DENIED: no bookings on Sundays"  # a JSON string, as upstream
    if client != LEGACY:
        assert result["error"] == "DENIED: no bookings on Sundays"


@pytest.mark.parametrize("client", CLIENTS)
async def test_a_guided_answer_is_retracted(tmp_path: Path, client: str) -> None:
    script = iter([[Text("Here is my English answer.")], [Text("Voici ma réponse.")]])
    handler = FrenchPlease()
    adapter = StrandsAgent(agent(handler, lambda _: next(script)), sessions=FileSessions(tmp_path))
    _, report = await through(adapter, body(0, FIRST), client)
    assert [(m["role"], m["content"]) for m in report["messages"] if m["role"] != "user"] == [
        ("assistant", "Voici ma réponse.")]


@pytest.mark.parametrize("client", CLIENTS)
async def test_a_transformed_input_is_shown_as_what_ran(tmp_path: Path, client: str) -> None:
    events, report = await through(StrandsAgent(agent(ToPorto()), sessions=FileSessions(tmp_path)), body(0, FIRST),
                                   client)
    [mark] = [e for e in events if e["type"] == "CUSTOM"]
    assert mark == {"type": "CUSTOM", "name": "strands_agui.tool_input_transformed",
                    "value": {"toolCallId": "tool-book", "modelArgs": '{"city": "Lisbon"}',
                              "args": '{"city": "Porto"}'}}
    assert json.loads(tool_message(report)["content"]) == "Booked a flight to Porto."
    [call] = [c for m in report["messages"] for c in m.get("toolCalls") or ()]
    assert call["function"]["arguments"] == '{"city": "Porto"}'
