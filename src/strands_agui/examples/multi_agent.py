"""Multi-agent: a Strands ``Swarm`` of two agents, each node shown as an AG-UI subagent.

The ``researcher`` searches its notes with a streaming tool (its progress is an activity message), then
hands off to the ``writer`` (``handoff_to_agent``), who writes the answer. On the wire::

    RUN_STARTED
    SUBAGENT_STARTED {name: "researcher", subagentRunId: R}
      TEXT_MESSAGE_* / TOOL_CALL_* (search_notes) / ACTIVITY_SNAPSHOT + ACTIVITY_DELTA* / TOOL_CALL_RESULT,
      TOOL_CALL_* (handoff_to_agent) ... every event with subagentRunId R
    SUBAGENT_FINISHED {subagentRunId: R, result: "<the researcher's last text>"}
    SUBAGENT_STARTED {name: "writer", subagentRunId: W, metadata: {handoff: {from: ["researcher"],
                      to: ["writer"], message: "..."}}}
      TEXT_MESSAGE_* with subagentRunId W
    SUBAGENT_FINISHED {subagentRunId: W, result: "<the answer>"}
    RUN_FINISHED

Scripted scenario (no ``STRANDS_AGUI_MODEL``): the researcher says it will search, calls
``search_notes({"topic": <the topic the words ask about>})`` ("What do you know about solar power?" -> "solar
power", "Research the history of tea" -> "the history of tea"), hands off with the notes, then says it handed
over; the writer answers in a few sentences naming the topic. Every run works on its own copy of the Swarm.

Run: ``python -m strands_agui.examples.multi_agent`` (port from ``PORT``, default 8000).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from ag_ui.core import Tool
from strands import Agent, tool
from strands.multiagent import Swarm
from strands.types.content import Messages

from strands_agui import StrandsAgent, Text, Turn, create_strands_app
from strands_agui.examples._common import call, model, serve, snippet, tool_outcomes, user_text

NAME = "multi_agent"
DESCRIPTION = "A Swarm of two agents (researcher -> writer): each node is a subagent, with tool progress."
PROMPTS = (  # what the console suggests trying (GET /examples)
    'What do you know about solar power?',
    'Research the history of tea',
)
FRONTEND_TOOLS: list[Tool] = []
_REQUEST = re.compile(r"User Request: (.*)")
# how people ask about a topic: the words after it are the topic ("What do you know about solar power?")
_ASKING = re.compile(r"^(?:please\s+|hi[,!]?\s+|hey[,!]?\s+)*(?:(?:can|could) you\s+)?(?:what do (?:you|we) know about|"
                     r"what (?:is|are)|who (?:is|are)|who (?:owns|runs|maintains|built|wrote)|"
                     r"tell me (?:about|what you know about)|research|look up|"
                     r"search (?:the notes )?for|find (?:out )?about|explain|summari[sz]e)\s+", re.IGNORECASE)
# a topic named on its own ("resumable runs", "Redis"): a few words, no question, not small talk or a command
_BARE_TOPIC = re.compile(r"(?!(?:hi|hello|hey|thanks|thank|ok|okay|yes|no|why|how|when|where|which|who|what|tell|"
                         r"make|can|could|would|please|ignore|help|write|do|does|is|are|give|show|stop)\b)"
                         r"[A-Za-z][\w'-]*(?: [\w'-]+){0,4}\.?", re.IGNORECASE)
ASK_A_TOPIC = ("The team (a researcher and a writer) answers from our notes: ask about a topic, like \"What do you "
               "know about solar power?\" or \"Who owns the payments API?\".")


def notes_tool(pause: float) -> Any:
    """The researcher's streaming tool; ``pause`` seconds before each progress report."""

    @tool
    async def search_notes(topic: str) -> AsyncIterator[Any]:
        """Search the team's notes for a topic, reporting progress as it goes."""
        for source in ("wiki", "tickets", "meeting notes"):
            await asyncio.sleep(pause)
            yield {"searching": source}
        yield f"3 notes mention {topic}: it is well documented, widely used, and has an owner."

    return search_notes


def topic_of(messages: Sequence[Mapping[str, Any]]) -> str | None:
    """What the user asks about, from their request inside the Swarm's node context (or their words): the words
    after how people ask about a topic ("Who owns the billing service?" -> "the billing service"); None when the
    request asks about no topic."""
    words = user_text(messages)
    found = _REQUEST.search(words)
    request = (found.group(1) if found else words).strip()
    asking = _ASKING.match(request)
    topic = request[asking.end():].strip(" ?.!") if asking else request if _BARE_TOPIC.fullmatch(request) else ""
    return snippet(topic, 60) or None


def researcher_turn(messages: Messages) -> Turn:
    outcomes = tool_outcomes(messages)
    topic = topic_of(messages)
    if topic is None:
        return [Text(ASK_A_TOPIC)]
    if any(o.name == "handoff_to_agent" for o in outcomes):
        return [Text("Handed over to the writer.")]
    notes = [o.text for o in outcomes if o.name == "search_notes"]
    if notes:
        return [call("handoff_to_agent", {"agent_name": "writer", "message": f"Answer about {topic}. {notes[-1]}"})]
    return [Text(f"Let me search our notes on {topic}."), call("search_notes", {"topic": topic})]


def writer_turn(messages: Messages) -> Turn:
    topic = topic_of(messages) or "it"
    return [Text(f"Here is what the team knows about {topic}: three notes mention it, it is well documented "
                 "and widely used, and it has an owner you can ask. (Two scripted agents wrote this: a "
                 "researcher and a writer, each shown as a subagent.)")]


def build_agent(env: Mapping[str, str] | None = None) -> StrandsAgent:
    """The example's AG-UI agent: a Swarm template (each run gets its own copy); ``env`` picks the model."""
    pace = model(researcher_turn, env)
    researcher = Agent(name="researcher", description="Searches the notes, then hands off to the writer.",
                       model=pace, tools=[notes_tool(getattr(pace, "delay", 0.0) * 10)],
                       system_prompt="Search the notes with search_notes, then hand off to the writer.",
                       callback_handler=None)
    writer = Agent(name="writer", description="Writes the final answer.", model=model(writer_turn, env),
                   system_prompt="Write a short, friendly answer from the notes you were handed.",
                   callback_handler=None)
    swarm = Swarm([researcher, writer], max_handoffs=3, max_iterations=4)
    return StrandsAgent(swarm, name=NAME, description=DESCRIPTION)


agent = build_agent()
app = create_strands_app(agent)

if __name__ == "__main__":
    serve(app)
