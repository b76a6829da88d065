"""Agentic chat: streamed text, plus a tool only the browser can run.

The page declares ``change_background`` in ``RunAgentInput.tools``; the agent has no backend tool for it.
When the model calls it, the adapter streams the call (TOOL_CALL_START/ARGS/END) and ends the run; the page
changes its background and sends the result back in a follow-up run, which the model acknowledges.

Scripted scenario (no ``STRANDS_AGUI_MODEL``):

- the conversation ends with a tool result (the page's follow-up) -> "Done: the background is now <colour>."
  (or, when the page's result starts with "error", what the page refused)
- the user's words mention a background or a colour -> a short sentence, then
  ``change_background({"background": <the CSS colour named in the words, default "lightblue">})``
- anything else -> a canned answer for a greeting, thanks or a question (``reply``), never an echo

Run: ``python -m strands_agui.examples.agentic_chat`` (port from ``PORT``, default 8000).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ag_ui.core import Tool
from strands import Agent
from strands.types.content import Messages

from strands_agui import StrandsAgent, Text, Turn, create_strands_app
from strands_agui.examples._common import call, model, serve, tool_outcomes, user_text

NAME = "agentic_chat"
DESCRIPTION = "Chat with streamed text and a frontend-only change_background tool."
PROMPTS = (  # what the console suggests trying (GET /examples)
    'Make the background teal',
    'Hello! What can you do?',
    'Change the background to #fde68a',
)

CHANGE_BACKGROUND = Tool(
    name="change_background",
    description="Change the background of the chat page. Use any CSS background value: a colour name, "
    "a hex code, or a gradient.",
    parameters={
        "type": "object",
        "properties": {
            "background": {"type": "string", "description": "CSS background, e.g. 'lightblue' or '#ffcc00'"},
        },
        "required": ["background"],
    },
)
FRONTEND_TOOLS = [CHANGE_BACKGROUND]  # what the page declares in RunAgentInput.tools

SYSTEM_PROMPT = (
    "You are a friendly assistant in a demo chat page. When the user asks to change the page background "
    "(or its colour), call the change_background tool with a CSS background value, then wait for its "
    "result and confirm briefly. Otherwise answer in a few friendly sentences."
)

DEFAULT_COLOUR = "lightblue"
# CSS named colours the scenario recognises ("light blue" is read as "lightblue").
CSS_COLOURS = frozenset("""
    aqua aquamarine azure beige bisque black blue brown coral crimson cyan fuchsia gold goldenrod gray grey
    green indigo ivory khaki lavender lime linen magenta maroon navy olive orange orchid peru pink plum
    purple red salmon sienna silver tan teal thistle tomato turquoise violet wheat white yellow
    lightblue lightgreen lightpink lightyellow lightgray lightgrey lightcoral lightcyan lightsalmon
    darkblue darkgreen darkred darkorange darkviolet darkgray darkgrey skyblue steelblue royalblue
    midnightblue cornflowerblue dodgerblue deepskyblue hotpink deeppink forestgreen seagreen mintcream
    lemonchiffon rebeccapurple slategray slategrey
