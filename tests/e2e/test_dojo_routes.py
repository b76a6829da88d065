"""The Dojo's Strands features as example routes (issue 26, item 4), played by their scripted scenarios.

Each example is built with ``build_agent(env=NO_DELAY)`` and driven through ``StrandsAgent.run``; every stream
goes through ag-ui-validate and both official clients (``@ag-ui/client`` 1.0 on the 1.0 stream, 0.0.59, as
CopilotKit 1.74 pins it, on the stream a client that declares no version gets), and the tests assert what the
clients hold: messages, state, interrupts, tool results.
"""

from __future__ import annotations

import base64
import json
import struct
import uuid
import zlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from ag_ui.core import BaseEvent, RunAgentInput

from strands_agui.examples import (
    a2ui_fixed_schema,
    a2ui_recovery,
    agentic_chat_multimodal,
    agentic_chat_reasoning,
    interrupt,
    predictive_state_updates,
    tool_based_generative_ui,
)
from strands_agui.runtime.storage.sessions import FileSessions
from strands_agui.server.transport.versions import declared_event, legacy_event
from tests.oracles import CURRENT, LEGACY, check_ag_ui_validate, check_official_client, to_wire_events

NO_DELAY = {"STRANDS_AGUI_SCRIPTED_DELAY": "0"}


# -- helpers ---------------------------------------------------------------------------------------------

def tool_json(tool: Any) -> dict[str, Any]:
    return tool.model_dump(mode="json", by_alias=True, exclude_none=True)  # type: ignore[no-any-return]


def run_input(messages: list[dict[str, Any]], *, state: Any = None, tools: list[Any] = (),  # type: ignore[assignment]
              thread_id: str = "thread-1", resume: list[dict[str, Any]] | None = None) -> RunAgentInput:
    return RunAgentInput.model_validate({
        "threadId": thread_id, "runId": f"run-{uuid.uuid4().hex[:8]}", "messages": messages,
        "state": state if state is not None else {}, "tools": [tool_json(t) for t in tools], "context": [],
        "forwardedProps": {}, **({"resume": resume} if resume else {})})


def user(content: Any, id: str = "u1") -> dict[str, Any]:  # noqa: A002
    return {"id": id, "role": "user", "content": content}


async def collect(agent: Any, input_data: RunAgentInput) -> list[BaseEvent]:
    events: AsyncIterator[BaseEvent] = agent.run(input_data)
    return [e async for e in events]


def dumped(events: list[BaseEvent]) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in events]


def of_type(events: list[BaseEvent], kind: str) -> list[dict[str, Any]]:
    return [e for e in dumped(events) if e["type"] == kind]


def clients(events: list[BaseEvent], input_data: RunAgentInput) -> dict[str, dict[str, Any]]:
    """ag-ui-validate, then both client generations on the stream each gets; their reports by generation."""
    seed = input_data.model_dump(mode="json", by_alias=True, exclude_none=True)
    check_ag_ui_validate(to_wire_events(events))
    return {CURRENT: check_official_client([declared_event(e) for e in events], input=seed, client=CURRENT),
            LEGACY: check_official_client([legacy_event(e) for e in events], input=seed, client=LEGACY)}


