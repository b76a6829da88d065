"""A2UI error recovery: a designed surface that is checked, and redesigned when it is invalid (the Dojo's
``a2ui_recovery``).

The agent has ``generate_a2ui`` (``strands_agui.tooling.a2ui``) with ``max_attempts=3``: each surface the
designer subagent renders is checked with ``ag-ui-a2ui-toolkit``'s validator (the one
``@ag-ui/a2ui-middleware`` uses before it paints); an invalid one goes back to the designer as a message listing
the errors, and the designer renders again. The call's result is the valid surface's operations envelope, or,
after three invalid renders, ``{"error", "code": "a2ui_recovery_exhausted", "attempts"}`` (a "tasteful hard
failure": the planner says it could not draw it). Every attempt streams as the subagent's ``render_a2ui`` calls.

Scripted scenario (no ``STRANDS_AGUI_MODEL``):

- the planner: a request -> a sentence, then ``generate_a2ui``; after the result -> "Here is ..." or, when the
  recovery was exhausted, an apology naming the last error
- the designer: a row of cards (hotels, products, team members: the noun the words use) bound to ``/items``,
  with three items; its *first* render forgets to define the card component (``unresolved_child``), the
  retry fixes it; when the words say "broken", every render forgets it (the hard failure)

Run: ``python -m strands_agui.examples.a2ui_recovery`` (port from ``PORT``, default 8000).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from strands import Agent
from strands.types.content import Messages

from strands_agui import A2UI_RETRY_HEADER, StrandsAgent, Text, Turn, a2ui_tool, create_strands_app
from strands_agui.examples._common import call, model, serve, tool_outcomes, user_text

NAME = "a2ui_recovery"
DESCRIPTION = "A2UI surfaces validated and redesigned when invalid (up to 3 attempts), else a clean failure."
PROMPTS = (  # the Dojo page's suggestions
    "Compare 3 luxury hotels with ratings and prices.",
    "Compare 3 broken hotels with ratings and prices.",
)
FRONTEND_TOOLS: list[Any] = []
MAX_ATTEMPTS = 3
SURFACE_ID = "comparison"

SYSTEM_PROMPT = """You are a helpful assistant that creates rich visual UI on the fly.

