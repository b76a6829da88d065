"""``handlers/subagents.py`` alone: Swarm/Graph nodes (each a run one level down) in both node lifecycles,
agents as tools and tool progress, from real recorded runs."""

from __future__ import annotations

from strands_agui import StrandsAgentConfig
from tests.support.recorded import Stepper, of_type, types


def test_a_node_is_a_subagent_whose_handoff_goes_on_its_start() -> None:
    run = Stepper("swarm_handoff")
    handoff = run.until(of_type("multiagent_handoff"))
    assert run.translator.subagents.on_handoff(handoff) == []  # kept for the target's start
    started = run.translator.subagents.on_node_start(run.until(of_type("multiagent_node_start")))
    assert types(started) == ["SUBAGENT_STARTED"]
    assert started[0].name == "writer"
    assert started[0].metadata == {"handoff": {"from": ["researcher"], "to": ["writer"],
                                               "message": "Write up: the answer is 42"}}
    writer = run.translator.subagents.open["writer"].translator
    assert writer.owner == started[0].subagent_run_id and writer.state == "ready"
    assert writer.facts.model == run.log.metadata["models"]["writer"]  # its own model, from the run facts


def test_in_steps_mode_the_same_node_is_a_step_and_its_handoff_a_custom_event() -> None:
    run = Stepper("swarm_handoff", config=StrandsAgentConfig(multiagent_events="steps"))
    out = run.translator.subagents.on_handoff(run.until(of_type("multiagent_handoff")))
    assert types(out) == ["CUSTOM"] and out[0].name == "MultiAgentHandoff"
    started = run.translator.subagents.on_node_start(run.until(of_type("multiagent_node_start")))
    assert types(started) == ["STEP_STARTED"] and started[0].step_name == "agent:writer"
    stopped = run.translator.subagents.on_node_stop(run.until(of_type("multiagent_node_stop")))
    assert types(stopped)[-1] == "STEP_FINISHED" and "SUBAGENT_FINISHED" not in types(stopped)


def test_a_node_stop_ends_its_machine_and_its_usage_becomes_the_runs() -> None:
    run = Stepper("swarm_handoff")
    run.translator.handle(run.until(of_type("multiagent_node_start")))
    node = run.translator.subagents.open["researcher"].translator
    stop = run.until(of_type("multiagent_node_stop"))
    out = run.translator.subagents.on_node_stop(stop)
    assert types(out)[-1] == "SUBAGENT_FINISHED" and out[-1].result == "Handed to the writer."
    assert node.state == "finished" and "researcher" not in run.translator.subagents.open
    assert run.translator.outcome.usage()  # the node's model calls count for the run


def test_a_resumed_node_continues_under_the_id_the_client_holds_with_its_parked_calls() -> None:
    run = Stepper("hitl/swarm_approval.resume")
    started = run.translator.subagents.on_node_start(run.until(of_type("multiagent_node_start")))
    node = run.translator.subagents.open["traveller"].translator
    held = {m.subagent_run_id for m in run.log.input_data.messages if getattr(m, "subagent_run_id", None)}
    assert started[0].subagent_run_id in held
    assert node.state == "awaiting_result" and node.tools.calls["tool-book"].answered


def test_an_agent_called_as_a_tool_is_a_subagent_of_its_call() -> None:
    run = Stepper("agent_as_tool")
    first = run.until(lambda e: of_type("tool_stream")(e)
                      and "init_event_loop" in e["tool_stream_event"].get("data", {}))
    out = run.translator.subagents.on_tool_stream(first)
    assert types(out)[0] == "SUBAGENT_STARTED"
    call = first["tool_stream_event"]["tool_use"]["toolUseId"]
    assert out[0].parent_tool_call_id == call and call in run.translator.subagents.open


def test_a_streaming_tools_yields_are_its_progress_activity() -> None:
    run = Stepper("streaming_tool")
    first = run.translator.subagents.on_tool_stream(run.until(of_type("tool_stream")))
    assert types(first) == ["ACTIVITY_SNAPSHOT"] and first[0].activity_type == "tool_progress"
    after = run.translator.subagents.on_tool_stream(run.until(of_type("tool_stream")))
    assert types(after) == ["ACTIVITY_DELTA"] and after[0].message_id == first[0].message_id
