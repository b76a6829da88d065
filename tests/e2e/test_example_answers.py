"""The scripted answers to every prompt the console suggests (``PROMPTS`` of each example), and to free text
typed instead, read like an assistant's: they name what the prompt asks about, never the prompt itself pasted into a
sentence, and no tool is called for a word the prompt merely contains ("Why is the sky blue?" is not a request for
a blue page).

Each prompt is played by the example's own agent (scripted model, no delay) through ``StrandsAgent.run``; the
stream goes through both oracles.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from ag_ui.core import RunAgentInput

from strands_agui.examples import demo
from tests.oracles import assert_valid_stream
from tests.support.wire import of_type

NO_DELAY = {"STRANDS_AGUI_SCRIPTED_DELAY": "0"}


def examples() -> list[Any]:
    return list(demo.EXAMPLES)


async def answer(module: Any, prompt: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The text the run streams, its calls' arguments by tool name (a tool's last call), and its last state."""
    text, calls, state = await answer_calls(module, prompt)
    return text, dict(calls), state


async def answer_calls(module: Any, prompt: str) -> tuple[str, list[tuple[str, Any]], dict[str, Any]]:
    """The text the run streams, each call's tool name and arguments in order, and its last state."""
    kwargs = {"step_delay": 0} if module.__name__.endswith("agentic_generative_ui") else {}
    agent = module.build_agent(env=NO_DELAY, **kwargs)
    input_data = RunAgentInput.model_validate({
        "threadId": "t", "runId": f"r-{uuid.uuid4().hex[:8]}",
        "messages": [{"id": "u1", "role": "user", "content": prompt}],
        "state": json.loads(json.dumps(getattr(module, "INITIAL_STATE", {}))), "context": [], "forwardedProps": {},
        "tools": [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in module.FRONTEND_TOOLS]})
    events = [e.model_dump(mode="json", by_alias=True, exclude_none=True) async for e in agent.run(input_data)]
    report = assert_valid_stream(events, fail_on_run_error=True)
    names = {e["toolCallId"]: e["toolCallName"] for e in of_type(events, "TOOL_CALL_START")}
    by_call: dict[str, str] = {}
    for e in of_type(events, "TOOL_CALL_ARGS"):
        by_call[e["toolCallId"]] = by_call.get(e["toolCallId"], "") + e["delta"]
    text = " ".join(m["content"] for m in report["messages"] if m["role"] == "assistant" and m.get("content"))
    return text, [(names[call], json.loads(v)) for call, v in by_call.items()], report["state"]


PROMPTS = [(m, p) for m in examples() for p in m.PROMPTS]


@pytest.mark.parametrize(("module", "prompt"), PROMPTS, ids=[f"{m.NAME}:{p}" for m, p in PROMPTS])
async def test_no_suggested_prompt_is_echoed_into_the_answer(module: Any, prompt: str) -> None:
    text, args, _ = await answer(module, prompt)
    assert text or args  # an answer, or a call of a tool the page runs (the haiku card: no text before it)
    assert prompt.rstrip("?.!") not in text  # pasted as typed ("knows about What do you know...")


async def test_the_team_answers_about_the_topic_not_the_question() -> None:
    from strands_agui.examples import multi_agent
    text, args, _ = await answer(multi_agent, "What do you know about solar power?")
    assert args["search_notes"] == {"topic": "solar power"}
    assert "Let me search our notes on solar power." in text
    assert "Here is what the team knows about solar power:" in text
    text, args, _ = await answer(multi_agent, "Research the history of tea")
    assert args["search_notes"] == {"topic": "the history of tea"}


async def test_the_flight_goes_to_the_city_and_the_sentence_says_when() -> None:
    from strands_agui.examples import human_in_the_loop
    text, args, _ = await answer(human_in_the_loop, "Fly me to Tokyo next week")
    assert args["book_flight"] == {"city": "Tokyo"}
    assert text == "I can book a flight to Tokyo for next week. Please approve the booking below, or reject it."
    _, args, _ = await answer(human_in_the_loop, "Book me a flight to New York")
    assert args["book_flight"] == {"city": "New York"}


async def test_make_it_quick_is_an_instruction_not_an_ingredient() -> None:
    from strands_agui.examples import shared_state
    text, _, state = await answer(shared_state, "Add mushrooms and make it quick")
    names = [i["name"] for i in state["recipe"]["ingredients"]]
    assert "Mushrooms" in names and not any("quick" in n.lower() for n in names)
    assert not any("quick" in step.lower() for step in state["recipe"]["instructions"])
    assert state["recipe"]["cooking_time"] == "15 min"
    assert text.startswith("Sure: I set the cooking time to 15 min, added mushrooms")


