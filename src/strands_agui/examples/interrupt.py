"""Interrupt: a tool that pauses itself to ask the user for a meeting time (the Dojo's ``interrupt``).

``schedule_meeting`` calls Strands' ``tool_context.interrupt("schedule_meeting", reason={topic, attendee})``.
The run ends with RUN_FINISHED ``outcome: {type: "interrupt"}``: one interrupt with ``reason:
"schedule_meeting"`` and ``metadata.reason`` the topic and attendee, which the page shows as a time picker.
The next request on the same thread carries ``resume: [{interruptId, status: "resolved", payload:
{chosen_time, chosen_label}}]``; the same ``interrupt()`` call returns ``{"response": payload}`` (upstream
``ag_ui_strands``' resume contract, our default), the tool books the slot and the model confirms.
``status: "cancelled"`` (``{"cancelled": true}``) or a payload ``{cancelled: true}`` books nothing. The tool is
the Dojo agent's, unchanged.

Scripted scenario (no ``STRANDS_AGUI_MODEL``):

- asked to book, schedule or set up a call or meeting -> a sentence, then ``schedule_meeting`` with the
  topic (what the words say it is for, else "a call") and the attendee (after "with", else the team named)
- the conversation ends with the tool's result -> the booked time, or that nothing was booked
- anything else -> what it can do

Pauses wait in the session store (``strands-agui serve --sessions DIR``; default ``~/.strands/sessions``).
Run: ``python -m strands_agui.examples.interrupt`` (port from ``PORT``, default 8000).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from strands import Agent, tool
from strands.types.content import Messages
from strands.types.tools import ToolContext

from strands_agui import StrandsAgent, Text, Turn, create_strands_app
from strands_agui.examples._common import call, model, serve, tool_outcomes, user_text

NAME = "interrupt"
DESCRIPTION = "A scheduling tool that pauses (tool_context.interrupt) for you to pick a meeting time."
PROMPTS = (  # the Dojo page's suggestions
    "Book an intro call with the sales team to discuss pricing.",
    "Schedule a 1:1 with Alice next week to review Q2 goals.",
)
FRONTEND_TOOLS: list[Any] = []

SYSTEM_PROMPT = """You are a scheduling assistant.

Whenever the user asks you to book a call or schedule a meeting, you MUST call
the `schedule_meeting` tool. Pass a short `topic` describing the purpose and, if
known, an `attendee` describing who the meeting is with.

The tool pauses execution and shows the user a time picker. Once it resumes with
their choice, briefly confirm whether the meeting was scheduled and at what
time, or note that the user cancelled. Do not ask for approval yourself: always
call the tool and let the picker handle the decision. Keep responses short and
friendly.

Never claim a meeting is scheduled unless the tool result says so."""


@tool(context=True)
def schedule_meeting(topic: str, tool_context: ToolContext, attendee: str = "") -> str:
    """Ask the user to pick a meeting time, then confirm what was scheduled.

    Args:
        topic: Short description of the meeting purpose.
        attendee: Who the meeting is with, if known.
    """
    answer = tool_context.interrupt("schedule_meeting", reason={"topic": topic, "attendee": attendee})
    inner = answer.get("response") if isinstance(answer, Mapping) else None
    payload = inner if isinstance(inner, Mapping) else {}
    if (isinstance(answer, Mapping) and answer.get("cancelled")) or payload.get("cancelled"):
        return f"User cancelled. Meeting NOT scheduled: {topic}"
    label = payload.get("chosen_label") or payload.get("chosen_time")
    if not label:
        return f"User did not pick a time. Meeting NOT scheduled: {topic}"
    return f"Meeting scheduled for {label}: {topic}"


_WANTS_MEETING = re.compile(r"\b(book|schedule|set up|arrange|plan)\b.*\b(call|meeting|1:1|one-on-one|sync|chat)\b",
                            re.IGNORECASE)
_WITH = re.compile(r"\bwith\s+(?:the\s+)?([A-Za-z][\w' -]*?)"
                   r"(?=\s+(?:to|about|for|next|on|at|tomorrow|this)\b|[.,?!]|$)", re.IGNORECASE)
_PURPOSE = re.compile(r"\b(?:to|about|for)\s+(?!book\b|schedule\b)([^.?!]+)", re.IGNORECASE)
_KIND = re.compile(r"\b(intro call|call|meeting|1:1|one-on-one|sync|chat)\b", re.IGNORECASE)


def meeting_in(words: str) -> dict[str, str]:
    """``schedule_meeting``'s arguments for the user's words: a short topic and the attendee, if named."""
    who = _WITH.search(words)
    attendee = who.group(1).strip() if who else ""
    attendee = attendee[:1].upper() + attendee[1:]
    kind = _KIND.search(words)
    kind_text = kind.group(1).lower() if kind else "call"
    kind_text = {"1:1": "1:1", "intro call": "Intro call"}.get(kind_text, kind_text.capitalize())
    purpose = _PURPOSE.search(words[who.end():] if who else words)
    topic = f"{kind_text} with {attendee}" if attendee else kind_text
    if purpose:
        reason = re.sub(r"\s+(next|this)\s+week$", "", purpose.group(1).strip())
        topic = f"{topic} to {reason}"
    return {"topic": topic, "attendee": attendee}


def summary(text: str) -> str:
    """What the model says of the tool's result (a booking, a cancellation, no time picked)."""
    booked = re.match(r"Meeting scheduled for (.+?): (.+)$", text)
    if booked:
        return f"Done: \"{booked.group(2)}\" is booked for {booked.group(1)}."
    if text.startswith("User cancelled"):
        return "No problem, I cancelled it: nothing was scheduled. Tell me when you'd like to try another time."
    return "You didn't pick a time, so nothing was scheduled."


def scenario(messages: Messages) -> Turn:
    """Decide the scripted model's next turn from the conversation (see the module docstring)."""
    outcomes = [o for o in tool_outcomes(messages) if o.name == "schedule_meeting"]
    if outcomes:
        return [Text(summary(str(outcomes[-1].data)))]
    words = user_text(messages)
    if _WANTS_MEETING.search(words):
        meeting = meeting_in(words)
        return [Text("Let me find a time for that."), call("schedule_meeting", meeting)]
    return [Text("I'm a scheduling assistant: ask me to book a call or schedule a meeting, and I'll show you a "
                 "time picker.")]


def build_agent(env: Mapping[str, str] | None = None) -> StrandsAgent:
    """The example's AG-UI agent; ``env`` (default ``os.environ``) picks the model."""
    strands_agent = Agent(model=model(scenario, env),
                          tools=[schedule_meeting], system_prompt=SYSTEM_PROMPT, callback_handler=None)
    return StrandsAgent(strands_agent, name=NAME, description=DESCRIPTION)


agent = build_agent()
app = create_strands_app(agent)

if __name__ == "__main__":
    serve(app)
