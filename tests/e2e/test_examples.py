"""The four examples, played by their scripted scenarios, and ``strands_agui.tooling.models.model_from_env``.

Each example is built with ``build_agent(env=NO_DELAY)`` (scripted model, no per-chunk delay, whatever
``STRANDS_AGUI_MODEL`` the developer has set) and driven through ``StrandsAgent.run``; every stream goes
through both AG-UI oracles.
"""

from __future__ import annotations

import importlib
import json
import sys
import types
import uuid
from collections.abc import Mapping
from typing import Any

import pytest
from ag_ui.core import RunAgentInput
from strands.models.bedrock import BedrockModel

from strands_agui.examples import _common, agentic_chat, agentic_generative_ui, backend_tool_rendering, shared_state
from strands_agui.tooling import models
from strands_agui.tooling.models import ModelProviderUnavailable, model_from_env, parse_model_spec
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse
from tests.oracles import assert_valid_stream
from tests.support.wire import of_type

NO_DELAY = {"STRANDS_AGUI_SCRIPTED_DELAY": "0"}
CHANGE_BACKGROUND = agentic_chat.CHANGE_BACKGROUND.model_dump(mode="json", by_alias=True, exclude_none=True)


# -- helpers ---------------------------------------------------------------------------------------------

def run_input(messages: list[dict[str, Any]], *, state: Any = None, tools: list[dict[str, Any]] | None = None,
              thread_id: str = "thread-1") -> RunAgentInput:
    return RunAgentInput.model_validate({
        "threadId": thread_id, "runId": f"run-{uuid.uuid4().hex[:8]}", "messages": messages,
        "state": state if state is not None else {}, "tools": tools or [], "context": [], "forwardedProps": {},
    })


def user(text: str, id: str = "u1") -> dict[str, Any]:  # noqa: A002
    return {"id": id, "role": "user", "content": text}


async def collect(agent: Any, input_data: RunAgentInput) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json", by_alias=True, exclude_none=True) async for e in agent.run(input_data)]


def types_of(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def texts(events: list[dict[str, Any]]) -> str:
    return "".join(e["delta"] for e in of_type(events, "TEXT_MESSAGE_CONTENT"))


def tool_args(events: list[dict[str, Any]], tool_call_id: str) -> Any:
    return json.loads("".join(e["delta"] for e in of_type(events, "TOOL_CALL_ARGS") if e["toolCallId"] == tool_call_id))


def valid(events: list[dict[str, Any]], input_data: RunAgentInput) -> dict[str, Any]:
    """Both oracles; the official client starts from the run's input (so it knows the thread and state)."""
    return assert_valid_stream(events, input=input_data.model_dump(mode="json", by_alias=True, exclude_none=True))


def toolresult_conversation(call_name: str, call_input: dict[str, Any], result: str) -> list[dict[str, Any]]:
    """A Converse conversation ending with the result of one call."""
    return [
        {"role": "user", "content": [{"text": "go"}]},
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": call_name, "input": call_input}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "status": "success",
                                                     "content": [{"text": result}]}}]},
    ]


def converse_user(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [{"text": text}]}]


# -- agentic_chat ----------------------------------------------------------------------------------------

@pytest.fixture
def chat_agent():
    return agentic_chat.build_agent(env=NO_DELAY)


@pytest.mark.slow
async def test_agentic_chat_halts_on_the_frontend_tool(chat_agent):
    input_data = run_input([user("Please make the background blue")], tools=[CHANGE_BACKGROUND])
    events = await collect(chat_agent, input_data)

    starts = of_type(events, "TOOL_CALL_START")
    assert [s["toolCallName"] for s in starts] == ["change_background"]
    assert tool_args(events, starts[0]["toolCallId"]) == {"background": "blue"}
    assert "Sure, changing the background to blue." in texts(events)
    assert "TOOL_CALL_RESULT" not in types_of(events)
    assert types_of(events)[-2:] == ["TOOL_CALL_END", "RUN_FINISHED"]  # halted right after the call
    report = valid(events, input_data)
    assistant = [m for m in report["messages"] if m["role"] == "assistant"]
    assert assistant and assistant[-1]["toolCalls"][0]["function"]["name"] == "change_background"


