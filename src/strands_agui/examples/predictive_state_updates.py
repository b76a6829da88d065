"""Predictive state updates: a document the model writes into shared state while it streams the call (the Dojo's
``predictive_state_updates``), and the user confirms or rejects the changes.

The page declares ``write_document`` (the Dojo page's ``useHumanInTheLoop``: it shows a *Confirm changes* card
while the call waits, and answers ``{accepted: true|false}``). The agent's configuration:

- ``ToolBehavior(predict_state=PredictStateMapping("document", "write_document", "document"))``: a CUSTOM
  ``PredictState`` event goes out before the call's first argument delta, so the page paints the document from
  the partial JSON while the model writes it;
- ``state_from_args``: once the arguments are complete, a STATE_SNAPSHOT with the finished ``document``
  (authoritative, before the run halts on the frontend call);
- ``state_context_builder``: the prompt carries the document the page holds, so edits are incremental.

Scripted scenario (no ``STRANDS_AGUI_MODEL``), reading the document back from the prompt:

- "a story about a pirate named Candy Beard" -> ``write_document`` with a short markdown story about that hero
- "add a character named Courage" -> the document plus a paragraph introducing the character
- "replace Luna with Marina" / "rename X to Y" / "change the title to T" -> the document with the edit
- the conversation ends with the page's answer -> a sentence on the accepted change, or that it was rejected
- anything else -> what it can do

Run: ``python -m strands_agui.examples.predictive_state_updates`` (port from ``PORT``, default 8000).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ag_ui.core import RunAgentInput, Tool
from strands import Agent
from strands.types.content import Messages

from strands_agui import (
    PredictStateMapping,
    StrandsAgent,
    StrandsAgentConfig,
    Text,
    ToolBehavior,
    ToolCallContext,
    Turn,
    create_strands_app,
)
from strands_agui.examples._common import call, model, serve, tool_outcomes, user_text

NAME = "predictive_state_updates"
DESCRIPTION = "A document the model streams into shared state (PredictState) and you confirm or reject."
PROMPTS = (  # the Dojo page's suggestions
    "Please write a story about a pirate named Candy Beard.",
    "Please write a story about a mermaid named Luna.",
    "Please add a character named Courage.",
)
INITIAL_STATE: dict[str, Any] = {"document": ""}

WRITE_DOCUMENT = Tool(
    name="write_document",
    description="Present the proposed changes to the user for review",
    parameters={
        "type": "object",
        "properties": {"document": {"type": "string", "description": "The full updated document in markdown format"}},
        "required": ["document"],
    },
)
FRONTEND_TOOLS = [WRITE_DOCUMENT]

SYSTEM_PROMPT = """You are a helpful assistant for writing documents.

To write or edit the document, you MUST use the `write_document` tool.
You MUST pass the full updated document, even when changing only a few words.
When making edits, keep them minimal: do not rewrite every word.
Format the document with markdown, but never use italic or strike-through
formatting, which is reserved for showing the user a diff.
Keep stories SHORT.

