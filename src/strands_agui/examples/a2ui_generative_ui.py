"""A2UI generative UI: the agent designs a UI surface that the page paints while it is written.

The agent has ``generate_a2ui`` (``strands_agui.tooling.a2ui``, on upstream's ``ag-ui-a2ui-toolkit``). The
tool runs a designer agent whose ``render_a2ui`` call streams as a subagent's TOOL_CALL_ARGS, so
``@ag-ui/a2ui-middleware`` (CopilotKit's runtime applies it) paints the surface progressively: the components
as soon as their array closes, then the list's items one by one. The call's result is the operations envelope
``{"a2ui_operations": [createSurface, updateComponents, updateDataModel]}``.

Scripted scenario (no ``STRANDS_AGUI_MODEL``):
- the planner: a user message -> a sentence, then ``generate_a2ui({"intent": "create"})``; after the result ->
  "Here it is: <title>, drawn above."
- the designer: ``render_a2ui`` of a card (surface ``checklist``) titled after the words, with a list bound to
  ``/items`` and one item per part the words list ("a, b and c"; else three generic items), and a **Done**
  button whose action (``checklist_done``, context ``{"title", "items"}``: the items read from the data model)
  a client sends back; after it -> "Done."
- a click on Done: the client sends the A2UI ``userAction`` as ``forwardedProps.a2uiAction`` and, as
  ``@ag-ui/a2ui-middleware`` does, a ``log_a2ui_event`` call with its result at the end of the messages; the
  planner answers it -> "Noted: <title> is done (<items>)."

Run: ``python -m strands_agui.examples.a2ui_generative_ui`` (port from ``PORT``, default 8000).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from strands import Agent
from strands.types.content import Messages

from strands_agui import StrandsAgent, Text, Turn, a2ui_tool, create_strands_app
from strands_agui.examples._common import call, model, serve, snippet, tool_outcomes, user_text

NAME = "a2ui_generative_ui"
DESCRIPTION = "A UI surface (A2UI) designed by a subagent and painted while its render call streams."
PROMPTS = (  # what the console suggests trying (GET /examples)
    "A packing checklist: passport, charger and sunscreen",
    "A card of today's errands",
)
FRONTEND_TOOLS: list[Any] = []
SURFACE_ID = "checklist"
DONE_ACTION = "checklist_done"  # the Done button's action (A2UI v0.9 ``action.event.name``)
ACTION_TOOL = "log_a2ui_event"  # how a click reaches the agent: @ag-ui/a2ui-middleware's synthetic call
SYSTEM_PROMPT = (
    "You are an assistant that answers with UI. When the user asks for something visual (a card, a list, a "
    "form, a dashboard), say so in one sentence and call generate_a2ui; then say where it is in one sentence."
)
_PARTS = re.compile(r",\s*(?:and\s+)?|\s+and\s+")
_REQUEST = re.compile(r"^(?:please\s+)?(?:(?:show|make|draw|render|build|give)(?:\s+me)?\s+)?(?:(?:a|an)\s+)?"
                      r"(?:(?:card|list|page) of\s+)?", re.I)
# items for a request that lists none, by what it is about
_USUAL_ITEMS = (
    (re.compile(r"errand", re.I), ["Pick up groceries", "Post a parcel", "Collect the dry cleaning"]),
    (re.compile(r"pack", re.I), ["Passport", "Phone charger", "Toothbrush"]),
    (re.compile(r"shopping|grocer", re.I), ["Bread", "Milk", "Apples"]),
)


def checklist(words: str) -> tuple[str, list[str]]:
    """A title and the items for ``words``: "checklist for a trip: passport, tickets and charger"; "a card of
    today's errands" -> "Today's errands" with the usual errands."""
    head, _, tail = words.partition(":")
    parts = [p.strip(" .") for p in _PARTS.split(tail) if p.strip(" .")] if tail else []
    title = snippet(_REQUEST.sub("", head.strip()).strip(" .") or "Checklist", 40)
    usual = next((items for topic, items in _USUAL_ITEMS if topic.search(head)), None)
    return title[:1].upper() + title[1:], parts or usual or ["First thing to do", "Next thing to do", "Last check"]