When the user asks for visual content (hotel/product comparisons, team rosters,
lists, cards, etc.), use the generate_a2ui tool to create a dynamic A2UI surface.
IMPORTANT: After calling the tool, do NOT repeat the data in your text response.
The tool renders UI automatically. Just confirm what was rendered."""

KINDS = {  # the noun the words use -> three items (name, detail, price)
    "hotel": [("The Aurelia", "★ 4.9 · Lakeside spa", "$620"), ("Grand Meridian", "★ 4.7 · Rooftop pool", "$540"),
              ("Maison Verte", "★ 4.8 · Garden suites", "$580")],
    "product": [("Aero Pro", "★ 4.6 · 1.1 kg", "$1,299"), ("Nimbus 14", "★ 4.4 · 1.3 kg", "$999"),
                ("Vector X", "★ 4.7 · 1.2 kg", "$1,499")],
    "team": [("Ada Park", "Engineering lead", "Seoul"), ("Luis Ortega", "Designer", "Madrid"),
             ("Mina Sato", "Product manager", "Tokyo")],
}
_KIND_WORDS = {"hotel": ("hotel", "hotels", "stay", "room"), "team": ("team", "roster", "member", "members", "people")}


def kind_of(words: str) -> str:
    tokens = set(re.findall(r"[a-z]+", words.lower()))
    return next((kind for kind, keys in _KIND_WORDS.items() if tokens & set(keys)), "product")


def title_of(words: str) -> str:
    text = re.sub(r"^(please\s+)?(compare|show( me)?|list|make|draw)\s+", "", words.strip(" .?!"), flags=re.I)
    text = re.sub(r"\s+with\s+.*$", "", text)
    return text[:1].upper() + text[1:] if text else "Comparison"


def surface(words: str, *, valid: bool) -> dict[str, Any]:
    """The designer's ``render_a2ui`` arguments: a row of cards bound to ``/items``; when not ``valid``, the card
    component the row repeats is missing (the validator's ``unresolved_child``)."""
    components = [
        {"id": "root", "component": "Column", "children": ["title", "row"]},
        {"id": "title", "component": "Text", "text": title_of(words), "variant": "h2"},
        {"id": "row", "component": "Row", "children": {"componentId": "card", "path": "/items"}},
    ]
    if valid:
        components += [
            {"id": "card", "component": "Card", "child": "card-body"},
            {"id": "card-body", "component": "Column", "children": ["card-name", "card-detail", "card-price"]},
            {"id": "card-name", "component": "Text", "text": {"path": "name"}, "variant": "h3"},
            {"id": "card-detail", "component": "Text", "text": {"path": "detail"}},
            {"id": "card-price", "component": "Text", "text": {"path": "price"}},
        ]
    items = [{"name": n, "detail": d, "price": p} for n, d, p in KINDS[kind_of(words)]]
    return {"surfaceId": SURFACE_ID, "components": components, "data": {"items": items}}


def _first_request(messages: Messages) -> str:
    """The designer's first message: what the planner's user asked for."""
    for message in messages:
        if message.get("role") == "user":
            texts = [b["text"] for b in message.get("content") or [] if isinstance(b.get("text"), str)]
            if texts:
                return "\n".join(texts)
    return ""


def designer_turn(messages: Messages) -> Turn:
    if tool_outcomes(messages):
        return [Text("Rendered.")]
    words, retry = _first_request(messages), user_text(messages).startswith(A2UI_RETRY_HEADER)
    broken = re.search(r"\bbroken\b", words, re.IGNORECASE) is not None
    return [call("render_a2ui", surface(words, valid=retry and not broken))]


def planner_turn(messages: Messages) -> Turn:
    outcomes = [o for o in tool_outcomes(messages) if o.name == "generate_a2ui"]
    if outcomes:
        data = outcomes[-1].data
        if isinstance(data, str):  # the envelope's text, when the result was encoded as a JSON string
            try:
                data = json.loads(data)
            except ValueError:
                pass
        if isinstance(data, Mapping) and data.get("code") == "a2ui_recovery_exhausted":
            attempts = data.get("attempts") or [{}]
            errors = attempts[-1].get("errors") or [{}]
            return [Text(f"Sorry, I couldn't build a valid view after {len(attempts)} attempts (the last one: "
                         f"{errors[0].get('message', 'invalid surface')}). Could you rephrase the request?")]
        if isinstance(data, Mapping) and "error" in data:
            return [Text(f"I could not draw it: {data['error']}")]
        return [Text(f"Here it is: {title_of(user_text(messages))}, side by side above.")]
    if not _COMPARE.search(user_text(messages)):
        return [Text("I compare things side by side as cards: ask me to \"compare 3 luxury hotels\" (or add "
                     "\"broken\" to watch each surface fail validation, be redesigned, then give up cleanly).")]
    return [Text("Let me put that in a visual comparison."), call("generate_a2ui", {"intent": "create"})]


_COMPARE = re.compile(r"\b(?:compare|comparison|versus|vs|side by side|show|list)\b", re.IGNORECASE)


def build_agent(env: Mapping[str, str] | None = None) -> StrandsAgent:
    """The example's AG-UI agent; ``env`` (default ``os.environ``) picks the models (one for both roles)."""
    strands_agent = Agent(model=model(planner_turn, env),
                          tools=[a2ui_tool(model(designer_turn, env), max_attempts=MAX_ATTEMPTS)],
                          system_prompt=SYSTEM_PROMPT, callback_handler=None)
    return StrandsAgent(strands_agent, name=NAME, description=DESCRIPTION)


agent = build_agent()
app = create_strands_app(agent)

if __name__ == "__main__":
    serve(app)
