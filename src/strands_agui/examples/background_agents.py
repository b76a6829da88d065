"""Background tasks and a Confirm intervention (Strands 1.62, issue 29).

``write_report`` always runs as a Strands background task (``Agent(background_tasks={"always": [...]})``): the
model gets "Background task dispatched ..." at once and goes on; the client follows the task as a
``background_task`` activity message (``queued`` / ``working`` -> ``completed`` with the report), the console's
task card. ``book_flight`` is gated by an intervention handler returning ``Confirm(prompt=...)``: the run pauses
on an interrupt answered with the same approval card and contract as ``human_in_the_loop`` (``{approved:
true}`` books, ``{approved: false}`` refuses). ``cancel_flight`` is gated by Strands' vended ``HumanInTheLoop``
handler (``strands.vended_interventions.hitl``, interrupt/resume mode: every tool not allow-listed asks), whose
``Confirm`` is answered with the same card and contract (its prompt: ``Approve "cancel_flight"?`` and the input).

Scripted scenario (no ``STRANDS_AGUI_MODEL``):

- a user message naming a "report" -> ``write_report`` on the words after "on" (default "sales");
- a user message naming "cancel" -> ``cancel_flight`` of the city named after "to" (default Lisbon);
- any other user message -> ``book_flight`` to the city named after "to" (default Lisbon);
- a background task's delivered result, or a booking's outcome -> a sentence about it.

``STRANDS_AGUI_REPORT_LATER=1`` builds the agent with ``wait_for_completion: False``: the run ends while the report
is written, and the thread's next message delivers it onto the same card (docs/events.md, "Background tasks
outliving their run"). ``STRANDS_AGUI_REPORT_SECONDS`` (default 1.5) is how long a report takes.

Run: ``python -m strands_agui.examples.background_agents`` (port from ``PORT``, default 8000).
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Mapping
from typing import Any

from strands import Agent, tool
from strands.interventions import Confirm, InterventionHandler, Proceed
from strands.types.content import Messages
from strands.vended_interventions.hitl import HumanInTheLoop

from strands_agui import StrandsAgent, Text, Turn, create_strands_app, env_flag
from strands_agui.examples._common import call, environment, model, serve, tool_outcomes, user_text

NAME = "background_agents"
DESCRIPTION = "A report written as a background task (a task card), and bookings and cancellations you confirm."
PROMPTS = ("Write a report on sales", "Book me a flight to Porto", "Cancel my flight to Porto")
FRONTEND_TOOLS: list[Any] = []
SYSTEM_PROMPT = ("You write reports with write_report (it runs in the background: carry on, the result comes "
                 "later), book flights with book_flight and cancel them with cancel_flight (the user confirms each "
                 "booking and each cancellation).")


@tool
async def write_report(topic: str) -> str:
    """Write a short report on a topic (a demo: takes a moment).

    Args:
        topic: What the report is about.
    """
    await asyncio.sleep(float(os.environ.get("STRANDS_AGUI_REPORT_SECONDS", "1.5")))
    return f"Report on {topic}: all indicators are fine."


@tool
def book_flight(city: str) -> dict:
    """Book a flight to a city (a demo: nothing is really booked).

    Args:
        city: Where to fly.
    """
    return {"booked": True, "city": city.strip()}


@tool
def cancel_flight(city: str) -> dict:
    """Cancel a booked flight to a city (a demo: nothing is really cancelled).

    Args:
        city: The flight's destination.
    """
    return {"cancelled": True, "city": city.strip()}


class ConfirmBookings(InterventionHandler):
    """Every booking waits for the user's yes (a Strands ``Confirm``: our approval card)."""

    name = "confirm-bookings"

    def before_tool_call(self, event: Any, **kwargs: Any) -> Any:
        if event.tool_use["name"] != "book_flight":
            return Proceed()
        return Confirm(prompt=f"Book a flight to {event.tool_use['input'].get('city')}?")