def surface(words: str) -> dict[str, Any]:
    """The designer's ``render_a2ui`` arguments: a card with a title and a list bound to ``/items``."""
    title, items = checklist(words)
    components = [
        {"id": "root", "component": "Card", "child": "body"},
        {"id": "body", "component": "Column", "children": ["title", "list", "done"]},
        {"id": "title", "component": "Text", "text": title, "variant": "h2"},
        {"id": "list", "component": "List", "children": {"componentId": "item", "path": "/items"}},
        {"id": "item", "component": "Text", "text": {"path": "name"}},
        {"id": "done", "component": "Button", "child": "done-label", "variant": "primary",
         "action": {"event": {"name": DONE_ACTION, "context": {"title": title, "items": {"path": "/items"}}}}},
        {"id": "done-label", "component": "Text", "text": "Done"},
    ]
    return {"surfaceId": SURFACE_ID, "components": components, "data": {"items": [{"name": i} for i in items]}}


def user_action(messages: Messages) -> Mapping[str, Any] | None:
    """The A2UI action the conversation ends with (a ``log_a2ui_event`` call and its result, as
    ``@ag-ui/a2ui-middleware`` or the console appends them for a click on the surface), else None."""
    outcomes = tool_outcomes(messages)
    if outcomes and outcomes[-1].name == ACTION_TOOL and isinstance(outcomes[-1].input, Mapping):
        return outcomes[-1].input
    return None


def acknowledge(action: Mapping[str, Any]) -> str:
    """The planner's answer to a click: the action's context names the checklist and its items."""
    found = action.get("context")
    context: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    if action.get("name") != DONE_ACTION:
        return f"Noted: you pressed {snippet(str(action.get('name') or 'a button'), 40)}."
    listed_items = context.get("items")
    items: list[Any] = listed_items if isinstance(listed_items, list) else []
    names = [snippet(str(i.get("name") if isinstance(i, Mapping) else i), 40) for i in items]
    listed = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names)
    title = snippet(str(context.get("title") or "The checklist"), 40)
    return f"Noted: {title} is done ({listed})." if listed else f"Noted: {title} is done."


def designer_turn(messages: Messages) -> Turn:
    if tool_outcomes(messages):
        return [Text("Done.")]
    return [call("render_a2ui", surface(user_text(messages)))]


def planner_turn(messages: Messages) -> Turn:
    if (action := user_action(messages)) is not None:
        return [Text(acknowledge(action))]
    outcomes = [o for o in tool_outcomes(messages) if o.name == "generate_a2ui"]
    if outcomes:
        title = checklist(user_text(messages))[0]
        failed = isinstance(outcomes[-1].data, Mapping) and "error" in outcomes[-1].data
        return [Text("I could not draw it." if failed else f"Here it is: {title}, drawn above.")]
    if not _VISUAL.search(user_text(messages)):
        return [Text("I answer with UI: ask me for a card or a checklist, like \"a packing checklist: passport, "
                     "charger and sunscreen\", and I design it, with a Done button you can press.")]
    return [Text("Let me design that for you."), call("generate_a2ui", {"intent": "create"})]


# a request for something drawn: what it is, or a verb asking for one
_VISUAL = re.compile(r"\b(?:card|cards|list|lists|checklist|to-?do|todo|form|dashboard|table|surface|ui)\b|"
                     r"^\s*(?:please\s+)?(?:show|draw|render|design|build)\b", re.IGNORECASE)


def build_agent(env: Mapping[str, str] | None = None) -> StrandsAgent:
    """The example's AG-UI agent; ``env`` (default ``os.environ``) picks the models (one for both roles)."""
    strands_agent = Agent(model=model(planner_turn, env),
                          tools=[a2ui_tool(model(designer_turn, env))],
                          system_prompt=SYSTEM_PROMPT, callback_handler=None)
    return StrandsAgent(strands_agent, name=NAME, description=DESCRIPTION)


agent = build_agent()
app = create_strands_app(agent)

if __name__ == "__main__":
    serve(app)