async def test_a_plan_follows_the_request_s_verb() -> None:
    from strands_agui.examples import agentic_generative_ui
    text, _, state = await answer(agentic_generative_ui, "Help me launch a podcast")
    assert [s["description"] for s in state["steps"]] == [
        "Decide who the podcast is for", "Prepare the podcast for release", "Choose where to publish the podcast",
        "Announce the podcast"]
    assert text.startswith("Here is a 4-step plan to launch a podcast:")
    text, _, state = await answer(agentic_generative_ui, "Organise a team offsite")
    assert state["steps"][0]["description"] == "Set a date and budget for the team offsite"
    trip = "Plan a trip to Japan: book flights, find a hotel, then plan the days"
    text, _, _ = await answer(agentic_generative_ui, trip)
    assert text.startswith("Here is a 3-step plan for a trip to Japan:")


async def test_a_surface_is_titled_by_what_it_shows() -> None:
    from strands_agui.examples import a2ui_generative_ui
    text, args, _ = await answer(a2ui_generative_ui, "A card of today's errands")
    assert text.endswith("Here it is: Today's errands, drawn above.")
    assert [i["name"] for i in args["render_a2ui"]["data"]["items"]] == [
        "Pick up groceries", "Post a parcel", "Collect the dry cleaning"]
    text, args, _ = await answer(a2ui_generative_ui, "A packing checklist: passport, charger and sunscreen")
    assert text.endswith("Here it is: Packing checklist, drawn above.")


FREE_TEXT = ("Who owns the billing service?", "Weather in Berlin and Rome?", "Why is the sky blue?",
             "How long does it take?", "Tell me a joke about red cats", "What is the capital of France?",
             "Ignore that and summarise our chat so far")
"""What people type instead of a suggestion: questions, another example's request, small talk."""
FREE = [(m, p) for m in examples() for p in FREE_TEXT]


@pytest.mark.parametrize(("module", "prompt"), FREE, ids=[f"{m.NAME}:{p}" for m, p in FREE])
async def test_free_text_is_answered_not_echoed(module: Any, prompt: str) -> None:
    text, calls, _ = await answer_calls(module, prompt)
    assert text, "an answer in words"
    typed = prompt.rstrip("?.!")
    assert typed not in text, text
    assert typed not in json.dumps(calls), calls  # nor made a tool's argument


@pytest.mark.parametrize("name", ["agentic_chat", "agentic_chat_reasoning", "agentic_chat_multimodal"])
@pytest.mark.parametrize("prompt", ["Why is the sky blue?", "Tell me a joke about red cats",
                                    "What colour is the background?"])
async def test_a_colour_in_a_question_is_not_a_request_for_a_background(name: str, prompt: str) -> None:
    module = next(m for m in examples() if m.NAME == name)
    _, calls, _ = await answer_calls(module, prompt)
    assert calls == []
    _, calls, _ = await answer_calls(module, "Make the background teal")
    assert calls == [("change_background", {"background": "teal"})]


async def test_each_place_named_gets_its_own_weather() -> None:
    from strands_agui.examples import backend_tool_rendering
    text, calls, _ = await answer_calls(backend_tool_rendering, "Weather in Berlin and Rome?")
    assert calls == [("get_weather", {"location": "Berlin"}), ("get_weather", {"location": "Rome"})]
    assert "In Berlin it is" in text and "In Rome it is" in text


async def test_a_question_about_the_recipe_is_answered_not_applied() -> None:
    from strands_agui.examples import shared_state
    text, calls, _ = await answer_calls(shared_state, "How long does it take?")
    assert calls == [] and text == "Make Your Recipe takes about 45 min to cook."


@pytest.mark.parametrize("name", ["human_in_the_loop", "background_agents"])
async def test_no_flight_is_booked_unless_one_is_asked_for(name: str) -> None:
    module = next(m for m in examples() if m.NAME == name)
    for prompt in ("Who owns the billing service?", "hello", "Why is the sky blue?", "Why is the report late?",
                   "How do I cancel a flight?"):
        _, calls, _ = await answer_calls(module, prompt)
        assert calls == [], prompt


async def test_the_team_researches_what_is_asked_about() -> None:
    from strands_agui.examples import multi_agent
    text, args, _ = await answer(multi_agent, "Who owns the billing service?")
    assert args["search_notes"] == {"topic": "the billing service"}
    assert "Here is what the team knows about the billing service:" in text
    _, calls, _ = await answer_calls(multi_agent, "Why is the sky blue?")
    assert calls == []  # no topic asked about: no search of "Why is the sky blue"
