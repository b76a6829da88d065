"""Agentic generative UI: a plan the page draws while the agent makes it, then progresses.

``create_plan`` takes the plan's steps. The adapter:

- tells the page, with a ``PredictState`` custom event, that ``create_plan``'s ``steps`` argument is the
  ``steps`` state key, so a client can draw the plan while the arguments stream (``PredictStateMapping``);
- publishes the plan as a STATE_SNAPSHOT once the arguments are complete (``state_from_args``);
- after the tool ran, plays the work: a ``custom_result_handler`` emits STATE_DELTA events (JSON Patch)
  marking each step ``in_progress`` then ``completed``, one by one;
- ends the run there (``stop_streaming_after_result``): the plan is the answer, no closing narration.

Scripted scenario (no ``STRANDS_AGUI_MODEL``): any request -> a sentence, then ``create_plan`` with 3 to 5
steps derived from the words (the request's own parts when it lists them, "a, b, then c"; otherwise a
plan by the request's verb, "launch a podcast" -> "Decide who the podcast is for", ...; else a generic one),
each ``{"description": ..., "status": "pending"}``.

Run: ``python -m strands_agui.examples.agentic_generative_ui`` (port from ``PORT``, default 8000).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Mapping
from typing import Any

from ag_ui.core import StateDeltaEvent
from strands import Agent, tool
from strands.types.content import Messages

from strands_agui import (
    PredictStateMapping,
    StrandsAgent,
    StrandsAgentConfig,
    Text,
    ToolBehavior,
    ToolCallContext,
    ToolResultContext,
    Turn,
    create_strands_app,
)
from strands_agui.examples._common import call, model, serve, snippet, tool_outcomes, user_text

NAME = "agentic_generative_ui"
DESCRIPTION = "A plan predicted from the tool's arguments, then progressed step by step with state deltas."
PROMPTS = (  # what the console suggests trying (GET /examples)
    'Plan a trip to Japan: book flights, find a hotel, then plan the days',
    'Help me launch a podcast',
    'Organise a team offsite',
)
FRONTEND_TOOLS: list[Any] = []
STEP_DELAY = 0.4  # seconds between two progress updates in the served example

SYSTEM_PROMPT = """You are a project assistant who turns the user's goal into a short plan.
When the user asks for help with a task, say in one sentence what you will do, then call create_plan ONCE
with 3 to 5 concise steps (gerund phrases such as "Sketching the layout"), each {"description": ...,
"status": "pending"}. The page shows the plan and its progress; do not repeat it in text."""


@tool
def create_plan(steps: list[dict[str, str]]) -> dict:
    """Create the plan for the user's task: the page shows the steps and their progress.

    Args:
        steps: 3 to 5 steps in order, each {"description": "Gerund phrase", "status": "pending"}.
    """
    return {"steps": normalize_steps(steps)}


def normalize_steps(steps: Any) -> list[dict[str, str]]:
    """Steps as ``{"description", "status"}`` dicts; plain strings are accepted as descriptions."""
    out = []
    for step in steps if isinstance(steps, list) else []:
        if isinstance(step, str) and step.strip():
            out.append({"description": step.strip(), "status": "pending"})
        elif isinstance(step, Mapping) and step.get("description"):
            out.append({"description": str(step["description"]), "status": str(step.get("status") or "pending")})
    return out


# -- the adapter's hooks ---------------------------------------------------------------------------------

def plan_from_args(context: ToolCallContext) -> dict[str, Any] | None:
    """``state_from_args``: the plan, all pending, as soon as the call's arguments are complete."""
    args = context.tool_input
    steps = normalize_steps(args.get("steps")) if isinstance(args, Mapping) else []
    return {"steps": steps} if steps else None


def progress_handler(step_delay: float):  # noqa: ANN201 - returns the CustomResultHandler below
    """A ``custom_result_handler`` that plays the plan's progress, ``step_delay`` seconds per update."""

    async def play_progress(context: ToolResultContext) -> AsyncIterator[StateDeltaEvent]:
        result = context.result_data if isinstance(context.result_data, Mapping) else {}
        for index, _ in enumerate(normalize_steps(result.get("steps"))):
            for status in ("in_progress", "completed"):
                await asyncio.sleep(step_delay)
                yield StateDeltaEvent.model_validate({"delta": [
                    {"op": "replace", "path": f"/steps/{index}/status", "value": status},
                ]})

    return play_progress


def build_config(step_delay: float = STEP_DELAY) -> StrandsAgentConfig:
    return StrandsAgentConfig(tool_behaviors={
        "create_plan": ToolBehavior(
            predict_state=PredictStateMapping(state_key="steps", tool="create_plan", tool_argument="steps"),
            state_from_args=plan_from_args,
            custom_result_handler=progress_handler(step_delay),
            stop_streaming_after_result=True,
        ),
    })


CONFIG = build_config()  # a module attribute, so a recorded run's log names it (`strands-agui replay` uses it)


# -- the scripted scenario -------------------------------------------------------------------------------