@pytest.mark.slow
async def test_agentic_chat_follow_up_after_the_tool_result(chat_agent):
    first_input = run_input([user("make the background light blue")], tools=[CHANGE_BACKGROUND])
    first = await collect(chat_agent, first_input)
    client = valid(first, first_input)  # the thread as the official client holds it after run 1
    call_id = of_type(first, "TOOL_CALL_START")[0]["toolCallId"]
    messages = [*client["messages"], {"id": "tool-1", "role": "tool", "toolCallId": call_id,
                                      "content": "Background changed to lightblue"}]
    follow_input = run_input(messages, tools=[CHANGE_BACKGROUND])

    events = await collect(chat_agent, follow_input)

    assert "TOOL_CALL_START" not in types_of(events)  # the model saw the result: no second call
    assert "Done: the background is now lightblue." in texts(events)
    assert types_of(events)[-1] == "RUN_FINISHED"
    valid(events, follow_input)


def test_agentic_chat_scenario_reads_the_conversation():
    turn = agentic_chat.scenario(converse_user("could you turn the background #ff8800?"))
    assert turn[0] == Text("Sure, changing the background to #ff8800.")
    assert isinstance(turn[1], ToolUse) and turn[1].input == {"background": "#ff8800"}
    assert agentic_chat.scenario(converse_user("change the background please"))[1].input == {"background": "lightblue"}
    done = agentic_chat.scenario(toolresult_conversation("change_background", {"background": "teal"}, "ok"))
    assert done == [Text("Done: the background is now teal.")]
    chat = agentic_chat.scenario(converse_user("Tell me something about otters"))
    assert chat == [Text(agentic_chat.FALLBACK)]  # an answer, not an echo of the words
    assert agentic_chat.scenario(converse_user("Hi there"))[0].text.startswith("Hello!")
    assert agentic_chat.scenario(converse_user("What can you do?"))[0].text.startswith("Good question.")


@pytest.mark.slow
async def test_agentic_chat_plain_chat_streams_text(chat_agent):
    input_data = run_input([user("Tell me about otters")], tools=[CHANGE_BACKGROUND])
    events = await collect(chat_agent, input_data)
    assert texts(events) == agentic_chat.FALLBACK
    assert len(of_type(events, "TEXT_MESSAGE_CONTENT")) > 10  # word by word
    assert "TOOL_CALL_START" not in types_of(events)
    valid(events, input_data)


# -- backend_tool_rendering ------------------------------------------------------------------------------

@pytest.mark.slow
async def test_backend_tool_rendering_weather():
    agent = backend_tool_rendering.build_agent(env=NO_DELAY)
    input_data = run_input([user("What's the weather in Paris today?")])
    events = await collect(agent, input_data)

    start = of_type(events, "TOOL_CALL_START")[0]
    assert start["toolCallName"] == "get_weather"
    assert tool_args(events, start["toolCallId"]) == {"location": "Paris"}
    result = of_type(events, "TOOL_CALL_RESULT")[0]
    weather = json.loads(result["content"])
    assert weather == backend_tool_rendering.get_weather(location="Paris")
    snapshot = of_type(events, "MESSAGES_SNAPSHOT")[0]
    assert any(m["role"] == "tool" and m["toolCallId"] == start["toolCallId"] for m in snapshot["messages"])
    # the model's second turn summarises the result it read from the toolResult
    assert f"In Paris it is {weather['temperature_c']}°C and {weather['conditions']}" in texts(events)
    assert types_of(events)[-1] == "RUN_FINISHED"
    valid(events, input_data)


