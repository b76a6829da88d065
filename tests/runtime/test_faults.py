"""Valid by construction, even when code fails (issue 27): a handler, a user callable or a tool that raises or
returns junk never leaves the machine and the wire disagreeing, and a wrong configuration is refused when it is
built, not mid-run. Every run here drives a real ``strands.Agent`` on a scripted model; every stream goes
through both oracles (ag-ui-validate, and the official client 1.0 and 0.0.59 over the whole file's streams at
the end)."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from ag_ui.core import RunAgentInput, StepFinishedEvent
from strands import Agent

from strands_agui import StrandsAgent, StrandsAgentConfig, ToolBehavior
from strands_agui.core.snapshot import ClientMessages
from strands_agui.errors import ERROR_CODES
from strands_agui.tooling.scripted import Fail, ScriptedModel, Text, ToolUse
from strands_agui.tooling.testing import dump_events
from tests.oracles import check_ag_ui_validate
from tests.support.faults import ENCODER, Case, broken, check, check_clients, fault_at, lookup

INPUT = RunAgentInput.model_validate({"threadId": "t", "runId": "r", "messages": [
    {"id": "u1", "role": "user", "content": "go"}]})
DETACH = "Failed to detach context"
STREAMS: list[list[dict[str, Any]]] = []  # every stream of this file, for one batch through the official clients




def agent(turns: list[list[Any]], tools: list[Any] | None = None) -> Agent:
    return Agent(model=ScriptedModel(turns), tools=tools or [lookup, broken], callback_handler=None)


TOOL_TURNS = [[Text("Let me look."), ToolUse("lookup", {"city": "Paris"})], [Text("Sunny.")]]


def run(adapter: StrandsAgent, caplog: pytest.LogCaptureFixture | None = None) -> list[dict[str, Any]]:
    """The run's wire events; asserts what every stream here must hold (one terminal, a documented code, no
    adapter bug unless asked, ag-ui-validate) and keeps it for the official clients."""
    async def collect() -> list[Any]:
        return [event async for event in adapter.run(INPUT)]

    events = dump_events(asyncio.run(collect()))
    types = [event["type"] for event in events]
    assert types[0] == "RUN_STARTED" and types[-1] in ("RUN_FINISHED", "RUN_ERROR"), types
    assert types.count("RUN_FINISHED") + types.count("RUN_ERROR") == 1, types
    if types[-1] == "RUN_ERROR":
        assert events[-1]["code"] in ERROR_CODES, events[-1]
    check_ag_ui_validate(events)
    if caplog is not None:
        assert DETACH not in caplog.text
    STREAMS.append(events)
    return events


@pytest.fixture(scope="module", autouse=True)
def _official_clients() -> Any:
    """Both client generations read every stream this module produced."""
    yield
    if STREAMS:
        check_clients(STREAMS)
        STREAMS.clear()


# -- a handler that raises after (or before) it moved ---------------------------------------------------------


def test_a_handler_failing_while_it_opens_a_call_leaves_no_end_without_start(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """The announce of a call fails (here: the message mirror): the text it closed first still ends on the
    wire, no TOOL_CALL_END follows for the call never started, and Strands is closed without the detach error."""
    def fail(*_: Any, **__: Any) -> Any:
        raise RuntimeError("mirror broke")

    monkeypatch.setattr(ClientMessages, "open_tool_call", fail)
    caplog.set_level(logging.ERROR)
    events = run(StrandsAgent(agent(TOOL_TURNS)), caplog)
    types = [event["type"] for event in events]
    assert "TOOL_CALL_END" not in types and "TOOL_CALL_START" not in types
    assert types[-2:] == ["TEXT_MESSAGE_END", "RUN_ERROR"], types
    assert events[-1]["code"] == "ADAPTER_ERROR"


# -- user callables that raise or return junk ------------------------------------------------------------------


def raising_ids() -> Callable[[], str]:
    counter = itertools.count()

    def ids() -> str:
        if next(counter) >= 1:
            raise RuntimeError("id service down")
        return "m-0"
    return ids


def none_ids() -> Callable[[], Any]:
    return lambda: None


def constant_ids() -> Callable[[], str]:
    return lambda: "same"


@pytest.mark.parametrize("ids", [raising_ids, none_ids, constant_ids])
def test_an_id_factory_that_fails_ends_the_run_with_its_code(ids: Callable[[], Callable[[], Any]],
                                                             caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR)
    events = run(StrandsAgent(agent(TOOL_TURNS), id_factory=ids()), caplog)
    assert events[-1]["type"] == "RUN_ERROR" and events[-1]["code"] == "ID_FACTORY_ERROR", events[-1]


async def partial_json(_: Any) -> AsyncIterator[str]:
    yield '{"city": "Pa'


async def not_json(_: Any) -> AsyncIterator[str]:
    yield "city=Paris"


async def raising_streamer(_: Any) -> AsyncIterator[str]:
    yield '{"ci'
    raise RuntimeError("streamer broke")


@pytest.mark.parametrize("streamer", [partial_json, not_json, raising_streamer])
def test_an_args_streamer_never_leaves_arguments_the_client_cannot_parse(streamer: Any) -> None:
    config = StrandsAgentConfig(tool_behaviors={"lookup": ToolBehavior(args_streamer=streamer)})
    events = run(StrandsAgent(agent(TOOL_TURNS), config=config))
    args = "".join(e["delta"] for e in events if e["type"] == "TOOL_CALL_ARGS")
    assert args == '{"city": "Paris"}', args
    assert any(e["type"] == "CUSTOM" and e["name"] == "strands_agui.hook_error" for e in events)


async def step_finished_alone(_: Any) -> AsyncIterator[Any]:
    yield StepFinishedEvent(step_name="never started")


async def junk(_: Any) -> AsyncIterator[Any]:
    yield {"type": "TEXT_MESSAGE_START"}


@pytest.mark.parametrize("handler", [step_finished_alone, junk])
def test_a_custom_result_handler_cannot_end_a_step_it_never_started(handler: Any) -> None:
    config = StrandsAgentConfig(tool_behaviors={"lookup": ToolBehavior(custom_result_handler=handler)})
    events = run(StrandsAgent(agent(TOOL_TURNS), config=config))
    assert not any(e["type"] == "STEP_FINISHED" for e in events)
    assert any(e["type"] == "CUSTOM" and e["name"] == "strands_agui.hook_error" for e in events)
    assert events[-1]["type"] == "RUN_FINISHED"


def test_a_tool_that_raises_is_a_failed_result_not_the_end_of_the_run(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR)
    events = run(StrandsAgent(agent([[ToolUse("broken", {"city": "Paris"})], [Text("Sorry.")]])), caplog)
    assert events[-1]["type"] == "RUN_FINISHED"


def test_an_agent_factory_that_raises_is_a_configuration_error() -> None:
    def factory(_: RunAgentInput) -> Agent:
        raise TypeError("Agent() got an unexpected keyword argument 'tool'")

    events = run(StrandsAgent(factory))
    assert events[-1]["code"] == "CONFIGURATION_ERROR", events[-1]


def test_an_agent_factory_returning_junk_is_a_configuration_error() -> None:
    events = run(StrandsAgent(lambda _input: "not an agent"))
    assert events[-1]["code"] == "CONFIGURATION_ERROR", events[-1]


# -- through the driver: the encoder, closing on the error path, on_move --------------------------------------


def served(case: Case) -> list[dict[str, Any]]:
    events = check(case)  # both oracles' in-process checks, one terminal, a documented code, no detach error
    STREAMS.append(events)
    return events


@pytest.mark.parametrize("nth", [9, 10])
def test_an_event_that_cannot_be_encoded_mid_arguments_leaves_arguments_the_client_parses(nth: int) -> None:
    """ENCODING_ERROR cut the run after a TOOL_CALL_ARGS that held half the arguments: the official client read
    them as not JSON. The driver now completes and ends the client's open calls before the RUN_ERROR."""
    events = served(Case(turns=TOOL_TURNS, point=ENCODER, nth=nth))
    assert [e["type"] for e in events][-2:] == ["TOOL_CALL_END", "RUN_ERROR"]
    assert events[-1]["code"] == "ENCODING_ERROR"
    args = "".join(e["delta"] for e in events if e["type"] == "TOOL_CALL_ARGS")
    assert json.loads(args) is not None


