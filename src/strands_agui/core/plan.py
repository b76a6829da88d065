"""A run's plan: one request prepared once, in one pass down the layers, then only read.

A request's ``RunAgentInput`` is turned into one frozen :class:`RunPlan` before its run starts
(``runtime/planning.prepare``): the application's answers (its invocation_state, its tool selection, its
session manager), the server-side thread's stored history merged in, a resume's approved edits applied, the
Strands conversation split into history and prompt, the calls a resume continues, the gated tools. The opening
(``opening.RunOpening``: RUN_STARTED and the thread's snapshots, the start move's guard), the translator (the
input, the frontend tools, the parked calls) and the runtime (the agent built, resumed, narrowed and gated) read
the plan; nothing derives any of it a second time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ag_ui.core import BaseEvent, RunAgentInput

from ..errors import RunRefused


@dataclass(frozen=True)
class RunPlan:
    """One run of one request, prepared.

    * ``input``: the run's input (the thread's stored history first, a resume's approved edits shown);
    * ``frontend_tools``: the names of the tools the client runs (``input.tools``);
    * ``parked``: on a resume, the ids of the calls it continues (the input's calls no tool message answers),
      else None; ``parked_tools``: their tools' names (never withheld by a tool selection);
    * ``history``: the Strands messages the run's agent starts from; ``prompt``: the new user turn (content
      blocks, rewritten by ``state_context_builder``), None when Strands continues from tool results;
    * ``notes``: events to send after the opening (a failing ``state_context_builder``'s hook error);
    * ``thread``: the server-side thread's ``MESSAGES_SNAPSHOT``s, sent after RUN_STARTED (none: threads off,
      or the input is what the client sent);
    * ``tools``: the tool names the run may use (``template_tools_provider``; None: all);
      ``approvals``: the tools a call of which waits for the user's approval (``interrupt_on_call``);
    * ``invocation_state``, ``session``: the application's invocation_state and session manager;
    * ``refused``: why the run must end at once after RUN_STARTED (a provider refused), or None.
    """

    input: RunAgentInput
    frontend_tools: frozenset[str] = frozenset()
    parked: frozenset[str] | None = None
    parked_tools: frozenset[str] = frozenset()
    history: tuple[dict[str, Any], ...] = ()
    prompt: tuple[dict[str, Any], ...] | None = None
    notes: tuple[BaseEvent, ...] = ()
    thread: tuple[BaseEvent, ...] = ()
    tools: frozenset[str] | None = None
    approvals: frozenset[str] = frozenset()
    invocation_state: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    session: Any = None
    refused: RunRefused | None = None

    @property
    def resumes(self) -> bool:
        """True when the run continues a parked tool batch (``RunAgentInput.resume``)."""
        return self.parked is not None

    def prompt_blocks(self) -> list[dict[str, Any]] | None:
        """The prompt as Strands takes it (a fresh list)."""
        return None if self.prompt is None else list(self.prompt)


def parked_calls(input_data: RunAgentInput) -> tuple[frozenset[str], frozenset[str]] | None:
    """On a resume, the ids of the tool calls the input's assistant messages hold and no tool message answers,
    and their tools' names (one pass over the messages); None when the input resumes nothing."""
    if not input_data.resume:
        return None
    answered = {getattr(m, "tool_call_id", None) for m in input_data.messages if m.role == "tool"}
    calls = [call for m in input_data.messages if m.role == "assistant"
             for call in getattr(m, "tool_calls", None) or () if call.id not in answered]
    return frozenset(call.id for call in calls), frozenset(call.function.name for call in calls)
