"""Backend tool rendering: tools the server runs, whose results the page renders as cards.

``get_weather`` and ``render_chart`` run in the Strands agent. The adapter streams each call
(TOOL_CALL_START/ARGS/END), then its result (TOOL_CALL_RESULT) and a MESSAGES_SNAPSHOT carrying the call and
the result, and the model goes on to summarise the result in text.

Scripted scenario (no ``STRANDS_AGUI_MODEL``):

- the conversation ends with a tool result -> a sentence summarising it (read from the ``toolResult``)
- the user asks about the weather ("weather in Paris") -> ``get_weather({"location": "Paris"})``
- the user asks for a chart/plot/graph -> ``render_chart`` with the numbers in the words (or a default series)
- anything else -> text saying what the agent can do

Run: ``python -m strands_agui.examples.backend_tool_rendering`` (port from ``PORT``, default 8000).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

from strands import Agent, tool
from strands.types.content import Messages

from strands_agui import StrandsAgent, Text, Turn, create_strands_app
from strands_agui.examples._common import ToolOutcome, call, model, serve, snippet, tool_outcomes, user_text

NAME = "backend_tool_rendering"
DESCRIPTION = "Backend tools (get_weather, render_chart) whose results the page renders."
PROMPTS = (  # what the console suggests trying (GET /examples)
    "What's the weather in Lisbon?",
    'Chart of monthly sales: 12, 19, 7, 24, 15',
    'Weather in Tokyo today',
)
FRONTEND_TOOLS: list[Any] = []

SYSTEM_PROMPT = (
    "You are a helpful assistant with two backend tools: get_weather for the weather somewhere, and "
    "render_chart to draw a bar chart of some numbers. Use them when asked, then summarise the result "
    "in one or two sentences."
)

CONDITIONS = ("sunny", "partly cloudy", "cloudy", "light rain", "showers", "windy", "foggy", "clear")
DEFAULT_LOCATION = "Seattle"
DEFAULT_SERIES = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]


@tool
def get_weather(location: str) -> dict:
    """Get the current weather for a location (a deterministic demo: the same place always gets the same
    weather, and nothing goes over the network).

    Args:
        location: The city or place, e.g. "Paris".
    """
    digest = hashlib.sha256(location.strip().lower().encode()).digest()
    temperature = 2 + digest[0] % 30
    wind = 3 + digest[2] % 35
    return {
        "location": location.strip(),
        "temperature_c": temperature,
        "feels_like_c": temperature - (wind // 12),
        "conditions": CONDITIONS[digest[1] % len(CONDITIONS)],
        "humidity_pct": 30 + digest[3] % 60,
        "wind_kmh": wind,
    }


@tool
def render_chart(title: str, values: list[float]) -> dict:
    """Render a bar chart of some numbers: returns what the page needs to draw it.

    Args:
        title: The chart's title.
        values: The numbers to plot, in order.
    """
    numbers = [float(v) for v in values]
    peak = max((abs(v) for v in numbers), default=0.0) or 1.0
    return {
        "title": title,
        "type": "bar",
        "values": numbers,
        "min": min(numbers, default=0.0),
        "max": max(numbers, default=0.0),
        "mean": round(sum(numbers) / len(numbers), 3) if numbers else 0.0,
        "bars": ["█" * max(1, round(20 * abs(v) / peak)) for v in numbers],
    }


_LOCATION = re.compile(r"\b(?:in|for|at)\s+([A-Za-z][A-Za-z ,&.'-]*)")
_TRAILING = re.compile(r"\s+(?:today|tomorrow|tonight|now|right now|please|this week|like|"
                       r"(?:for|on|this|next|over)\s.*)$", re.IGNORECASE)
_AND = re.compile(r"\s*(?:,|&|\band\b)\s*", re.IGNORECASE)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def locations_in(words: str) -> list[str]:
    """The places after "in"/"for"/"at", each on its own ("Berlin and Rome" is two; trailing "today",
    "please"... dropped), else the default."""
    match = _LOCATION.search(words)
    place = match.group(1).strip(" .,'-") if match else ""
    while (trimmed := _TRAILING.sub("", place)) != place:
        place = trimmed
    places = [" ".join(w[:1].upper() + w[1:] for w in part.split()) for part in _AND.split(place)]
    return [p for p in places if p.strip(" .'-")] or [DEFAULT_LOCATION]


def location_in(words: str) -> str:
    """The first place the words name (see :func:`locations_in`)."""
    return locations_in(words)[0]


def chart_request(words: str) -> dict[str, Any]:
    values = [float(n) for n in _NUMBER.findall(words)] or DEFAULT_SERIES
    match = re.search(r"\b(?:of|for|about)\s+([A-Za-z][A-Za-z '-]*)", words)
    title = match.group(1).strip().capitalize() if match else "Demo series"
    return {"title": title, "values": values}


def summary(outcome: ToolOutcome) -> str:
    """One or two sentences about a tool result."""
    data = outcome.data
    if outcome.name == "get_weather" and isinstance(data, Mapping):
        return (
            f"In {data.get('location')} it is {data.get('temperature_c')}°C and {data.get('conditions')} "
            f"(feels like {data.get('feels_like_c')}°C), with {data.get('humidity_pct')}% humidity and "
            f"wind at {data.get('wind_kmh')} km/h."
        )
    if outcome.name == "render_chart" and isinstance(data, Mapping):
        values = data.get("values") or []
        return (
            f"Here is the chart \"{data.get('title')}\": {len(values)} values from {data.get('min')} to "
            f"{data.get('max')}, averaging {data.get('mean')}."
        )
    return f"The {outcome.name or 'tool'} returned: {snippet(outcome.text, 120)}"


def scenario(messages: Messages) -> Turn:
    """Decide the scripted model's next turn from the conversation (see the module docstring)."""
    outcomes = tool_outcomes(messages)
    if outcomes:
        return [Text(" ".join(summary(o) for o in outcomes))]
    words = user_text(messages)
    lowered = words.lower()
    if "weather" in lowered or "forecast" in lowered or "temperature" in lowered:
        places = locations_in(words)
        named = " and ".join(places)
        return [Text(f"Let me check the weather in {named}."), *(call("get_weather", {"location": p}) for p in places)]
    if any(w in lowered for w in ("chart", "plot", "graph")):
        request = chart_request(words)
        return [Text("Drawing that chart now."), call("render_chart", request)]
    return [Text(
        "I can run two backend tools for you: ask about the weather somewhere (\"what's the weather in "
        "Lisbon?\") or for a chart (\"chart of 3, 8, 5 and 13\"). Their results come back as tool cards "
        "the page renders."
    )]


def build_agent(env: Mapping[str, str] | None = None) -> StrandsAgent:
    """The example's AG-UI agent; ``env`` (default ``os.environ``) picks the model."""
    strands_agent = Agent(
        model=model(scenario, env),
        tools=[get_weather, render_chart],
        system_prompt=SYSTEM_PROMPT,
        callback_handler=None,
    )
    return StrandsAgent(strands_agent, name=NAME, description=DESCRIPTION)


agent = build_agent()
app = create_strands_app(agent)

if __name__ == "__main__":
    serve(app)