def test_closing_a_text_on_the_error_path_that_raises_does_not_escape_the_end() -> None:
    """A handler fails mid-text, then closing that text on the error path raises too: ``_end`` caught only
    MachineError, so run() itself raised and the driver's RUN_ERROR came without the text's END. Now the run
    fails again from where it is, and the text is closed (bare END, ``Translator.abort``)."""
    with fault_at("text.close", 1):
        events = served(Case(turns=[[Text("Half a sentence here")]], point="text.delta", nth=2))
    assert [e["type"] for e in events][-2:] == ["TEXT_MESSAGE_END", "RUN_ERROR"]
    assert events[-1]["code"] == "ADAPTER_ERROR"


def test_closing_that_raises_twice_ends_with_bare_ends() -> None:
    """Closing the text raises on the error path and again when the run fails a second time: the last resort
    (``Translator.abort``) closes it with a bare END, then RUN_ERROR."""
    with fault_at("text.close", 1), fault_at("text.close", 1):  # the first two calls raise
        events = served(Case(turns=[[Text("Half a sentence here")]], point="text.delta", nth=2))
    assert [e["type"] for e in events][-2:] == ["TEXT_MESSAGE_END", "RUN_ERROR"]


def test_a_subagent_whose_close_raises_twice_ends_with_its_error() -> None:
    """The same inside an agent called as a tool: its text gets a bare END and the subagent its SUBAGENT_ERROR,
    attributed to it, before the run's RUN_ERROR."""
    with fault_at("text.close", 1), fault_at("text.close", 1):
        events = served(Case(turns=[[ToolUse("researcher", {"input": "find it"})], [Text("Done.")]],
                             point="text.delta", nth=2))
    types = [e["type"] for e in events]
    assert types[-3:] == ["TEXT_MESSAGE_END", "SUBAGENT_ERROR", "RUN_ERROR"], types
    assert events[-3]["subagentRunId"] == events[-2]["subagentRunId"]


