"""The recorded scenarios: a real ``strands.Agent`` on a scripted model, the adapter config, the AG-UI input.

``python -m tests.support.record_fixtures`` records each scenario's live run into ``tests/fixtures/<name>.jsonl`` and
its AG-UI output (ids as relations) into ``tests/golden/<name>.jsonl``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import CustomEvent, RunAgentInput, StateDeltaEvent
from strands import Agent, tool
from strands.interventions import Deny, InterventionHandler, Transform
from strands.types.exceptions import ModelThrottledException

from strands_agui import (
    PredictStateMapping,
    StrandsAgentConfig,
    ToolBehavior,
    ToolCallContext,
    ToolResultContext,
)
from strands_agui.tooling.scripted import Fail, Reasoning, ScriptedModel, Text, ToolUse, Turn


@tool
def get_weather(location: str) -> dict:
    """Current weather for a location."""
    return {"location": location, "temperature": 21, "conditions": "sunny"}


@tool
def get_time(city: str) -> str:
    """Local time in a city."""
    return f"It is 12:00 in {city}."


@tool
def explode(reason: str) -> str:
    """A tool that always fails."""
    raise RuntimeError(f"tool failed: {reason}")


@tool
def create_plan(steps: list[str]) -> dict:
    """Create a plan of steps."""
    return {"steps": [{"description": s, "status": "pending"} for s in steps]}


@tool
def update_recipe(title: str, ingredients: list[str]) -> dict:
    """Update the shared recipe."""
    return {"title": title, "ingredients": ingredients, "saved": True}


CHANGE_BACKGROUND = {
    "name": "change_background",
    "description": "Change the page background colour.",
    "parameters": {"type": "object", "properties": {"background": {"type": "string"}}, "required": ["background"]},
}


def run_input(prompt: str = "Hi there", *, state: Any = None, tools: list[dict[str, Any]] | None = None,
              messages: list[dict[str, Any]] | None = None) -> RunAgentInput:
    history = messages if messages is not None else [{"id": "user-1", "role": "user", "content": prompt}]
    return RunAgentInput.model_validate({
        "threadId": "thread-1", "runId": "run-1", "messages": history, "state": state,
        "tools": tools or [], "context": [], "forwardedProps": {},
    })


@dataclass
class Scenario:
    name: str
    turns: list[Turn]
    tools: list[Any] = field(default_factory=list)
    config: StrandsAgentConfig = field(default_factory=StrandsAgentConfig)
    input: RunAgentInput = field(default_factory=run_input)
    model_kwargs: dict[str, Any] = field(default_factory=dict)
    agent_kwargs: dict[str, Any] = field(default_factory=dict)
    source: Callable[[], Any] | None = None  # builds the agent, Swarm or Graph instead of turns/tools

    def agent(self) -> Any:
        if self.source is not None:
            return self.source()
        model = ScriptedModel(self.turns, **self.model_kwargs)
        return Agent(model=model, tools=list(self.tools), callback_handler=None, **self.agent_kwargs)


# -- hooks ------------------------------------------------------------------------------------------------
async def chunked_args(context: ToolCallContext) -> AsyncIterator[str]:
    text = context.args_str
    for i in range(0, len(text), 8):
        yield text[i : i + 8]


def plan_state(context: ToolCallContext) -> dict[str, Any]:
    return {"steps": [{"description": s, "status": "pending"} for s in context.tool_input["steps"]]}


async def recipe_from_args(context: ToolCallContext) -> dict[str, Any]:
    return {"recipe": {"title": context.tool_input["title"], "ingredients": context.tool_input["ingredients"]}}


def recipe_from_result(context: ToolResultContext) -> dict[str, Any]:
    return {"saved": bool(context.result_data.get("saved"))}


async def progress(context: ToolResultContext) -> AsyncIterator[Any]:
    for index, _ in enumerate(context.result_data["steps"]):
        await asyncio.sleep(0)
        yield StateDeltaEvent(delta=[{"op": "replace", "path": f"/steps/{index}/status", "value": "completed"}])
    yield CustomEvent(name="plan_done", value={"steps": len(context.result_data["steps"])})


def broken_hook(context: ToolCallContext) -> dict[str, Any]:
    raise ValueError("state hook is broken")


async def broken_handler(context: ToolResultContext) -> AsyncIterator[Any]:
    yield CustomEvent(name="before_failure", value=1)
    raise RuntimeError("handler is broken")


def broken_builder(input_data: RunAgentInput, prompt: str) -> str:
    raise KeyError("recipe")


def recipe_builder(input_data: RunAgentInput, prompt: str) -> str:
    return f"{prompt}\n\nCurrent state: {input_data.state}"


WEATHER = ToolUse("get_weather", {"location": "Paris"}, tool_use_id="tool-weather")

SCENARIOS: list[Scenario] = [
    Scenario("plain_text", [[Text("Hello! How can I help you today?")]]),
    Scenario("backend_tool", [[Text("Let me check the weather."), WEATHER], [Text("It is sunny in Paris.")]],
             tools=[get_weather], input=run_input("Weather in Paris?", state={"units": "metric"})),
    Scenario("parallel_tools", [
        [Text("Checking both."), WEATHER, ToolUse("get_time", {"city": "Paris"}, tool_use_id="tool-time")],
        [Text("Sunny, and it is noon.")]], tools=[get_weather, get_time]),
    Scenario("frontend_tool_halt", [[Text("Changing the background."),
                                     ToolUse("change_background", {"background": "blue"}, tool_use_id="tool-bg")],
                                    [Text("This turn must never be reached.")]],
             input=run_input("Make it blue", tools=[CHANGE_BACKGROUND])),
    Scenario("frontend_tool_continue", [[ToolUse("change_background", {"background": "red"}, tool_use_id="tool-bg")],
                                        [Text("I asked the page to turn red.")]],
             config=StrandsAgentConfig(tool_behaviors={"change_background": ToolBehavior(
                 continue_after_frontend_call=True)}),
             input=run_input("Make it red", tools=[CHANGE_BACKGROUND])),
    Scenario("stop_after_result", [[Text("Planning."), ToolUse("create_plan", {"steps": ["a", "b"]},
                                                               tool_use_id="tool-plan")],
                                   [Text("This text is cut off.")]],
             tools=[create_plan],
             config=StrandsAgentConfig(tool_behaviors={"create_plan": ToolBehavior(stop_streaming_after_result=True)})),
    Scenario("predict_state_args_streamer", [[ToolUse("create_plan", {"steps": ["mix flour", "bake", "serve"]},
                                                      tool_use_id="tool-plan")], [Text("Plan ready.")]],
             tools=[create_plan], input=run_input("Plan a cake", state={"steps": []}),
             config=StrandsAgentConfig(tool_behaviors={"create_plan": ToolBehavior(
                 predict_state=[PredictStateMapping("steps", "create_plan", "steps")], args_streamer=chunked_args,
                 state_from_args=plan_state)})),
    Scenario("state_hooks", [[ToolUse("update_recipe", {"title": "Soup", "ingredients": ["leek", "potato"]},
                                      tool_use_id="tool-recipe")], [Text("Recipe updated.")]],
             tools=[update_recipe], input=run_input("Make soup", state={"recipe": {}, "theme": "dark"}),
             config=StrandsAgentConfig(state_context_builder=recipe_builder, tool_behaviors={
                 "update_recipe": ToolBehavior(state_from_args=recipe_from_args,
                                               state_from_result=recipe_from_result)})),
    Scenario("custom_result_handler", [[ToolUse("create_plan", {"steps": ["one", "two"]}, tool_use_id="tool-plan")],
                                       [Text("Done.")]],
             tools=[create_plan], input=run_input("Plan", state={"steps": [
                 {"description": "one", "status": "pending"}, {"description": "two", "status": "pending"}]}),
             config=StrandsAgentConfig(tool_behaviors={"create_plan": ToolBehavior(custom_result_handler=progress)})),
    Scenario("hook_raises", [[WEATHER], [Text("Still here.")]], tools=[get_weather],
             input=run_input("Weather?", state={"units": "metric"}),
             config=StrandsAgentConfig(state_context_builder=broken_builder, tool_behaviors={
                 "get_weather": ToolBehavior(state_from_args=broken_hook, custom_result_handler=broken_handler)})),
    Scenario("tool_raises", [[ToolUse("explode", {"reason": "testing"}, tool_use_id="tool-x")],
                             [Text("The tool failed, sorry.")]], tools=[explode]),
    Scenario("unknown_tool", [[ToolUse("does_not_exist", {}, tool_use_id="tool-missing")],
                              [Text("That tool does not exist.")]]),
    Scenario("model_error", [[Text("Starting to answer"), Fail(RuntimeError("model exploded"))]]),
    Scenario("max_tokens", [[Text("This answer is cut")]], model_kwargs={"stop_reason": "max_tokens"}),
    Scenario("reasoning", [[Reasoning("The user wants a greeting.", signature="c2lnbmF0dXJl"), Text("Hello!")]]),
    Scenario("throttled", [[Fail(ModelThrottledException("slow down"))]],
             agent_kwargs={"retry_strategy": None}),
]

BY_NAME: dict[str, Scenario] = {s.name: s for s in SCENARIOS}


def pinned_ids() -> Callable[[], str]:
    """An id factory producing id-1, id-2, ... so a live run and its replay can be compared literally."""
    counter = iter(range(1, 1_000_000))
    return lambda: f"id-{next(counter)}"

STATE_HOOKS_CONFIG = BY_NAME["state_hooks"].config


def _plain_agent() -> Any:
    from strands_agui import StrandsAgent

    return StrandsAgent(lambda _input: Agent(model=ScriptedModel([[Text("Hello from the recorder.")]]),
                                             callback_handler=None))


PLAIN_AGENT = _plain_agent()

SCENARIOS.append(Scenario("model_error_after_tool", [[WEATHER], [Text("Half an"), Fail(RuntimeError("model died"))]],
                          tools=[get_weather]))
BY_NAME["model_error_after_tool"] = SCENARIOS[-1]


# -- what Strands reports: outcomes, usage, fidelity, results (one real run each) -------------------------
from pydantic import BaseModel  # noqa: E402
from strands.event_loop._retry import ModelRetryStrategy  # noqa: E402
from strands.hooks import AfterModelCallEvent, BeforeToolCallEvent, HookProvider, HookRegistry  # noqa: E402

from strands_agui.tooling.scripted import Cancel, Cited, RedactedReasoning  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(16))


@tool
def failing_lookup(query: str) -> dict:
    """A lookup that reports its own failure."""
    return {"status": "error", "content": [{"text": f"no entry for {query}"}]}


@tool
def draw_chart(title: str) -> dict:
    """Draw a chart (an image result)."""
    return {"status": "success", "content": [{"text": f"Chart: {title}"},
                                             {"image": {"format": "png", "source": {"bytes": PNG}}}]}


@tool
def stats(city: str) -> dict:
    """City statistics (a JSON result)."""
    return {"status": "success", "content": [{"json": {"city": city, "population": 2100000}}]}


class Forecast(BaseModel):
    city: str
    temperature: int


class RetryOnce(HookProvider):
    """Asks Strands to retry the first model call (an AfterModelCallEvent hook)."""

    def __init__(self) -> None:
        self.retried = False

    def register_hooks(self, registry: HookRegistry, **_: Any) -> None:
        registry.add_callback(AfterModelCallEvent, self.after_model)

    def after_model(self, event: AfterModelCallEvent) -> None:
        if not self.retried:
            self.retried = True
            event.retry = True


class RefuseWeather(HookProvider):
    """Cancels every get_weather call before it runs (BeforeToolCallEvent.cancel_tool)."""

    def register_hooks(self, registry: HookRegistry, **_: Any) -> None:
        registry.add_callback(BeforeToolCallEvent, self.before_tool)

    def before_tool(self, event: BeforeToolCallEvent) -> None:
        if event.tool_use["name"] == "get_weather":
            event.cancel_tool = "weather lookups are disabled"


def shadowing_state(request: Any, input_data: RunAgentInput) -> dict[str, Any]:
    return {"data": "SHADOW", "tenant": "acme"}


CITATION = {"title": "World Atlas", "location": {"documentChar": {"documentIndex": 0, "start": 0, "end": 20}},
            "sourceContent": [{"text": "Paris is the capital of France."}]}


@tool
async def write_report(topic: str) -> str:
    """Write a report (slowly: a background task)."""
    await asyncio.sleep(0.2)
    return f"Report on {topic}: all fine."


class DenyWeather(InterventionHandler):
    name = "deny-weather"

    def before_tool_call(self, event: Any, **kwargs: Any) -> Any:
        return Deny(reason="weather lookups are off today")


class WeatherInPorto(InterventionHandler):
    name = "weather-in-porto"

    def before_tool_call(self, event: Any, **kwargs: Any) -> Any:
        def apply(e: Any) -> None:
            e.tool_use["input"] = {**e.tool_use["input"], "location": "Porto"}
        return Transform(apply=apply)


SCENARIOS += [
    Scenario("cancelled", [[Text("I was about to write a long answer"), Cancel(), Text("never streamed")]]),
    Scenario("cancel_before_tools", [[Text("Checking."), WEATHER, Cancel()]], tools=[get_weather]),
    Scenario("usage_cache", [[Text("Cached hello.")]],
             model_kwargs={"usage": {"cacheReadInputTokens": 7, "cacheWriteInputTokens": 3}}),
    Scenario("throttle_retry", [[Text("A first attempt"), Fail(ModelThrottledException("slow down"))],
                                [Text("The retried answer.")]],
             agent_kwargs={"retry_strategy": ModelRetryStrategy(max_attempts=2, initial_delay=0)}),
    Scenario("hook_retry", [[Text("Discarded draft."), WEATHER], [Text("Final answer.")]], tools=[get_weather],
             agent_kwargs={"hooks": [RetryOnce()]}),
    Scenario("citations", [[Cited("Paris is the capital of France.", (CITATION,))]]),
    Scenario("redacted_reasoning", [[RedactedReasoning(b"opaque-reasoning"), Text("Done thinking.")]]),
    Scenario("tool_error_result", [[ToolUse("failing_lookup", {"query": "x"}, tool_use_id="tool-f")],
                                   [Text("Nothing found.")]], tools=[failing_lookup]),
    Scenario("tool_cancelled_by_hook", [[WEATHER], [Text("I may not look that up.")]], tools=[get_weather],
             agent_kwargs={"hooks": [RefuseWeather()]}),
    Scenario("image_result", [[ToolUse("draw_chart", {"title": "Sales"}, tool_use_id="tool-chart")],
                              [Text("Here is the chart.")]], tools=[draw_chart]),
    Scenario("json_result", [[ToolUse("stats", {"city": "Paris"}, tool_use_id="tool-stats")],
                             [Text("Paris has 2.1 million people.")]], tools=[stats]),
    Scenario("structured_output", [[ToolUse("Forecast", {"city": "Paris", "temperature": 21},
                                            tool_use_id="tool-forecast")]],
             agent_kwargs={"structured_output_model": Forecast}),
    Scenario("limit_turns", [[WEATHER], [Text("Never reached.")]], tools=[get_weather],
             config=StrandsAgentConfig(limits={"turns": 1})),
    Scenario("max_tokens_tool_call", [[Text("Let me look."),
                                       ToolUse("get_weather", {"location": "Paris"}, tool_use_id="tool-cut", cut=17)]],
             tools=[get_weather], model_kwargs={"stop_reason": "max_tokens"}),
    Scenario("invocation_state_data", [[Text("The real text.")]],
             config=StrandsAgentConfig(invocation_state_provider=shadowing_state)),
    # issue 29: every budget and filter stop Strands 1.62 ends a run with (core/stops.py)
    Scenario("limit_output_tokens", [[WEATHER], [Text("Never reached.")]], tools=[get_weather],
             config=StrandsAgentConfig(limits={"output_tokens": 10})),
    Scenario("limit_total_tokens", [[WEATHER], [Text("Never reached.")]], tools=[get_weather],
             config=StrandsAgentConfig(limits={"total_tokens": 15})),
    Scenario("content_filtered", [[Text("The first half of an answer the")]],
             model_kwargs={"stop_reason": "content_filtered"}),
    Scenario("stop_sequence", [[Text("Counting: one, two,")]], model_kwargs={"stop_reason": "stop_sequence"}),
    Scenario("guardrail_intervened", [[Text("Sorry, I cannot help with that.")]],
             model_kwargs={"stop_reason": "guardrail_intervened"}),
    # Agent(checkpointing=True): the run pauses after the model asked for a tool (core/checkpoints.py; the
    # resumes are tests/runtime/test_checkpoints.py)
    Scenario("checkpoint", [[Text("Let me look."), WEATHER], [Text("Sunny.")]], tools=[get_weather],
             agent_kwargs={"checkpointing": True}),
    # Agent(interventions=[...]) (issue 29 item 3; the Confirm's pause and resumes: tests/runtime/test_interventions.py)
    Scenario("intervention_deny", [[WEATHER], [Text("I may not look that up.")]], tools=[get_weather],
             agent_kwargs={"interventions": [DenyWeather()]}),
    Scenario("intervention_transform", [[WEATHER], [Text("Sunny in Porto.")]], tools=[get_weather],
             agent_kwargs={"interventions": [WeatherInPorto()]}),
    # Agent(background_tasks=...) (issue 29 item 2): the task as an activity, its result delivered into it
    Scenario("background_task", [[ToolUse("write_report", {"topic": "sales"}, tool_use_id="tool-report")],
                                 [Text("The report is being written.")], [Text("The report is ready.")]],
             tools=[write_report], agent_kwargs={"background_tasks": {"always": ["write_report"]}}),
]
BY_NAME.update({s.name: s for s in SCENARIOS})


def secret_state(request: Any, input_data: RunAgentInput) -> dict[str, Any]:
    return {"api_secret": "s3cr3t-value"}


SCENARIOS.append(Scenario("raw_passthrough", [[WEATHER], [Text("Sunny.")]], tools=[get_weather],
                          agent_kwargs={"hooks": [RefuseWeather()]},
                          config=StrandsAgentConfig(raw_events=True, invocation_state_provider=secret_state)))
BY_NAME["raw_passthrough"] = SCENARIOS[-1]

def _nested_scenarios() -> list[Scenario]:
    from .multi_scenarios import NESTED

    prompts = {"streaming_tool": "Launch", "agent_as_tool": "What is the answer?",
               "agent_as_tool_error": "What is the answer?"}
    return [Scenario(name, [], config=config, source=build, input=run_input(prompts.get(name, "What is the answer?")))
            for name, (build, config) in NESTED.items()]


for _scenario in _nested_scenarios():
    SCENARIOS.append(_scenario)
    BY_NAME[_scenario.name] = _scenario