""".split())
_HEX = re.compile(r"#(?:[0-9a-fA-F]{3}){1,2}\b")
_WORD = re.compile(r"[a-z]+")


def colour_in(words: str) -> str | None:
    """The first CSS colour named in ``words`` (a hex code or a colour name), or None."""
    hex_code = _HEX.search(words)
    if hex_code:
        return hex_code.group(0)
    tokens = _WORD.findall(words.lower())
    for first, second in zip(tokens, [*tokens[1:], ""], strict=True):
        if first + second in CSS_COLOURS:
            return first + second
        if first in CSS_COLOURS:
            return first
    return None


_POLITE = r"^\s*(?:(?:please|ok|okay|now|hi|hey|so)[,!]?\s+)*(?:(?:can|could|would|will) you\s+(?:please\s+)?)?"
_ASKS = re.compile(_POLITE + r"(?:make|change|set|turn|paint|switch|use|try|give|go|colou?r|repaint)\b", re.IGNORECASE)
_QUESTION = re.compile(r"^\s*(?:why|what|how|who|when|where|which|whose|is|are|was|were|do|does|did)\b", re.IGNORECASE)
_NAMES_IT = re.compile(r"\b(?:background|backdrop|colou?r)\b", re.IGNORECASE)


def wants_background(words: str) -> bool:
    """The words ask for a new background: a request to change something to a colour ("make it teal", "change the
    background to #fde68a"), or the background named outside a question ("a dark slate background"). A colour in a
    question or a story ("Why is the sky blue?", "a joke about red cats") is not a request."""
    if _ASKS.search(words):
        return _NAMES_IT.search(words) is not None or colour_in(words) is not None
    return _QUESTION.search(words) is None and re.search(r"\bbackground\b", words, re.IGNORECASE) is not None


def _background_of(outcome_input: Mapping[str, Any], result_text: str) -> str:
    value = outcome_input.get("background")
    return str(value) if value else (colour_in(result_text) or "the colour you picked")


def scenario(messages: Messages) -> Turn:
    """Decide the scripted model's next turn from the conversation (see the module docstring)."""
    outcomes = tool_outcomes(messages)
    if outcomes:
        refused = [o.text for o in outcomes if o.name == CHANGE_BACKGROUND.name and o.text.startswith("error")]
        if refused:
            return [Text(f"The page refused that background ({refused[-1].removeprefix('error: ')}). "
                         "Try a colour name, a hex code or a gradient.")]
        done = [_background_of(o.input, o.text) for o in outcomes if o.name == CHANGE_BACKGROUND.name]
        if done:
            return [Text(f"Done: the background is now {done[-1]}.")]
        return [Text("Thanks, I have the tool's result.")]
    words = user_text(messages)
    if wants_background(words):
        colour = colour_in(words) or DEFAULT_COLOUR
        return [Text(f"Sure, changing the background to {colour}."),
                call(CHANGE_BACKGROUND.name, {"background": colour})]
    return [Text(reply(words))]


REPLIES = (  # (words that pick it, the answer), first match wins
    (("hello", "hi", "hey", "morning", "evening"),
     "Hello! I'm the demo assistant. I can chat, and I can change this page's background: that runs a tool "
     "in your browser, not on the server. Try \"make the background teal\"."),
    (("thanks", "thank", "great", "cool", "nice"),
     "You're welcome! Anything else? I'm happy to repaint the background again."),
    (("what", "how", "why", "who", "can", "?"),
     "Good question. I'm a scripted model, so I don't know much, but everything you see arrives as real AG-UI "
     "events: streamed text, and a frontend tool call when you ask me to change the background (try "
     "\"a dark slate background\"). Set STRANDS_AGUI_MODEL to talk to a real model."),
)
FALLBACK = ("Got it. I'm the scripted demo model, so my small talk is limited, but I can change this page's "
            "background for you: name a colour or a hex code, like \"make it #fde68a\".")


def reply(words: str) -> str:
    """A canned answer chosen by what the user's words are (a greeting, thanks, a question), never an echo."""
    tokens = set(_WORD.findall(words.lower())) | ({"?"} if "?" in words else set())
    for keys, answer in REPLIES:
        if tokens & set(keys):
            return answer
    return FALLBACK


def build_agent(env: Mapping[str, str] | None = None) -> StrandsAgent:
    """The example's AG-UI agent; ``env`` (default ``os.environ``) picks the model."""
    strands_agent = Agent(
        model=model(scenario, env),
        tools=[],
        system_prompt=SYSTEM_PROMPT,
        callback_handler=None,
    )
    return StrandsAgent(strands_agent, name=NAME, description=DESCRIPTION)


agent = build_agent()
app = create_strands_app(agent)

if __name__ == "__main__":
    serve(app)
