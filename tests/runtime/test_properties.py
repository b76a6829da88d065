"""Property test: scripted models play random production-shaped turns on a real strands.Agent; every
stream the adapter emits must be well framed and pass ag-ui-validate with no finding."""

from __future__ import annotations

import asyncio

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from strands_agui import StrandsAgent, StrandsAgentConfig, ToolBehavior
from strands_agui.tooling.scripted import Fail, Reasoning, Text, ToolUse
from strands_agui.tooling.testing import dump_events
from tests.oracles import check_ag_ui_validate
from tests.support.scenarios import CHANGE_BACKGROUND, Scenario, get_time, get_weather, run_input

words = st.text(alphabet="abcdefghij .,!", min_size=1, max_size=30).filter(str.strip)
tool_use = st.builds(lambda name, city: ToolUse(name, {"location": city} if name == "get_weather" else {"city": city}),
                     st.sampled_from(["get_weather", "get_time", "nope", "change_background"]), words)
step = st.one_of(st.builds(Text, words), st.builds(Reasoning, words, st.none() | st.just("sig")), tool_use)
turn = st.lists(step, min_size=1, max_size=4)
ending = st.sampled_from([None, "fail"])
behaviors = st.fixed_dictionaries({
    "continue": st.booleans(), "stop_after": st.booleans(), "skip_snapshot": st.booleans()})


def numbered(turns: list[list]) -> list[list]:
    """Give every tool use a unique id, as a model does."""
    n = iter(range(1_000))
    return [[ToolUse(s.name, s.input, tool_use_id=f"t{next(n)}") if isinstance(s, ToolUse) else s for s in t]
            for t in turns]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns=st.lists(turn, min_size=1, max_size=4), end=ending, flags=behaviors)
def test_random_runs_emit_valid_streams(turns: list[list], end: str | None, flags: dict[str, bool]) -> None:
    turns = numbered(turns)
    if end == "fail":
        turns[-1] = [*turns[-1], Fail(RuntimeError("model failed"))]
    config = StrandsAgentConfig(tool_behaviors={
        "change_background": ToolBehavior(continue_after_frontend_call=flags["continue"]),
        "get_weather": ToolBehavior(stop_streaming_after_result=flags["stop_after"],
                                    skip_messages_snapshot=flags["skip_snapshot"]),
    })
    scenario = Scenario("random", turns, tools=[get_weather, get_time], config=config,
                        input=run_input("hello", state={"k": 1}, tools=[CHANGE_BACKGROUND]))

    async def run() -> list:
        return [e async for e in StrandsAgent(scenario.agent(), config=config).run(scenario.input)]

    events = dump_events(asyncio.run(run()))
    types = [e["type"] for e in events]
    assert types[0] == "RUN_STARTED"
    assert types[-1] in ("RUN_FINISHED", "RUN_ERROR")
    assert types.count("RUN_FINISHED") + types.count("RUN_ERROR") == 1
    if types[-1] == "RUN_ERROR":
        assert events[-1]["code"] in ("STRANDS_ERROR",), events[-1]
    check_ag_ui_validate(events)
