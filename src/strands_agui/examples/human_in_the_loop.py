"""Human in the loop: a backend tool that runs only once a person approves it.

``book_flight`` is gated by ``ToolBehavior(interrupt_on_call=True)``. The run that calls it ends with
RUN_FINISHED ``outcome: {type: "interrupt"}``: one interrupt whose ``message`` asks the question and whose
``responseSchema`` is ``{approved: boolean, reason?: string, arguments?: <book_flight's input schema>}``. The next
request on the same thread carries ``resume: [{interruptId, status: "resolved", payload: {approved: true}}]``: the
parked Strands run goes on, the flight is booked and the model confirms; ``{approved: true, arguments: {city:
"Porto"}}`` books Porto instead, and the client's history shows that call. ``{approved: false}`` (or ``status:
"cancelled"``) cancels the call; the model reads why and answers without booking.

Scripted scenario (no ``STRANDS_AGUI_MODEL``):

- the conversation ends with a tool result -> a sentence about the booking, or about the refusal
- "never mind", "cancel", "forget it"... -> a sentence, no booking (also after an approval left unanswered)
- any other user message -> ``book_flight`` to the city the words name after "to" (capitalised words: "Fly me
  to Tokyo next week" books Tokyo; default Lisbon), the sentence naming when ("for next week") if the words say

Pauses wait in the session store (``strands-agui serve --sessions DIR``; default ``~/.strands/sessions``).
Run: ``python -m strands_agui.examples.human_in_the_loop`` (port from ``PORT``, default 8000).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

from strands import Agent, tool
from strands.types.content import Messages

from strands_agui import StrandsAgent, StrandsAgentConfig, Text, ToolBehavior, Turn, create_strands_app
from strands_agui.examples._common import ToolOutcome, call, model, serve, tool_outcomes, user_text

NAME = "human_in_the_loop"
DESCRIPTION = "A backend tool (book_flight) that runs only after you approve it."
PROMPTS = (  # what the console suggests trying (GET /examples)
    'Book me a flight to Paris',
    'Fly me to Tokyo next week',
)
FRONTEND_TOOLS: list[Any] = []
DEFAULT_CITY = "Lisbon"

SYSTEM_PROMPT = (
    "You are a travel assistant. Book flights with the book_flight tool when asked; the user approves each "
    "booking. If a booking is rejected, say so and do not retry."
)


@tool
def book_flight(city: str) -> dict:
    """Book a flight to a city (a demo: nothing is really booked).

    Args:
        city: Where to fly, e.g. "Lisbon".
    """
    reference = hashlib.sha256(city.strip().lower().encode()).hexdigest()[:6].upper()
    return {"booked": True, "city": city.strip(), "reference": f"FL-{reference}"}


CONFIG = StrandsAgentConfig(tool_behaviors={"book_flight": ToolBehavior(interrupt_on_call=True)})
_CITY = re.compile(r"\bto\s+([A-Z][A-Za-z'-]*(?:\s+[A-Z][A-Za-z'-]*)*)")  # capitalised words: "New York"
_WHEN = re.compile(r"\b(today|tonight|tomorrow|(?:next|this) (?:week|month|weekend|year|monday|tuesday|wednesday|"
                   r"thursday|friday|saturday|sunday)|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
                   r"in (?:january|february|march|april|may|june|july|august|september|october|november|december))\b",
                   re.IGNORECASE)


def city_in(words: str) -> str:
    """The city the words name after "to" ("Fly me to Tokyo next week" -> "Tokyo"), else the default."""
    match = _CITY.search(words)
    return match.group(1).strip(" .'-") if match else DEFAULT_CITY


def when_in(words: str) -> str:
    """When the user wants to fly, as they said it ("next week"), or "" when they did not say."""
    match = _WHEN.search(words)
    return match.group(1).lower() if match else ""


def summary(outcome: ToolOutcome) -> str:
    if isinstance(outcome.data, Mapping) and outcome.data.get("booked"):
        return f"Your flight to {outcome.data.get('city')} is booked (reference {outcome.data.get('reference')})."
    city = outcome.input.get("city") or "there"
    if re.search(r"\b(?:reject|declin|denied|not approved)", outcome.text, re.IGNORECASE):
        return f"I did not book the flight to {city}: you rejected it."
    return f"I did not book the flight to {city}: the booking did not go through."


def scenario(messages: Messages) -> Turn:
    """Decide the scripted model's next turn from the conversation (see the module docstring)."""
    outcomes = tool_outcomes(messages)
    if outcomes:
        return [Text(" ".join(summary(o) for o in outcomes))]
    words = user_text(messages)
    if _CHANGED_MIND.search(words):
        return [Text("No problem, I won't book anything. Tell me where you'd like to fly when you're ready.")]
    if not _WANTS_FLIGHT.search(words):
        return [Text("I book flights, and you approve each booking before it happens. Tell me where to: "
                     "\"book me a flight to Paris\".")]
    city, when = city_in(words), when_in(words)
    trip = f"a flight to {city}" + (f" for {when}" if when else "")
    return [Text(f"I can book {trip}. Please approve the booking below, or reject it."),
            call("book_flight", {"city": city})]


_WANTS_FLIGHT = re.compile(r"\b(?:book|fly|flight|flights|trip|travel|ticket|tickets|plane|get me to|take me to)\b",
                           re.IGNORECASE)
_CHANGED_MIND = re.compile(r"\b(never ?mind|cancel|forget it|don't|do not|stop)\b", re.IGNORECASE)


def build_agent(env: Mapping[str, str] | None = None) -> StrandsAgent:
    """The example's AG-UI agent; ``env`` (default ``os.environ``) picks the model."""
    strands_agent = Agent(
        model=model(scenario, env),
        tools=[book_flight],
        system_prompt=SYSTEM_PROMPT,
        callback_handler=None,
    )
    return StrandsAgent(strands_agent, name=NAME, description=DESCRIPTION, config=CONFIG)


agent = build_agent()
app = create_strands_app(agent)

if __name__ == "__main__":
    serve(app)