@pytest.mark.slow
async def test_backend_tool_rendering_chart():
    agent = backend_tool_rendering.build_agent(env=NO_DELAY)
    input_data = run_input([user("Draw a chart of sales: 3, 8, 5 and 13")])
    events = await collect(agent, input_data)

    start = of_type(events, "TOOL_CALL_START")[0]
    assert start["toolCallName"] == "render_chart"
    assert tool_args(events, start["toolCallId"]) == {"title": "Sales", "values": [3.0, 8.0, 5.0, 13.0]}
    chart = json.loads(of_type(events, "TOOL_CALL_RESULT")[0]["content"])
    assert chart["max"] == 13.0 and len(chart["bars"]) == 4
    assert 'Here is the chart "Sales": 4 values from 3.0 to 13.0' in texts(events)
    valid(events, input_data)


def test_weather_is_deterministic_and_local():
    assert backend_tool_rendering.get_weather(location="Oslo") == backend_tool_rendering.get_weather(location="Oslo")
    assert backend_tool_rendering.location_in("weather for new york right now please") == "New York"
    assert backend_tool_rendering.location_in("how's the weather?") == "Seattle"


# -- shared_state ----------------------------------------------------------------------------------------

async def test_shared_state_publishes_the_whole_recipe():
    agent = shared_state.build_agent(env=NO_DELAY)
    input_data = run_input([user("Make it vegan and spicy, and add tomatoes")],
                           state={"recipe": shared_state.INITIAL_RECIPE, "theme": "dark"})
    events = await collect(agent, input_data)

    snapshots = [e["snapshot"] for e in of_type(events, "STATE_SNAPSHOT")]
    assert len(snapshots) == 3  # the input state, then from the tool's args, then from its result
    assert snapshots[0]["recipe"] == shared_state.INITIAL_RECIPE
    recipe = snapshots[-1]["recipe"]
    assert snapshots[1] == snapshots[2]
    assert snapshots[-1]["theme"] == "dark"  # a snapshot carries the whole state, not just the recipe
    assert set(recipe) >= {"title", "skill_level", "ingredients", "instructions", "special_preferences",
                           "cooking_time"}
    assert {"Vegan", "Spicy"} <= set(recipe["special_preferences"])
    names = [i["name"] for i in recipe["ingredients"]]
    assert "Tomatoes" in names and "Chili Flakes" in names and "Carrots" in names  # existing ones kept
    assert all(set(i) == {"icon", "name", "amount"} for i in recipe["ingredients"])
    assert "MESSAGES_SNAPSHOT" not in types_of(events)  # skip_messages_snapshot
    assert "I've updated" in texts(events)
    report = valid(events, input_data)
    assert report["state"]["recipe"] == recipe


@pytest.mark.slow
async def test_shared_state_without_state_starts_from_the_initial_recipe():
    agent = shared_state.build_agent(env=NO_DELAY)
    input_data = run_input([user("Give me a recipe for banana pancakes, quick and easy")])
    events = await collect(agent, input_data)
    recipe = of_type(events, "STATE_SNAPSHOT")[-1]["snapshot"]["recipe"]
    assert recipe["title"] == "Banana Pancakes"
    assert recipe["skill_level"] == "Beginner" and recipe["cooking_time"] == "15 min"
    valid(events, input_data)


@pytest.mark.slow
async def test_shared_state_second_turn_edits_the_recipe_the_client_holds():
    agent = shared_state.build_agent(env=NO_DELAY)
    first_input = run_input([user("make me a pasta recipe")], state=shared_state.INITIAL_STATE)
    client = valid(await collect(agent, first_input), first_input)
    assert client["state"]["recipe"]["title"] == "Pasta"
    second_input = run_input([*client["messages"], user("now remove the carrots and add basil", id="u2")],
                             state=client["state"])

    events = await collect(agent, second_input)

    recipe = of_type(events, "STATE_SNAPSHOT")[-1]["snapshot"]["recipe"]
    assert recipe["title"] == "Pasta"  # read back from the state the prompt carried
    assert [i["name"] for i in recipe["ingredients"]] == ["All-Purpose Flour", "Basil"]
    assert valid(events, second_input)["state"]["recipe"] == recipe