After calling the tool, do NOT repeat the document as a message. Just briefly
summarize the changes you made, 2 sentences max."""

STATE_HEADER = "This is the current state of the document:\n----\n"
REQUEST_HEADER = "\n----\n\nUser request: "


def document_prompt(input_data: RunAgentInput, user_message: str) -> str:
    """``state_context_builder``: the prompt carries the document the page holds (when it holds one)."""
    state = input_data.state if isinstance(input_data.state, Mapping) else {}
    document = state.get("document")
    if not isinstance(document, str) or not document.strip():
        return user_message
    return f"{STATE_HEADER}{document}{REQUEST_HEADER}{user_message}"


def document_and_request(prompt: str) -> tuple[str, str]:
    """The document and the user's request, read back from :func:`document_prompt`'s prompt."""
    if prompt.startswith(STATE_HEADER) and REQUEST_HEADER in prompt:
        document, _, request = prompt[len(STATE_HEADER):].rpartition(REQUEST_HEADER)
        return document, request
    return "", prompt


def document_from_args(context: ToolCallContext) -> dict[str, Any] | None:
    """``state_from_args``: the finished document, as authoritative state."""
    document = context.tool_input.get("document") if isinstance(context.tool_input, Mapping) else None
    return {"document": document} if isinstance(document, str) else None


CONFIG = StrandsAgentConfig(
    state_context_builder=document_prompt,
    tool_behaviors={
        "write_document": ToolBehavior(
            predict_state=PredictStateMapping(state_key="document", tool="write_document", tool_argument="document"),
            state_from_args=document_from_args,
        ),
    },
)

_STORY = re.compile(r"\bstory about (?:a |an |the )?(?P<who>[\w -]+?)(?: named (?P<name>[\w' -]+?))?\s*[.?!]*$",
                    re.IGNORECASE)
_CHARACTER = re.compile(r"\badd (?:a |another )?(?:new )?character(?: named| called)? (?P<name>[\w' -]+?)\s*[.?!]*$",
                        re.IGNORECASE)
_REPLACE = re.compile(r"\b(?:replace|rename|change) (?P<old>[\w' -]+?) (?:with|to|into) (?P<new>[\w' -]+?)\s*[.?!]*$",
                      re.IGNORECASE)
_TITLE = re.compile(r"\b(?:change|set|make) the title (?:to )?(?P<title>.+?)\s*[.?!]*$", re.IGNORECASE)


def story(who: str, name: str) -> str:
    """A short markdown story about a ``who`` named ``name``."""
    hero = name or f"the {who}"
    return (f"# The Tale of {name or who.title()}\n\n"
            f"Once, on a morning bright with salt and wind, {hero} set out to find what no map could show. "
            f"Every {who} in the harbour said it could not be done.\n\n"
            f"Through a storm that bent the masts and a night without stars, {hero} kept going, guided only by an "
            "old song remembered from childhood.\n\n"
            f"At last, on a quiet shore, {hero} found it: not gold, but a garden of glass flowers that rang like bells "
            "in the breeze. And that, it turned out, was worth far more.")


def edit(document: str, request: str) -> tuple[str, str] | None:
    """``(new document, what changed)`` for the request, or None when it asks for nothing the scenario knows."""
    told = _STORY.search(request)
    if told:
        who, name = told.group("who").strip(), (told.group("name") or "").strip()
        return story(who, name), f"I wrote a short story about {name or 'a ' + who}"
    character = _CHARACTER.search(request)
    if character:
        name = character.group("name").strip()
        paragraph = (f"Then came {name}, who never boasted and never turned back, and whose quiet bravery made "
                     "everyone around them a little braver too.")
        base = document.rstrip() or story("traveller", "")
        return f"{base}\n\n{paragraph}", f"I added {name} as a new character in one paragraph near the end"
    title = _TITLE.search(request)
    if title and document:
        new_title = title.group("title").strip().strip('"')
        lines = document.split("\n")
        if lines and lines[0].startswith("# "):
            return "\n".join([f"# {new_title}", *lines[1:]]), f"I changed the title to \"{new_title}\""
        return f"# {new_title}\n\n{document}", f"I added the title \"{new_title}\""
    replaced = _REPLACE.search(request)
    if replaced and document and replaced.group("old").strip() in document:
        old, new = replaced.group("old").strip(), replaced.group("new").strip()
        return document.replace(old, new), f"I replaced every \"{old}\" with \"{new}\""
    return None


def accepted(outcome_data: Any, text: str) -> bool:
    """Whether the page's answer to ``write_document`` accepts the changes."""
    if isinstance(outcome_data, Mapping):
        return bool(outcome_data.get("accepted"))
    return not re.search(r"\b(reject|rejected|false|no)\b", text, re.IGNORECASE)


def scenario(messages: Messages) -> Turn:
    """Decide the scripted model's next turn from the conversation (see the module docstring)."""
    outcomes = [o for o in tool_outcomes(messages) if o.name == WRITE_DOCUMENT.name]
    if outcomes:
        if accepted(outcomes[-1].data, outcomes[-1].text):
            return [Text("Great, the changes are in the document. Ask me for another edit whenever you like.")]
        return [Text("Understood: I left the document as it was. Tell me what you'd like instead.")]
    document, request = document_and_request(user_text(messages))
    edited = edit(document, request)
    if edited is None:
        return [Text("I can write a story (\"a story about a pirate named Candy Beard\"), add a character "
                     "(\"add a character named Courage\"), rename one (\"replace Luna with Marina\") or change the "
                     "title. What would you like?")]
    new_document, change = edited
    return [Text(f"{change}; please review the changes."), call(WRITE_DOCUMENT.name, {"document": new_document})]


def build_agent(env: Mapping[str, str] | None = None) -> StrandsAgent:
    """The example's AG-UI agent; ``env`` (default ``os.environ``) picks the model."""
    strands_agent = Agent(model=model(scenario, env), tools=[],
                          system_prompt=SYSTEM_PROMPT, callback_handler=None)
    return StrandsAgent(strands_agent, name=NAME, description=DESCRIPTION, config=CONFIG)


agent = build_agent()
app = create_strands_app(agent)

if __name__ == "__main__":
    serve(app)