def both(reports: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [reports[CURRENT], reports[LEGACY]]


def assistant_calls(report: dict[str, Any]) -> list[tuple[str, Any]]:
    return [(c["function"]["name"], json.loads(c["function"]["arguments"]))
            for m in report["messages"] if m["role"] == "assistant" for c in m.get("toolCalls") or []]


def last_text(report: dict[str, Any]) -> str:
    return next(m["content"] for m in reversed(report["messages"]) if m["role"] == "assistant" and m.get("content"))


def tool_results(report: dict[str, Any]) -> list[str]:
    return [m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
            for m in report["messages"] if m["role"] == "tool"]


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A flat-colour RGB PNG."""
    raw = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


# -- agentic_chat_reasoning ------------------------------------------------------------------------------

@pytest.mark.slow
async def test_reasoning_streams_before_the_answer_and_the_clients_hold_both():
    agent = agentic_chat_reasoning.build_agent(env=NO_DELAY)
    input_data = run_input([user("What is 17 * 23?")], tools=agentic_chat_reasoning.FRONTEND_TOOLS)
    events = await collect(agent, input_data)
    kinds = [e["type"] for e in dumped(events)]
    assert kinds.index("REASONING_START") < kinds.index("REASONING_END") < kinds.index("TEXT_MESSAGE_START")
    assert of_type(events, "REASONING_ENCRYPTED_VALUE")[0]["encryptedValue"] == agentic_chat_reasoning.SIGNATURE
    thought = "".join(e["delta"] for e in of_type(events, "REASONING_MESSAGE_CONTENT"))
    assert "17 × 20 = 340" in thought and "340 + 51 = 391" in thought
    reports = clients(events, input_data)
    for report in both(reports):
        assert last_text(report) == "17 × 23 = **391**."
    reasoning = [m for m in reports[CURRENT]["messages"] if m["role"] == "reasoning"]
    assert reasoning and "340 + 51 = 391" in reasoning[0]["content"]


@pytest.mark.slow
async def test_reasoning_greets_with_the_dojo_wording_and_runs_the_page_tool():
    agent = agentic_chat_reasoning.build_agent(env=NO_DELAY)
    hello = run_input([user("Hi there!")])
    for report in both(clients(await collect(agent, hello), hello)):
        assert last_text(report).startswith("Hello") and "how can I assist you?" in last_text(report)

    paint = run_input([user("Change the background to teal")], tools=agentic_chat_reasoning.FRONTEND_TOOLS)
    events = await collect(agent, paint)
    for report in both(clients(events, paint)):
        assert assistant_calls(report) == [("change_background", {"background": "teal"})]
    assert of_type(events, "RUN_FINISHED")[0]["outcome"]["pendingToolCallIds"]


def test_reasoning_scenario_answers_rather_than_echoes():
    sonnet = agentic_chat_reasoning.scenario([{"role": "user",
                                               "content": [{"text": "Write a short sonnet about AI."}]}])
    assert sonnet[1].text.startswith("Here is a sonnet about AI:")
    assert len([line for line in sonnet[1].text.split("\n\n", 1)[1].split("\n") if line.strip()]) == 14
    other = agentic_chat_reasoning.scenario([{"role": "user", "content": [{"text": "Tell me about otters"}]}])
    assert "otters" not in other[1].text


# -- tool_based_generative_ui ----------------------------------------------------------------------------

@pytest.mark.slow
async def test_haiku_is_a_frontend_call_the_clients_hold_with_its_arguments():
    agent = tool_based_generative_ui.build_agent(env=NO_DELAY)
    input_data = run_input([user("Create a haiku about the ocean.")], tools=tool_based_generative_ui.FRONTEND_TOOLS)
    events = await collect(agent, input_data)
    assert "TOOL_CALL_RESULT" not in [e["type"] for e in dumped(events)]  # the page draws it, nothing runs here
    reports = clients(events, input_data)
    for report in both(reports):
        [(name, haiku)] = assistant_calls(report)
        assert name == "generate_haiku"
        assert haiku["english"][0] == "Blue endless ocean" and len(haiku["japanese"]) == 3
        assert haiku["image_name"] in tool_based_generative_ui.IMAGE_NAMES
        assert haiku["gradient"].startswith("linear-gradient(")

    call_id = of_type(events, "TOOL_CALL_START")[0]["toolCallId"]
    follow = run_input([*reports[CURRENT]["messages"],
                        {"id": "t1", "role": "tool", "toolCallId": call_id, "content": "Haiku generated!"}],
                       tools=tool_based_generative_ui.FRONTEND_TOOLS)
    for report in both(clients(await collect(agent, follow), follow)):
        assert last_text(report) == "Here is your haiku about the ocean. Want another one?"


# -- interrupt -------------------------------------------------------------------------------------------

async def paused_meeting(tmp_path: Any, thread_id: str) -> tuple[Any, RunAgentInput, list[BaseEvent]]:
    agent = interrupt.build_agent(env=NO_DELAY)
    agent.sessions = FileSessions(tmp_path)
    first = run_input([user("Book an intro call with the sales team to discuss pricing.")], thread_id=thread_id)
    return agent, first, await collect(agent, first)


@pytest.mark.slow
@pytest.mark.parametrize(("status", "payload", "answer"), [
    ("resolved", {"chosen_time": "2026-09-12T10:00:00Z", "chosen_label": "Sat, Sep 12, 10:00 AM"},
     'Done: "Intro call with Sales team to discuss pricing" is booked for Sat, Sep 12, 10:00 AM.'),
    ("resolved", {"cancelled": True}, "No problem, I cancelled it"),
    ("cancelled", None, "No problem, I cancelled it"),
])
async def test_the_time_picker_interrupt_books_the_picked_time(tmp_path, status, payload, answer):
    agent, first, paused = await paused_meeting(tmp_path, f"meeting-{status}-{bool(payload)}")
    reports = clients(paused, first)
    for report in both(reports):
        assert report["outcome"] == "interrupt"
        [pending] = report["interrupts"]
        assert pending["reason"] == "schedule_meeting"
        assert pending["metadata"]["reason"] == {"topic": "Intro call with Sales team to discuss pricing",
                                                 "attendee": "Sales team"}
        assert assistant_calls(report) == [("schedule_meeting", {"topic": "Intro call with Sales team to discuss "
                                                                 "pricing", "attendee": "Sales team"})]
    interrupt_id = reports[CURRENT]["interrupts"][0]["id"]
    entry = {"interruptId": interrupt_id, "status": status, **({"payload": payload} if payload else {})}
    second = run_input(reports[CURRENT]["messages"], thread_id=first.thread_id, resume=[entry])
    resumed = clients(await collect(agent, second), second)
    for report in both(resumed):
        assert report["outcome"] == "success" and report["interrupts"] == []
        [result] = tool_results(report)
        assert ("Meeting scheduled for Sat, Sep 12, 10:00 AM" in result) is (answer.startswith("Done"))
        assert last_text(report).startswith(answer)


def test_meeting_topic_and_attendee_are_read_from_the_words():
    assert interrupt.meeting_in("Schedule a 1:1 with Alice next week to review Q2 goals.") == {
        "topic": "1:1 with Alice to review Q2 goals", "attendee": "Alice"}
    assert interrupt.meeting_in("schedule a meeting") == {"topic": "Meeting", "attendee": ""}
    chat = interrupt.scenario([{"role": "user", "content": [{"text": "hello"}]}])
    assert "scheduling assistant" in chat[0].text


# -- predictive_state_updates ----------------------------------------------------------------------------

@pytest.mark.slow
async def test_the_document_is_predicted_from_the_streamed_call_then_confirmed():
    agent = predictive_state_updates.build_agent(env=NO_DELAY)
    tools = predictive_state_updates.FRONTEND_TOOLS
    first = run_input([user("Please write a story about a mermaid named Luna.")], tools=tools,
                      state=predictive_state_updates.INITIAL_STATE)
    events = await collect(agent, first)
    kinds = [e["type"] for e in dumped(events)]
    [predict] = [e for e in of_type(events, "CUSTOM") if e["name"] == "PredictState"]
    assert predict["value"] == [{"state_key": "document", "tool": "write_document", "tool_argument": "document"}]
    assert kinds.index("CUSTOM") < kinds.index("TOOL_CALL_ARGS")  # before the first argument delta
    reports = clients(events, first)
    for report in both(reports):
        [(name, args)] = assistant_calls(report)
        assert name == "write_document" and args["document"].startswith("# The Tale of Luna")
        assert report["state"] == {"document": args["document"]}  # the authoritative snapshot (state_from_args)
    story = reports[CURRENT]["state"]["document"]

    call_id = of_type(events, "TOOL_CALL_START")[0]["toolCallId"]
    confirm = run_input([*reports[CURRENT]["messages"], {"id": "t1", "role": "tool", "toolCallId": call_id,
                                                         "content": json.dumps({"accepted": True})}],
                        tools=tools, state={"document": story})
    for report in both(clients(await collect(agent, confirm), confirm)):
        assert last_text(report).startswith("Great, the changes are in the document.")

    edit = run_input([*reports[CURRENT]["messages"], user("Please add a character named Courage.", id="u2")],
                     tools=tools, state={"document": story})
    edited = await collect(agent, edit)
    for report in both(clients(edited, edit)):
        document = report["state"]["document"]
        assert document.startswith(story) and "Then came Courage" in document  # the page's document, edited
        assert assistant_calls(report)[-1] == ("write_document", {"document": document})


@pytest.mark.slow
async def test_a_rejected_document_is_left_as_it_was():
    agent = predictive_state_updates.build_agent(env=NO_DELAY)
    tools = predictive_state_updates.FRONTEND_TOOLS
    first = run_input([user("Please write a story about a pirate named Candy Beard.")], tools=tools)
    events = await collect(agent, first)
    held = clients(events, first)[CURRENT]
    call_id = of_type(events, "TOOL_CALL_START")[0]["toolCallId"]
    reject = run_input([*held["messages"], {"id": "t1", "role": "tool", "toolCallId": call_id,
                                            "content": json.dumps({"accepted": False})}], tools=tools)
    for report in both(clients(await collect(agent, reject), reject)):
        assert last_text(report).startswith("Understood: I left the document as it was.")


def test_the_document_round_trips_through_the_prompt():
    prompt = predictive_state_updates.document_prompt(run_input([], state={"document": "# T\n\nbody"}), "rename T to U")
    assert predictive_state_updates.document_and_request(prompt) == ("# T\n\nbody", "rename T to U")
    assert predictive_state_updates.document_prompt(run_input([], state={"document": 3}), "hi") == "hi"
    assert predictive_state_updates.edit("# T\n\nLuna swam.", "replace Luna with Marina") == (
        "# T\n\nMarina swam.", 'I replaced every "Luna" with "Marina"')


# -- agentic_chat_multimodal -----------------------------------------------------------------------------

@pytest.mark.slow
async def test_an_attached_image_is_described_from_its_bytes():
    agent = agentic_chat_multimodal.build_agent(env=NO_DELAY)
    picture = base64.b64encode(png(64, 32, (255, 0, 0))).decode()
    message = user([{"type": "text", "text": "Describe what you see in the image I upload."},
                    {"type": "image", "source": {"type": "data", "mimeType": "image/png", "value": picture}}])
    input_data = run_input([message], tools=agentic_chat_multimodal.FRONTEND_TOOLS)
    for report in both(clients(await collect(agent, input_data), input_data)):
        assert last_text(report).startswith(
            "I see a 64×32 PNG image in landscape, a single flat red (#ff0000) with nothing else in it.")

    plain = run_input([user("What objects can you identify in this photo?")])
    for report in both(clients(await collect(agent, plain), plain)):
        assert last_text(report).startswith("Attach an image")


def test_image_facts_read_headers():
    facts = agentic_chat_multimodal.image_facts(png(3, 3, (0, 0, 128)))
    assert (facts.format, facts.width, facts.height, facts.flat) == ("PNG", 3, 3, True)
    assert agentic_chat_multimodal.nearest_colour(facts.average) == "navy"
    gif = b"GIF89a" + struct.pack("<HH", 10, 20) + b"\x00" * 8
    assert agentic_chat_multimodal.image_facts(gif) == agentic_chat_multimodal.ImageFacts("GIF", 10, 20)
    assert agentic_chat_multimodal.image_facts(b"\x00\x01", "webp").format == "WEBP"


# -- a2ui_fixed_schema -----------------------------------------------------------------------------------

def surface_ops(content: str) -> list[dict[str, Any]]:
    data = json.loads(content)
    while isinstance(data, str):  # a result encoded as a JSON string holds the envelope's text
        data = json.loads(data)
    return data["a2ui_operations"]  # type: ignore[no-any-return]


@pytest.mark.slow
@pytest.mark.parametrize(("words", "tool", "surface", "items", "answer"), [
    ("Find flights from SFO to JFK for next Tuesday.", "search_flights", "flight-search-results", "flights",
     "Here are 3 flights from SFO to JFK. Would you like me to book one?"),
    ("Find hotels in downtown Manhattan for next weekend.", "search_hotels", "hotel-search-results", "hotels",
     "Here are 3 hotels in Downtown Manhattan. Shall I reserve a room at one of them?"),
])
async def test_fixed_schema_results_are_surfaces_of_the_fixed_layout(words, tool, surface, items, answer):
    agent = a2ui_fixed_schema.build_agent(env=NO_DELAY)
    input_data = run_input([user(words)])
    for report in both(clients(await collect(agent, input_data), input_data)):
        [(name, args)] = assistant_calls(report)
        assert name == tool and len(args[items]) == 3
        [result] = tool_results(report)
        create, components, data = surface_ops(result)
        assert create["createSurface"] == {"surfaceId": surface, "catalogId": a2ui_fixed_schema.BASIC_CATALOG_ID}
        schema = a2ui_fixed_schema.FLIGHT_SCHEMA if tool == "search_flights" else a2ui_fixed_schema.HOTEL_SCHEMA
        assert components["updateComponents"]["components"] == schema  # only the data changes
        assert [i["id"] for i in data["updateDataModel"]["value"][items]] == [i["id"] for i in args[items]]
        assert last_text(report) == answer


# -- a2ui_recovery ---------------------------------------------------------------------------------------

def render_calls(events: list[BaseEvent]) -> list[dict[str, Any]]:
    ids = [e["toolCallId"] for e in of_type(events, "TOOL_CALL_START") if e["toolCallName"] == "render_a2ui"]
    return [json.loads("".join(e["delta"] for e in of_type(events, "TOOL_CALL_ARGS") if e["toolCallId"] == i))
            for i in ids]


@pytest.mark.slow
async def test_an_invalid_surface_is_redesigned_and_the_valid_one_is_the_result():
    agent = a2ui_recovery.build_agent(env=NO_DELAY)
    input_data = run_input([user("Compare 3 luxury hotels with ratings and prices.")])
    events = await collect(agent, input_data)
    renders = render_calls(events)  # streamed as the designer subagent's calls, both attempts
    assert len(renders) == 2
    assert "card" not in [c["id"] for c in renders[0]["components"]]  # the first forgot the card it repeats
    assert "card" in [c["id"] for c in renders[1]["components"]]
    for report in both(clients(events, input_data)):
        result = next(r for r in tool_results(report) if "a2ui_operations" in r)
        components = surface_ops(result)[1]["updateComponents"]["components"]
        assert components == renders[1]["components"]
        assert last_text(report) == "Here it is: 3 luxury hotels, side by side above."


@pytest.mark.slow
async def test_a_surface_invalid_three_times_is_a_clean_failure():
    agent = a2ui_recovery.build_agent(env=NO_DELAY)
    input_data = run_input([user("Compare 3 broken hotels with ratings and prices.")])
    events = await collect(agent, input_data)
    assert len(render_calls(events)) == a2ui_recovery.MAX_ATTEMPTS
    for report in both(clients(events, input_data)):
        assert report["outcome"] == "success"
        failure = next(json.loads(r) for r in tool_results(report) if "a2ui_recovery_exhausted" in r)
        failure = json.loads(failure) if isinstance(failure, str) else failure
        assert [a["errors"][0]["code"] for a in failure["attempts"]] == ["unresolved_child"] * 3
        assert last_text(report).startswith("Sorry, I couldn't build a valid view after 3 attempts")


def test_max_attempts_is_checked():
    from strands_agui.tooling.a2ui import a2ui_tool
    from strands_agui.tooling.scripted import ScriptedModel

    with pytest.raises(ValueError, match="max_attempts"):
        a2ui_tool(ScriptedModel([]), max_attempts=0)