_PARTS = re.compile(r",\s*(?:and\s+)?(?:then\s+)?|;\s*|\s+and then\s+|\s+then\s+|\s+and\s+")
_LEAD = re.compile(r"^(?:please\s+)?(?:(?:can|could|would) you\s+)?(?:help me\s+(?:to\s+)?|i want to\s+|"
                   r"i need to\s+|let's\s+|plan\s+(?:how to\s+)?|make a plan (?:to|for)\s+)?", re.IGNORECASE)


# what a plan for a request looks like, by its verb: "{0}" is the thing ("launch a podcast" -> "podcast")
_PLANS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"^(?:launch|start|open|release|ship)\b", re.IGNORECASE),
     ("Decide who the {0} is for", "Prepare the {0} for release", "Choose where to publish the {0}",
      "Announce the {0}")),
    (re.compile(r"^(?:organi[sz]e|host|run|throw|set up|arrange)\b", re.IGNORECASE),
     ("Set a date and budget for the {0}", "Book a place for the {0}", "Invite the people",
      "Prepare the agenda", "Follow up after the {0}")),
    (re.compile(r"^(?:write|draft|create|design|build|make)\b", re.IGNORECASE),
     ("Outline the {0}", "Make a first version of the {0}", "Get feedback on it", "Finish and share the {0}")),
    (re.compile(r"^(?:learn|study|practi[sc]e)\b", re.IGNORECASE),
     ("Find a good introduction to {0}", "Practise the basics of {0}", "Try a small project", "Review what is hard")),
    (re.compile(r"^(?:move|travel|go|visit|trip)\b", re.IGNORECASE),
     ("Pick the dates", "Book the travel", "Find a place to stay", "Plan the days")),
)
_OBJECT = re.compile(r"^\S+(?:\s+up)?\s+(?:(?:a|an|the|my|our|some)\s+)?(.*)$", re.IGNORECASE)


_PRONOUN = re.compile(r"^(?:it|this|that|them|me|us|you|something|anything)\b", re.IGNORECASE)
_QUESTION = re.compile(r"^(?:why|what|how|who|when|where|which|is|are|does|do|did)\b", re.IGNORECASE)


def plan_steps(request: str) -> list[dict[str, str]] | None:
    """3 to 5 pending steps for ``request``: its listed parts when it has 3 or more, else the steps its verb
    calls for ("Help me launch a podcast" -> "Decide who the podcast is for", ...); None when it asks for no
    plan (a question, a greeting, a verb no plan follows)."""
    task = _LEAD.sub("", request.strip()).rstrip(" .!?")
    listed = task.split(":", 1)[-1]  # "a party: book a venue, send invitations, ..." lists after the colon
    parts = [p.strip(" .!?") for p in _PARTS.split(listed) if p.strip(" .!?")]
    if len(parts) >= 3 and not _QUESTION.match(task):
        descriptions = [p[:1].upper() + p[1:] for p in parts[:5]]
    else:
        thing = _OBJECT.match(task)
        template = next((steps for verb, steps in _PLANS if verb.match(task)), None)
        if not (template and thing and thing.group(1)) or _PRONOUN.match(thing.group(1)):
            return None
        descriptions = [step.format(snippet(thing.group(1), 40)) for step in template]
    return [{"description": d, "status": "pending"} for d in descriptions]


NO_PLAN = ("I turn a goal into a plan and work through it step by step. Tell me what you want to do, like "
           "\"launch a podcast\", \"organise a team offsite\", or list the steps yourself: \"a trip: book "
           "flights, find a hotel, then plan the days\".")


def scenario(messages: Messages) -> Turn:
    """Decide the scripted model's next turn from the conversation (see the module docstring)."""
    outcomes = [o for o in tool_outcomes(messages) if o.name == "create_plan"]
    if outcomes:  # not reached when serving: the run stops after the plan's result
        return [Text("All steps of the plan are done.")]
    request = user_text(messages)
    steps = plan_steps(request)
    if steps is None:
        return [Text(NO_PLAN)]
    goal = _LEAD.sub("", request.strip()).split(":", 1)[0].rstrip(" .!?")
    goal = goal[:1].lower() + goal[1:]
    about = (f" for {goal}" if re.match(r"(?:a|an|the|my|our)\b", goal) else f" to {goal}") if goal else ""
    about = about if len(goal) <= 60 else ""
    return [Text(f"Here is a {len(steps)}-step plan{about}: watch each step tick off as I work through it."),
            call("create_plan", {"steps": steps})]


def build_agent(env: Mapping[str, str] | None = None, *, step_delay: float = STEP_DELAY) -> StrandsAgent:
    """The example's AG-UI agent; ``env`` (default ``os.environ``) picks the model, ``step_delay`` paces
    the progress updates."""
    strands_agent = Agent(
        model=model(scenario, env),
        tools=[create_plan],
        system_prompt=SYSTEM_PROMPT,
        callback_handler=None,
    )
    config = CONFIG if step_delay == STEP_DELAY else build_config(step_delay)
    return StrandsAgent(strands_agent, name=NAME, description=DESCRIPTION, config=config)


agent = build_agent()
app = create_strands_app(agent)

if __name__ == "__main__":
    serve(app)
