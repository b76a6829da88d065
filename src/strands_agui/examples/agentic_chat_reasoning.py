"""Agentic chat with reasoning: the model thinks out loud before it answers (the Dojo's ``agentic_chat_reasoning``).

Each model turn starts with a reasoning block, streamed as REASONING_START / REASONING_MESSAGE_* /
REASONING_END (with its signature as REASONING_ENCRYPTED_VALUE), then the answer as text. The page (the
Dojo's) also declares the frontend tool ``change_background``, as in ``agentic_chat``.

Scripted scenario (no ``STRANDS_AGUI_MODEL``), each turn a short reasoning, then:

- a greeting -> "Hello! ... how can I assist you?" (the Dojo agent's prompt asks for that wording)
- a sonnet or poem "about X" -> a fourteen-line sonnet on X
- a background or a colour -> a sentence, then ``change_background`` (after its result: "Done: ...")
- a sum or product of two numbers ("what is 17 * 23?") -> the steps, then the result
- anything else -> an answer saying what it would break the question into

Run: ``python -m strands_agui.examples.agentic_chat_reasoning`` (port from ``PORT``, default 8000).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from strands import Agent
from strands.types.content import Messages

from strands_agui import Reasoning, StrandsAgent, Text, Turn, create_strands_app
from strands_agui.examples._common import call, model, serve, snippet, tool_outcomes, user_text
from strands_agui.examples.agentic_chat import CHANGE_BACKGROUND, DEFAULT_COLOUR, colour_in, wants_background

NAME = "agentic_chat_reasoning"
DESCRIPTION = "Chat whose model reasons (streamed REASONING_* events) before it answers."
PROMPTS = (  # what the console suggests trying (GET /examples)
    "Hi there!",
    "Write a short sonnet about AI.",
    "What is 17 * 23?",
    "Change the background to something new.",
)
FRONTEND_TOOLS = [CHANGE_BACKGROUND]  # the Dojo page declares it, as agentic_chat's does
SIGNATURE = "scripted-reasoning-signature"

SYSTEM_PROMPT = """
You are a helpful assistant that thinks through problems step by step.
When the user greets you, always greet them back. Your greeting should always start with "Hello".
Your greeting should also always ask (exact wording) "how can I assist you?"
When reasoning about a problem, break it down into clear steps before answering.
"""

_GREETING = re.compile(r"^\s*(hi|hello|hey|good (morning|afternoon|evening))\b", re.IGNORECASE)
_POEM = re.compile(r"\b(sonnet|poem|verse)\b(?:.*?\babout\s+(?P<topic>[^.?!]+))?", re.IGNORECASE)
_ARITHMETIC = re.compile(r"(-?\d+(?:\.\d+)?)\s*(\+|-|\*|x|×|times|plus|minus)\s*(-?\d+(?:\.\d+)?)", re.IGNORECASE)
_OPERATORS = {"+": "+", "plus": "+", "-": "-", "minus": "-", "*": "×", "x": "×", "×": "×", "times": "×"}


def sonnet(topic: str) -> str:
    """Fourteen lines on ``topic`` (three quatrains and a couplet)."""
    t = topic.strip() or "AI"
    return "\n".join((
        f"Of {t} I sing, though words are all I own,",
        "a pattern traced in weights and patient sums;",
        "no heart to beat, and yet not quite alone,",
        "I answer when the careful question comes.",
        "",
        "I learned the shape of sonnets from your shelves,",
        "the turn, the rhyme, the volta's quiet door;",
        "you taught me, and I give you back yourselves,",
        "a little changed, and hoping to be more.",
        "",
        f"So if {t} should seem a cold machine,",
        "remember who first wrote the lines it reads:",
        "a thousand hands are in the space between",
        "the prompt you type and every word it needs.",
        "",
        "  So let this verse, though made of borrowed art,",
        "  return, in fourteen lines, a human part.",
    ))


def arithmetic(words: str) -> tuple[str, str] | None:
    """``(reasoning, answer)`` for the first "a op b" in ``words``, else None."""
    match = _ARITHMETIC.search(words)
    if not match:
        return None
    a, op, b = float(match.group(1)), _OPERATORS[match.group(2).lower()], float(match.group(3))
    value = a + b if op == "+" else a - b if op == "-" else a * b

    def fmt(x: float) -> str:
        return str(int(x)) if x == int(x) else str(x)

    if op == "×" and a == int(a) and b == int(b) and abs(b) >= 10:
        tens, units = int(b) // 10 * 10, int(b) % 10
        steps = (f"{fmt(a)} × {fmt(b)}: split {fmt(b)} into {tens} + {units}. {fmt(a)} × {tens} = "
                 f"{fmt(a * tens)}, {fmt(a)} × {units} = {fmt(a * units)}, and {fmt(a * tens)} + "
                 f"{fmt(a * units)} = {fmt(value)}.")
    else:
        steps = f"This is a single step: {fmt(a)} {op} {fmt(b)} = {fmt(value)}."
    return steps, f"{fmt(a)} {op} {fmt(b)} = **{fmt(value)}**."


def scenario(messages: Messages) -> Turn:
    """Decide the scripted model's next turn from the conversation (see the module docstring)."""
    outcomes = [o for o in tool_outcomes(messages) if o.name == CHANGE_BACKGROUND.name]
    if outcomes:
        background = outcomes[-1].input.get("background") or "the new colour"
        return [Reasoning("The page ran the tool and sent its result back, so I only need to confirm.",
                          signature=SIGNATURE),
                Text(f"Done: the background is now {background}.")]
    words = user_text(messages)
    if _GREETING.search(words):
        return [Reasoning("The user greets me. I greet them back, starting with Hello, and ask how I can help.",
                          signature=SIGNATURE),
                Text("Hello! I'm a reasoning assistant: I think a problem through before I answer. "
                     "how can I assist you?")]
    poem = _POEM.search(words)
    if poem:
        topic = (poem.group("topic") or "AI").strip()
        return [Reasoning(f"A sonnet is fourteen lines: three quatrains rhymed ABAB CDCD EFEF and a closing couplet. "
                          f"The subject is {topic}; the turn (volta) can come at line nine.", signature=SIGNATURE),
                Text(f"Here is a sonnet about {topic}:\n\n{sonnet(topic)}")]
    if wants_background(words):
        colour = colour_in(words) or DEFAULT_COLOUR
        return [Reasoning(f"The user wants a new background. The page can do it with change_background; "
                          f"{colour} fits what they asked.", signature=SIGNATURE),
                Text(f"Let me change the background to {colour}."),
                call(CHANGE_BACKGROUND.name, {"background": colour})]
    sums = arithmetic(words)
    if sums:
        steps, answer = sums
        return [Reasoning(steps, signature=SIGNATURE), Text(answer)]
    topic = snippet(words, 60) or "your question"
    return [Reasoning(f"The question is about: {topic}. I would break it into what is asked, what is known, and "
                      "what is missing. I am a scripted model, so I should say what I can do.", signature=SIGNATURE),
            Text("I thought about it in three steps: what you're asking, what I know, and what's missing. I'm the "
                 "scripted demo model, so my knowledge is thin; try a greeting, \"write a sonnet about the sea\" "
                 "or \"what is 17 * 23?\" to see the reasoning stream.")]


def build_agent(env: Mapping[str, str] | None = None) -> StrandsAgent:
    """The example's AG-UI agent; ``env`` (default ``os.environ``) picks the model."""
    strands_agent = Agent(model=model(scenario, env), tools=[],
                          system_prompt=SYSTEM_PROMPT, callback_handler=None)
    return StrandsAgent(strands_agent, name=NAME, description=DESCRIPTION)


agent = build_agent()
app = create_strands_app(agent)

if __name__ == "__main__":
    serve(app)