def test_shared_state_prompt_round_trip():
    recipe = {**shared_state.INITIAL_RECIPE, "title": "Carrot Cake"}
    prompt = shared_state.recipe_prompt(run_input([], state={"recipe": recipe}), "remove the flour")
    parsed, request = shared_state.state_and_request(prompt)
    assert parsed["title"] == "Carrot Cake" and request == "remove the flour"
    updated, changes = shared_state.edit_recipe(parsed, request)
    assert [i["name"] for i in updated["ingredients"]] == ["Carrots"]
    assert "removed All-Purpose Flour" in changes
    assert shared_state.state_and_request("just words") == (shared_state.INITIAL_RECIPE, "just words")


# -- agentic_generative_ui -------------------------------------------------------------------------------

@pytest.mark.slow
async def test_agentic_generative_ui_predicts_then_progresses_the_plan():
    agent = agentic_generative_ui.build_agent(env=NO_DELAY, step_delay=0)
    input_data = run_input([user("Plan a birthday party: book a venue, send invitations, order a cake, "
                                 "and then decorate")])
    events = await collect(agent, input_data)
    kinds = types_of(events)

    predict = [e for e in of_type(events, "CUSTOM") if e["name"] == "PredictState"]
    assert predict and predict[0]["value"] == [{"state_key": "steps", "tool": "create_plan", "tool_argument": "steps"}]
    assert kinds.index("CUSTOM") < kinds.index("TOOL_CALL_START")
    start = of_type(events, "TOOL_CALL_START")[0]
    steps = tool_args(events, start["toolCallId"])["steps"]
    assert [s["description"] for s in steps] == ["Book a venue", "Send invitations", "Order a cake", "Decorate"]
    assert all(s["status"] == "pending" for s in steps)
    assert of_type(events, "STATE_SNAPSHOT")[-1]["snapshot"]["steps"] == steps

    deltas = of_type(events, "STATE_DELTA")
    assert len(deltas) == 2 * len(steps)
    assert deltas[-1]["delta"] == [{"op": "replace", "path": f"/steps/{len(steps) - 1}/status", "value": "completed"}]
    # stop_streaming_after_result: nothing after the progress but the end of the run
    assert kinds[kinds.index("TOOL_CALL_RESULT"):] == ["TOOL_CALL_RESULT", "MESSAGES_SNAPSHOT",
                                                       *["STATE_DELTA"] * len(deltas), "RUN_FINISHED"]
    assert "All steps of the plan are done" not in texts(events)
    report = valid(events, input_data)
    assert [s["status"] for s in report["state"]["steps"]] == ["completed"] * len(steps)


@pytest.mark.parametrize(("request_text", "count"), [("help me write a novel", 4), ("a, b, c, d, e, f", 5)])
def test_plan_has_three_to_five_steps(request_text, count):
    steps = agentic_generative_ui.plan_steps(request_text)
    assert steps is not None and len(steps) == count and all(s["status"] == "pending" for s in steps)


@pytest.mark.parametrize("request_text", ["x" * 70, "Why is the sky blue?", "hello", "make it quick"])
def test_no_plan_for_what_is_not_a_goal(request_text):
    assert agentic_generative_ui.plan_steps(request_text) is None


# -- the scenario helpers --------------------------------------------------------------------------------

def test_tool_outcomes_join_results_to_their_calls():
    conversation = toolresult_conversation("get_weather", {"location": "Rome"}, '{"temperature_c": 20}')
    [outcome] = _common.tool_outcomes(conversation)
    assert (outcome.name, outcome.input, outcome.data) == ("get_weather", {"location": "Rome"}, {"temperature_c": 20})
    assert _common.user_text(conversation) == "go"
    assert _common.tool_outcomes(converse_user("hi")) == []


# -- the served app --------------------------------------------------------------------------------------