# a request, not a word: "write a report on sales", "cancel my flight" (not "why is the report late?")
_QUESTION = re.compile(r"^\s*(?:why|what|how|who|when|where|which|is|are|was|were|do|does|did)\b", re.IGNORECASE)
_ASKS_REPORT = re.compile(r"^\s*(?:please\s+)?(?:(?:can|could) you\s+)?(?:write|draft|prepare|make|create|"
                          r"generate|start)\b.*\breport\b", re.IGNORECASE)
_ASKS_CANCEL = re.compile(r"^\s*(?:please\s+)?(?:(?:can|could) you\s+)?cancel\b", re.IGNORECASE)
_AFTER = re.compile(r"\b(?:on|to)\s+([A-Za-z][A-Za-z' -]*)")


def refusal(result: str) -> str:
    """Why a call did not run, in the user's terms (never the tool's message pasted back)."""
    return "you said no." if re.search(r"\b(?:reject|declin|denied|no)\w*", result, re.IGNORECASE) else "it failed."


def scenario(messages: Messages) -> Turn:
    """The scripted model's next turn (see the module docstring)."""
    outcomes = tool_outcomes(messages)
    if outcomes:
        sentences = []
        for outcome in outcomes:
            if outcome.name == "write_report":
                sentences.append("I started the report; it will appear on its card when it is ready.")
            elif outcome.name == "book_flight" and isinstance(outcome.data, Mapping) and outcome.data.get("booked"):
                sentences.append(f"Your flight to {outcome.data.get('city')} is booked.")
            elif outcome.name == "book_flight":
                sentences.append(f"I did not book the flight to {outcome.input.get('city') or 'there'}: "
                                 f"{refusal(outcome.text)}")
            elif (outcome.name == "cancel_flight" and isinstance(outcome.data, Mapping)
                  and outcome.data.get("cancelled")):
                sentences.append(f"Your flight to {outcome.data.get('city')} is cancelled.")
            elif outcome.name == "cancel_flight":
                sentences.append(f"I did not cancel the flight to {outcome.input.get('city') or 'there'}: "
                                 f"{refusal(outcome.text)}")
            else:  # a background task's delivered result
                sentences.append("The report is ready: see its card.")
        return [Text(" ".join(sentences))]
    words = user_text(messages)
    match = _AFTER.search(words)
    subject = match.group(1).strip(" .'-") if match else None
    if _ASKS_REPORT.search(words):
        return [call("write_report", {"topic": subject or "sales"})]
    if _ASKS_CANCEL.search(words):
        return [call("cancel_flight", {"city": subject or "Lisbon"})]
    if _QUESTION.match(words) or not re.search(r"\b(?:book|fly|flight|flights|trip|ticket)\b", words, re.IGNORECASE):
        return [Text("I write reports in the background (\"write a report on sales\"), book flights and cancel "
                     "them; you confirm each booking and each cancellation.")]
    return [Text(f"I will book a flight to {subject or 'Lisbon'} once you confirm."),
            call("book_flight", {"city": subject or "Lisbon"})]


def build_agent(env: Mapping[str, str] | None = None) -> StrandsAgent:
    """The example's AG-UI agent; ``env`` (default ``os.environ``) picks the model."""
    env = environment(env)
    later = env_flag("STRANDS_AGUI_REPORT_LATER", env.get("STRANDS_AGUI_REPORT_LATER"))
    strands_agent = Agent(
        model=model(scenario, env),
        tools=[write_report, book_flight, cancel_flight],
        system_prompt=SYSTEM_PROMPT,
        callback_handler=None,
        background_tasks={"always": ["write_report"], "wait_for_completion": not later},
        interventions=[ConfirmBookings(),
                       HumanInTheLoop(allowed_tools=["write_report", "book_flight", "strands_manage_background_task"])],
    )
    return StrandsAgent(strands_agent, name=NAME, description=DESCRIPTION)


agent = build_agent()
app = create_strands_app(agent)

if __name__ == "__main__":
    serve(app)
