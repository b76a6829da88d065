"""A request's preparation, in one pass down the layers: ``RunAgentInput`` in, one frozen ``core.plan.RunPlan``
out, before the run's first event. Each step takes what the steps before it made and nothing goes back:

1. the application's answers, asked with the input the client sent: its ``invocation_state``
   (``invocation.py``), its tool selection (``tool_selection.py``), its session manager (``session_provider.py``);
   a refusal is kept in the plan (the run ends with it after RUN_STARTED);
2. the server-side thread, met once (``server_thread.ServerThread.enter``): the stored history first, the snapshots
   that announce it, the window its history is built for (the client's messages dumped once, none with threads off);
3. a resume's approved edits shown in the input (``approval.with_edited_arguments``);
4. from that input, once: the frontend tools, the calls a resume continues and their tools, the Strands
   conversation (history and prompt, ``conversation.py``), the prompt as ``state_context_builder`` rewrites it,
   the gated tools (``approval.py``).

The opening, the translator and the runtime read the plan (``runtime/adapter.py``); none derives it again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import Any

from ag_ui.core import AssistantMessage, BaseEvent, RunAgentInput, UserMessage
from strands.multiagent.base import MultiAgentBase

from ..config import StrandsAgentConfig
from ..core.plan import RunPlan, parked_calls
from ..core.translator import hook_failed
from ..errors import RunRefused
from .building.approval import gated_tools, with_edited_arguments
from .building.conversation import conversation, last_turn
from .building.multiagent import paused_history
from .building.run_agent import AgentSource
from .building.session_provider import provided_session_manager
from .building.tool_selection import tool_selection
from .invocation import invocation_state as resolve_invocation_state
from .server_thread import ServerThread

DEFAULT_PROMPT = "Hello"


async def prepare(config: StrandsAgentConfig, source: AgentSource, input_data: RunAgentInput, *,
                  request: Any = None, invocation_state: Mapping[str, Any] | None = None,
                  principal: str | None = None, thread: ServerThread | None = None,
                  offload: Callable[[Callable[[], Any]], Awaitable[Any]] | None = None) -> RunPlan:
    """The plan of one live run (the module docstring's pass); ``offload`` runs the thread's store calls (a store
    on the network: in a worker thread)."""
    refused: RunRefused | None = None
    state: Mapping[str, Any] = {}
    tools: set[str] | None = None
    session = None
    try:
        state = await resolve_invocation_state(config, request, input_data, invocation_state)
        tools = await tool_selection(config, request, input_data)
        session = await provided_session_manager(config, input_data, principal)
    except RunRefused as exc:
        refused, state, tools, session = exc, {}, None, None
    merged, snapshots, window = input_data, [], None
    if thread is not None:
        enter = partial(thread.enter, getattr(source, "conversation_manager", None))
        try:
            merged, snapshots, window = await offload(enter) if offload is not None else enter()
        except RunRefused as exc:
            refused = refused or exc
    return plan(config, source, merged, thread=snapshots, tools=tools, session=session, invocation_state=state,
                refused=refused, window=window)


def plan(config: StrandsAgentConfig, source: AgentSource, input_data: RunAgentInput, *,
         thread: list[BaseEvent] | tuple[BaseEvent, ...] = (), tools: set[str] | None = None, session: Any = None,
         invocation_state: Mapping[str, Any] | None = None, refused: RunRefused | None = None,
         window: int | None = None) -> RunPlan:
    """The plan of a run of ``input_data`` (the pass's last step; a replay's whole plan). ``window``: the Strands
    history is a server-side thread's tail a sliding window of that many messages keeps (``tail_history``,
    ``ServerThread.window_of``; None: the whole)."""
    data = with_edited_arguments(input_data, source)  # the history shows the arguments that run
    parked = parked_calls(data)
    if parked is not None and isinstance(source, MultiAgentBase):
        turn = conversation(data)
        history = paused_history(data)  # a Swarm/Graph resumes from the conversation its paused run started from
    elif window is not None:
        turn = last_turn(data)  # the prompt reads the last turn only, not the whole thread again
        history = tail_history(data, window)
    else:
        turn = conversation(data)
        history = turn.history
    prompt, notes = _prompt(config, data, turn)
    return RunPlan(
        input=data, frontend_tools=frozenset(tool.name for tool in data.tools or ()),
        parked=parked[0] if parked is not None else None, parked_tools=parked[1] if parked is not None else frozenset(),
        history=tuple(history), prompt=tuple(prompt) if prompt is not None else None, notes=tuple(notes),
        thread=tuple(thread), tools=frozenset(tools) if tools is not None else None, approvals=gated_tools(config),
        invocation_state=dict(invocation_state or {}), session=session, refused=refused)


def _prompt(config: StrandsAgentConfig, input_data: RunAgentInput,
            turn: Any) -> tuple[list[dict[str, Any]] | None, list[BaseEvent]]:
    """The run's new user turn (``None`` when it continues from tool results), its text rewritten by
    ``state_context_builder``; "Hello" when the conversation has no new user turn."""
    if turn.prompt is None and turn.history and turn.history[-1]["role"] == "user":
        return None, []  # the conversation ends with tool results: Strands continues from them
    blocks = turn.prompt or [{"text": DEFAULT_PROMPT}]
    builder = config.state_context_builder
    if builder is None:
        return blocks, []
    try:
        text = str(builder(input_data, turn.prompt_text or DEFAULT_PROMPT))
    except Exception as exc:  # noqa: BLE001 - a failing hook never ends the run
        return blocks, [hook_failed("state_context_builder", exc)]
    return [{"text": text}, *(b for b in blocks if "text" not in b)], []


def tail_history(input_data: RunAgentInput, window: int) -> list[Any]:
    """The Strands history of ``input_data`` as a sliding window of ``window`` messages leaves it, built from the
    thread's tail only: from a user message that follows an assistant message without tool calls (where the
    conversion of the whole thread neither merges nor answers across), the last such boundary that leaves more
    than ``window + 2`` Strands messages (three tries, then the whole thread). The window is then applied to it
    as to the whole (``server_thread.ServerThread.window``): it trims from the end, so the result is the same."""
    messages = input_data.messages
    prompt = 1 if messages and isinstance(messages[-1], UserMessage) else 0
    needed, tries = window + 2, 3
    for start in range(len(messages) - prompt - 1, 0, -1):
        if len(messages) - prompt - start < 2 * needed:
            continue  # too short for the window yet (the conversion merges a turn's messages)
        before, first = messages[start - 1], messages[start]
        if isinstance(first, UserMessage) and isinstance(before, AssistantMessage) and not before.tool_calls:
            tail = conversation(input_data.model_copy(update={"messages": messages[start:]})).history
            tries -= 1
            if len(tail) > needed:
                return tail
            if not tries:
                break
    return conversation(input_data).history