def test_server_lists_and_serves_the_examples():
    from fastapi.testclient import TestClient

    from strands_agui.examples.demo import build_app

    with TestClient(build_app()) as client:
        assert client.get("/ping").json() == {"status": "ok"}
        listed = client.get("/examples").json()
        assert [e["path"] for e in listed] == ["/agentic_chat", "/backend_tool_rendering", "/shared_state",
                                               "/agentic_generative_ui", "/human_in_the_loop", "/multi_agent",
                                               "/a2ui_generative_ui", "/agentic_chat_reasoning",
                                               "/tool_based_generative_ui", "/interrupt", "/predictive_state_updates",
                                               "/agentic_chat_multimodal", "/a2ui_fixed_schema", "/a2ui_recovery",
                                               "/background_agents"]
        assert listed[0]["frontendTools"] == [CHANGE_BACKGROUND]
        assert all(e["name"] and e["description"] for e in listed)
        assert client.get("/").status_code == 200
        body = run_input([user("hello")]).model_dump(mode="json", by_alias=True, exclude_none=True)
        response = client.post("/agentic_chat", json=body, headers={"Accept": "text/event-stream"})
        assert response.status_code == 200 and '"RUN_FINISHED"' in response.text
        assert "access-control-allow-origin" not in client.options(
            "/agentic_chat", headers={"Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST"}
        ).headers

    with TestClient(build_app(cors_origins=["http://localhost:3000"])) as client:
        preflight = client.options("/shared_state", headers={"Origin": "http://localhost:3000",
                                                             "Access-Control-Request-Method": "POST"})
        assert preflight.headers["access-control-allow-origin"] == "http://localhost:3000"
    with pytest.raises(ValueError, match="wildcard"):
        build_app(cors_origins=["*"])


# -- model_from_env --------------------------------------------------------------------------------------

def _scenario(messages: Any) -> list[Any]:
    return [Text("hi")]


@pytest.mark.parametrize("value", [None, "", "  ", "scripted", "SCRIPTED"])
def test_no_model_configured_means_the_scripted_model(value):
    env = {} if value is None else {"STRANDS_AGUI_MODEL": value}
    model = model_from_env(_scenario, env=env)
    assert isinstance(model, ScriptedModel) and model._delay == 0.03
    assert model_from_env(_scenario, env={**env, "STRANDS_AGUI_SCRIPTED_DELAY": "0"})._delay == 0


def test_a_bad_delay_is_reported():
    with pytest.raises(ValueError, match="STRANDS_AGUI_SCRIPTED_DELAY"):
        model_from_env(_scenario, env={"STRANDS_AGUI_SCRIPTED_DELAY": "fast"})


@pytest.mark.parametrize(("spec", "parsed"), [
    ("bedrock:us.anthropic.claude-sonnet-4-20250514-v1:0", ("bedrock", "us.anthropic.claude-sonnet-4-20250514-v1:0")),
    ("openai:gpt-4o", ("openai", "gpt-4o")),
    ("anthropic:claude-sonnet-4-20250514", ("anthropic", "claude-sonnet-4-20250514")),
    ("ollama:llama3.2:3b", ("ollama", "llama3.2:3b")),
    (" OpenAI : gpt-4o-mini ", ("openai", "gpt-4o-mini")),
])
def test_parse_model_spec(spec, parsed):
    assert parse_model_spec(spec) == parsed


@pytest.mark.parametrize("spec", ["gemini:gemini-2.5-flash", "gpt-4o", "bedrock:", "openai"])
def test_unknown_or_incomplete_specs_list_the_accepted_forms(spec):
    with pytest.raises(ValueError, match="bedrock:<model_id>.*openai:<model>.*anthropic:<model>.*ollama:<model>"):
        model_from_env(_scenario, env={"STRANDS_AGUI_MODEL": spec})


def test_bedrock_model_is_built_without_network():
    model = model_from_env(_scenario, env={"STRANDS_AGUI_MODEL": "bedrock:us.amazon.nova-lite-v1:0",
                                           "AWS_REGION": "eu-west-1"})
    assert isinstance(model, BedrockModel)
    assert model.get_config()["model_id"] == "us.amazon.nova-lite-v1:0"
    assert model.client.meta.region_name == "eu-west-1"


