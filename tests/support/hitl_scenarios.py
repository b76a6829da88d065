"""Human-in-the-loop scenarios: a real ``strands.Agent`` on a scripted model that pauses on interrupts, and the
resume that answers them. Each scenario is a pair of recorded runs on one thread:
``tests/fixtures/hitl/<name>.pause.jsonl`` and ``<name>.resume.jsonl`` (``python -m tests.support.record_hitl``).

The resume's input is what ``@ag-ui/client`` holds after the paused run (its ``messages``), plus the
``resume`` entries.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import RunAgentInput
from strands import Agent, ToolContext, tool
from strands.multiagent import GraphBuilder, Swarm

from strands_agui import StrandsAgentConfig, ToolBehavior
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse, Turn

EXECUTIONS: list[str] = []  # every backend tool execution, in order (tests read and clear it)

BUDGET_SCHEMA = {"type": "object", "properties": {"amount": {"type": "integer", "minimum": 1}},
                 "required": ["amount"]}


@tool
def book_flight(city: str) -> dict:
    """Book a flight to a city."""
    EXECUTIONS.append(f"book_flight:{city}")
    return {"booked": True, "city": city, "reference": f"FL-{city.upper()}"}


@tool
def get_weather(location: str) -> dict:
    """Current weather for a location."""
    EXECUTIONS.append(f"get_weather:{location}")
    return {"location": location, "temperature": 21, "conditions": "sunny"}


@tool(context=True)
def ask_budget(trip: str, tool_context: ToolContext) -> str:
    """Ask the traveller for their budget."""
    answer = tool_context.interrupt("budget", reason={"message": f"What is your budget for {trip}?",
                                                      "responseSchema": BUDGET_SCHEMA})
    EXECUTIONS.append(f"ask_budget:{answer}")
    return f"The budget for {trip} is {answer['response']['amount']} EUR."  # upstream's {"response": payload}


def follow_up(messages: Sequence[Mapping[str, Any]]) -> Turn:
    """Summarise the tool results that end the conversation (the model's turn after the resume)."""
    results = [b["toolResult"] for b in messages[-1]["content"] if "toolResult" in b]
    texts = [" ".join(c.get("text", "") for c in r["content"]) for r in results]
    return [Text("Done. " + " | ".join(texts), chunks=2)]


HANDOFF = ToolUse("handoff_to_agent", {"agent_name": "writer", "message": "Write the plan up"},
                  tool_use_id="tool-handoff")


@dataclass
class HitlScenario:
    name: str
    first_turn: Turn
    resume: list[dict[str, Any]]  # resume entries; "interruptId": index into the paused run's interrupts
    config: StrandsAgentConfig = field(default_factory=StrandsAgentConfig)
    team: str | None = None  # "swarm" / "graph": the traveller is the first node of one, a writer the second

    def agent(self) -> Any:
        def script(messages: Sequence[Mapping[str, Any]]) -> Turn:
            results = [b["toolResult"] for b in messages[-1]["content"] if "toolResult" in b]
            if not results:
                return self.first_turn
            if any(r["toolUseId"] == HANDOFF.tool_use_id for r in results):
                return [Text("Handed to the writer.")]
            return follow_up(messages) + ([HANDOFF] if self.team == "swarm" else [])

        traveller = Agent(name="traveller", model=ScriptedModel(script), tools=[book_flight, get_weather, ask_budget],
                          callback_handler=None, agent_id="traveller")
        if self.team is None:
            return traveller
        writer = Agent(name="writer", model=ScriptedModel(lambda _: [Text("Trip plan written.")]),
                       callback_handler=None)
        if self.team == "swarm":
            return Swarm([traveller, writer], max_handoffs=5, max_iterations=5)
        builder = GraphBuilder()
        builder.add_node(traveller, "traveller")
        builder.add_node(writer, "writer")
        builder.add_edge("traveller", "writer")
        builder.set_max_node_executions(5)
        return builder.build()

    def resume_entries(self, interrupts: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        return [{**entry, "interruptId": interrupts[entry["interruptId"]]["id"]} for entry in self.resume]


APPROVAL = StrandsAgentConfig(tool_behaviors={"book_flight": ToolBehavior(interrupt_on_call=True)})
BOOK = ToolUse("book_flight", {"city": "Lisbon"}, tool_use_id="tool-book")

SCENARIOS: list[HitlScenario] = [
    HitlScenario("tool_interrupt", [Text("Let me ask."), ToolUse("ask_budget", {"trip": "Lisbon"},
                                                                  tool_use_id="tool-budget")],
                 [{"interruptId": 0, "status": "resolved", "payload": {"amount": 800}}]),
    HitlScenario("approval_rejected", [Text("Booking it."), BOOK],
                 [{"interruptId": 0, "status": "resolved", "payload": {"approved": False, "reason": "too pricey"}}],
                 APPROVAL),
    HitlScenario("approval_with_sibling", [ToolUse("get_weather", {"location": "Lisbon"}, tool_use_id="tool-w"), BOOK],
                 [{"interruptId": 0, "status": "resolved", "payload": {"approved": True}}], APPROVAL),
    HitlScenario("approval_cancelled", [BOOK], [{"interruptId": 0, "status": "cancelled"}], APPROVAL),
]
# the same pauses inside a Swarm / Graph node (python -m tests.support.record_hitl records them too)
TEAM_SCENARIOS: list[HitlScenario] = [
    HitlScenario("swarm_tool_interrupt", SCENARIOS[0].first_turn, SCENARIOS[0].resume, team="swarm"),
    HitlScenario("swarm_approval", [Text("Booking it."), BOOK],
                 [{"interruptId": 0, "status": "resolved", "payload": {"approved": True}}], APPROVAL, team="swarm"),
    HitlScenario("graph_tool_interrupt", SCENARIOS[0].first_turn, SCENARIOS[0].resume, team="graph"),
]
BY_NAME = {s.name: s for s in SCENARIOS + TEAM_SCENARIOS}


def pause_input(thread_id: str = "thread-hitl") -> RunAgentInput:
    return RunAgentInput.model_validate({
        "threadId": thread_id, "runId": "run-pause", "state": {}, "tools": [], "context": [], "forwardedProps": {},
        "messages": [{"id": "user-1", "role": "user", "content": "Book me a trip to Lisbon"}],
    })


def resume_input(client_messages: list[dict[str, Any]], entries: list[dict[str, Any]],
                 thread_id: str = "thread-hitl") -> RunAgentInput:
    """The request ``@ag-ui/client`` sends to resume: the messages it holds and the resume entries."""
    return RunAgentInput.model_validate({
        "threadId": thread_id, "runId": "run-resume", "state": {}, "tools": [], "context": [],
        "forwardedProps": {}, "messages": client_messages, "resume": entries,
    })


def wire(input_data: RunAgentInput) -> dict[str, Any]:
    return json.loads(input_data.model_dump_json(by_alias=True, exclude_none=True))