def test_failing_the_run_that_raises_keeps_the_original_failure() -> None:
    events = served(Case(turns=[[Text("Half a sentence"), Fail(RuntimeError("model down"))]], point="outcome.fail",
                         nth=1))
    assert [e["type"] for e in events][-2:] == ["TEXT_MESSAGE_END", "RUN_ERROR"]
    assert events[-1]["code"] == "STRANDS_ERROR", events[-1]


def test_an_on_move_callback_that_raises_at_the_start_still_gives_run_started_first() -> None:
    events = served(Case(turns=TOOL_TURNS, on_move_at=1))
    assert [e["type"] for e in events] == ["RUN_STARTED", "RUN_ERROR"]
    assert events[-1]["code"] == "ADAPTER_ERROR"


def test_a_run_started_that_cannot_be_encoded_still_starts_the_stream() -> None:
    """ENCODING_ERROR on the first event gave a stream that began with RUN_ERROR; a bare RUN_STARTED goes first."""
    events = served(Case(turns=TOOL_TURNS, point=ENCODER, nth=1))
    assert [e["type"] for e in events] == ["RUN_STARTED", "RUN_ERROR"]
    assert events[-1]["code"] == "ENCODING_ERROR"


@pytest.mark.parametrize("team", ["swarm", "graph"])
def test_a_swarm_or_graph_our_code_fails_is_unwound_without_the_detach_error(team: str) -> None:
    """A Swarm or Graph has no ``cancel``: after our own failure it was closed at a ``yield`` from outside, and
    OpenTelemetry logged "Failed to detach context". It is now cancelled at its next await and unwinds itself."""
    events = served(Case(turns=[], team=team, point="subagents.node_stream", nth=3))
    assert events[-1]["code"] == "ADAPTER_ERROR"
