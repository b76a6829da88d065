"""The AgentCore contract suite's agent and its two servers.

One scripted Strands agent (:func:`build_agent`: no key, no network), answering by its last user message:

* ``weather ...``: calls ``get_weather`` then sums it up (a backend tool round trip);
* ``budget ...``: calls ``ask_budget``, which interrupts (ours pauses the run; a resume answers it);
* ``paint ...``: calls the client's frontend tool ``change_background`` (the run ends waiting for its result);
* ``slow ...``: 40 words, one every 0.1 s (a run long enough to cancel, or to be busy);
* ``silent ...``: nothing for ``SILENT_SECONDS``, then one word (the keep-alive);
* anything else: ``echo <text>``.

Served two ways, each by its own process in the tests:

* ours: ``strands-agui serve --agentcore --app tests.support.agentcore_apps:agent`` (:data:`agent`);
* the reference: ``python -m tests.support.agentcore_apps --port N``: the AgentCore SDK's ``AGUIApp``
  (``bedrock-agentcore==1.25.0``) around ``ag_ui_strands==1.0.2``'s ``StrandsAgent`` on the same agent, as the SDK's
  docs put it together.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterable, Mapping, Sequence
from typing import Any

from strands import Agent, ToolContext, tool

from strands_agui import StrandsAgent
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse, Turn
from tests.support.agents import last_user_text

SILENT_SECONDS = 1.5
SLOW_WORDS, SLOW_GAP = 40, 0.1


@tool
def get_weather(location: str) -> dict:
    """Current weather for a location."""
    return {"location": location, "temperature": 21, "conditions": "sunny"}


@tool(context=True)
def ask_budget(trip: str, tool_context: ToolContext) -> str:
    """Ask the traveller for their budget."""
    answer = tool_context.interrupt("budget", reason={"message": f"What is your budget for {trip}?"})
    return f"The budget for {trip} is {answer['response']} EUR."  # the payload as {"response": payload}


def script(messages: Sequence[Mapping[str, Any]]) -> Turn:
    """The agent's answer to a conversation (see the module docstring)."""
    results = [b["toolResult"] for b in messages[-1]["content"] if "toolResult" in b]
    if results:
        return [Text("Done: " + " ".join(c.get("text", "") for r in results for c in r["content"]), chunks=2)]
    text = last_user_text(messages)
    if text.startswith("weather"):
        return [Text("Let me look."), ToolUse("get_weather", {"location": "Paris"})]
    if text.startswith("budget"):
        return [ToolUse("ask_budget", {"trip": "Porto"})]
    if text.startswith("paint"):  # a frontend tool the client declares: the run halts for its result
        return [ToolUse("change_background", {"color": "blue"})]
    if text.startswith("slow"):
        return [Text(" ".join(f"w{i}" for i in range(SLOW_WORDS)))]
    if text.startswith("silent"):
        return [Text("awake")]
    return [Text(f"echo {text}")]


class ContractModel(ScriptedModel):
    """:func:`script`, with the pace its prompt asks for."""

    def __init__(self) -> None:
        super().__init__(script)

    async def stream(self, messages: Any, tool_specs: Any = None, system_prompt: str | None = None,
                     **kwargs: Any) -> AsyncIterable[Any]:
        text = last_user_text(messages)
        first = SILENT_SECONDS if text.startswith("silent") else 0.0
        gap = SLOW_GAP if text.startswith("slow") else 0.0
        async for chunk in super().stream(messages, tool_specs, system_prompt, **kwargs):
            if first or gap:
                await asyncio.sleep(first or gap)
                first = 0.0
            yield chunk


def build_agent() -> Agent:
    return Agent(name="contract", model=ContractModel(), tools=[get_weather, ask_budget], callback_handler=None)


agent = StrandsAgent(build_agent(), name="contract")
"""Ours: what ``strands-agui serve --agentcore --app tests.support.agentcore_apps:agent`` serves."""


def reference_app() -> Any:
    """The AgentCore SDK's own AG-UI server around ``ag_ui_strands``' adapter of the same agent."""
    import ag_ui_strands
    from bedrock_agentcore.runtime.ag_ui import AGUIApp

    app = AGUIApp()
    app.entrypoint(ag_ui_strands.StrandsAgent(build_agent(), name="contract"))
    return app


def main() -> None:
    parser = argparse.ArgumentParser(description="the AgentCore SDK's AGUIApp around ag_ui_strands, on loopback")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    reference_app().run(port=args.port, host="127.0.0.1", log_level="warning")


if __name__ == "__main__":
    main()