@pytest.mark.parametrize(("spec", "kwargs"), [
    ("openai:gpt-4o", {"model_id": "gpt-4o", "client_args": {}}),
    ("anthropic:claude-sonnet-4-20250514", {"model_id": "claude-sonnet-4-20250514", "max_tokens": 4096}),
    ("ollama:llama3.2", {"host": "http://localhost:11434", "model_id": "llama3.2"}),
])
def test_providers_get_their_constructor_arguments(monkeypatch, spec, kwargs):
    """The provider class is replaced by a recorder, so this runs whether or not its package is installed."""
    provider = spec.split(":")[0]
    module_name, class_name, _ = models.PROVIDERS[provider]
    seen: dict[str, Any] = {}

    class Recorder:
        def __init__(self, *args: Any, **kw: Any) -> None:
            assert not args
            seen.update(kw)

    monkeypatch.setitem(sys.modules, module_name, types.SimpleNamespace(**{class_name: Recorder}))
    assert isinstance(model_from_env(_scenario, env={"STRANDS_AGUI_MODEL": spec}), Recorder)
    assert seen == kwargs


def test_ollama_host_comes_from_the_environment():
    assert models.provider_kwargs("ollama", "qwen3", {"OLLAMA_HOST": "http://gpu-box:11434"}) == {
        "host": "http://gpu-box:11434", "model_id": "qwen3"}


@pytest.mark.parametrize("provider", ["openai", "anthropic", "ollama"])
def test_a_missing_provider_package_names_the_extra(monkeypatch, provider):
    module_name = models.PROVIDERS[provider][0]
    monkeypatch.setitem(sys.modules, provider, None)  # `import <provider>` now raises ImportError
    monkeypatch.delitem(sys.modules, module_name, raising=False)
    with pytest.raises(ModelProviderUnavailable, match=rf"pip install 'strands-agents\[{provider}\]'"):
        model_from_env(_scenario, env={"STRANDS_AGUI_MODEL": f"{provider}:some-model"})


def test_the_installed_providers_really_construct(monkeypatch):
    """With the optional package installed, the real class accepts exactly these arguments (no network)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test")
    built = 0
    for provider, model_id in (("openai", "gpt-4o"), ("anthropic", "claude-sonnet-4-20250514"), ("ollama", "llama3.2")):
        try:
            importlib.import_module(provider)
        except ImportError:
            continue
        model = model_from_env(_scenario, env={"STRANDS_AGUI_MODEL": f"{provider}:{model_id}"})
        assert isinstance(model.get_config(), Mapping) and model.get_config()["model_id"] == model_id
        built += 1
    if not built:
        pytest.skip("none of openai / anthropic / ollama is installed")


# -- human_in_the_loop -----------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize(("answer", "booked"), [({"approved": True}, True),
                                               ({"approved": False, "reason": "too early"}, False)])
async def test_human_in_the_loop_books_only_when_approved(tmp_path, answer, booked):
    from strands_agui.examples import human_in_the_loop
    from strands_agui.runtime.storage.sessions import FileSessions

    agent = human_in_the_loop.build_agent(env=NO_DELAY)
    agent.sessions = FileSessions(tmp_path)
    first = run_input([user("book me a flight to Porto")], thread_id="hitl-example")
    paused = await collect(agent, first)
    (interrupt,) = paused[-1]["outcome"]["interrupts"]
    assert interrupt["responseSchema"]["required"] == ["approved"]
    assert "book_flight" in interrupt["message"] and "Porto" in interrupt["message"]
    held = assert_valid_stream(paused, input=first.model_dump(mode="json", by_alias=True))["messages"]
    second = RunAgentInput.model_validate({
        **run_input(held, thread_id="hitl-example").model_dump(by_alias=True),
        "resume": [{"interruptId": interrupt["id"], "status": "resolved", "payload": answer}]})
    resumed = await collect(agent, second)
    report = assert_valid_stream(resumed, input=second.model_dump(mode="json", by_alias=True, exclude_none=True))
    (result,) = [m for m in report["messages"] if m["role"] == "tool"]
    assert ('"booked":true' in result["content"]) is booked  # compact JSON, as upstream encodes results
    final = report["messages"][-1]["content"]
    assert final.startswith("Your flight to Porto is booked") if booked else (
        final == "I did not book the flight to Porto: you rejected it.")  # its words, not the result pasted
