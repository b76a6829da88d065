"""A2UI generative UI: the ``generate_a2ui`` tool, built as upstream's adapters build it on ``ag-ui-a2ui-toolkit``.

The agent (the planner) calls ``generate_a2ui(intent, target_surface_id?, changes?)``. The tool runs a second
Strands agent (the designer) whose one tool is the toolkit's inner ``render_a2ui``, prompted by the toolkit
(``prepare_a2ui_request``: the component catalog ``@ag-ui/a2ui-middleware`` puts in ``RunAgentInput.context``,
the prior surface for an update). The designer's events are yielded from the tool, so the adapter streams it
as a subagent of the call (``SUBAGENT_STARTED {parentToolCallId}``): its ``render_a2ui`` call reaches the client
as ``TOOL_CALL_START`` / ``TOOL_CALL_ARGS`` while the model writes it, which the middleware parses to paint the
surface progressively. The tool's result is the toolkit's envelope, ``{"a2ui_operations": [...]}``
(``build_a2ui_envelope``), which the middleware also reads from ``TOOL_CALL_RESULT``; a request it cannot
serve (an update of a surface never rendered, a designer that drew nothing) is ``{"error": "..."}``.

With ``max_attempts`` (upstream's error recovery), each render is checked with the toolkit's
``validate_a2ui_components`` (what the middleware checks before it paints); an invalid one is sent back to the
designer as a new message listing the errors (``format_validation_errors``), up to ``max_attempts`` renders in
all, after which the result is the toolkit's ``{"error", "code": "a2ui_recovery_exhausted", "attempts"}``.

    from strands_agui.tooling.a2ui import a2ui_tool
    agent = Agent(model=planner_model, tools=[a2ui_tool(designer_model)])
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from ag_ui_a2ui_toolkit import (
    RENDER_A2UI_TOOL_DEF,
    A2UIGuidelines,
    A2UIToolParams,
    build_a2ui_envelope,
    prepare_a2ui_request,
    resolve_a2ui_tool_params,
    split_a2ui_schema_context,
    wrap_error_envelope,
)
from ag_ui_a2ui_toolkit.recovery import format_validation_errors
from ag_ui_a2ui_toolkit.validate import validate_a2ui_components
from strands import Agent, tool
from strands.models import Model
from strands.types.tools import AgentTool, ToolContext

from strands_agui.core.results import result_text
from strands_agui.core.state_keys import AGUI_INPUT_KEY

RENDER_SPEC: Mapping[str, Any] = RENDER_A2UI_TOOL_DEF["function"]
RENDER_TOOL_NAME: str = RENDER_SPEC["name"]


@tool(name=RENDER_TOOL_NAME, description=RENDER_SPEC["description"], inputSchema={"json": RENDER_SPEC["parameters"]})
def render_a2ui(surfaceId: str, components: list[dict[str, Any]], data: dict[str, Any] | None = None) -> str:  # noqa: N803
    """The designer's one tool: its arguments are the surface (the tool itself only acknowledges them)."""
    return f"rendered {surfaceId} ({len(components)} components)"


def a2ui_tool(model: Model, *, guidelines: A2UIGuidelines | None = None, default_surface_id: str | None = None,
              default_catalog_id: str | None = None, tool_name: str | None = None,
              tool_description: str | None = None, max_attempts: int | None = None) -> AgentTool:
    """The ``generate_a2ui`` tool (named and described as the toolkit advertises it), designing with ``model``;
    ``max_attempts``: validate each render and ask again, up to that many renders (None: no validation)."""
    if max_attempts is not None and (not isinstance(max_attempts, int) or max_attempts < 1):
        raise ValueError(f"max_attempts must be a positive int or None, not {max_attempts!r}")
    params = resolve_a2ui_tool_params(A2UIToolParams(
        model=model, guidelines=guidelines, default_surface_id=default_surface_id,
        default_catalog_id=default_catalog_id, tool_name=tool_name, tool_description=tool_description))

    @tool(name=params["tool_name"], description=params["tool_description"], context=True)
    async def generate_a2ui(tool_context: ToolContext, intent: str = "create", target_surface_id: str = "",
                            changes: str = "") -> AsyncIterator[Any]:
        """Generate or update an A2UI surface (see the tool description).

        Args:
            intent: 'create' to render a new surface; 'update' to modify one rendered before.
            target_surface_id: With intent='update': the surface id of the prior render to modify.
            changes: With intent='update': the changes to apply, in words.
        """
        history = tool_messages(tool_context.agent.messages)
        prep = prepare_a2ui_request(intent=intent, target_surface_id=target_surface_id or None,
                                    changes=changes or None, messages=history,
                                    state=a2ui_state(tool_context.invocation_state), guidelines=params["guidelines"])
        if "error" in prep:
            yield wrap_error_envelope(str(prep["error"]))
            return
        designer = Agent(model=params["model"], tools=[render_a2ui], system_prompt=prep["prompt"],
                         callback_handler=None)
        rendered = _Rendered()
        async for event in _renders(designer, request_for(tool_context.agent.messages, changes), max_attempts,
                                    rendered):
            yield event
        if rendered.exhausted:
            yield json.dumps({"error": f"Failed to generate valid A2UI after {max_attempts} attempt(s)",
                              "code": "a2ui_recovery_exhausted", "attempts": rendered.attempts})
            return
        args = rendered.args
        if not args:
            yield wrap_error_envelope(f"the designer did not call {RENDER_TOOL_NAME}")
            return
        yield _envelope(args, prep, target_surface_id, params)

    return generate_a2ui  # type: ignore[return-value]


class _Rendered:
    """What the designer's renders came to: the last render's arguments, each validated attempt, and whether
    every attempt allowed was invalid."""

    def __init__(self) -> None:
        self.args: dict[str, Any] = {}
        self.attempts: list[dict[str, Any]] = []
        self.exhausted = False


async def _renders(designer: Agent, request: str, max_attempts: int | None, rendered: _Rendered
                   ) -> AsyncIterator[Any]:
    """Run the designer, yielding its events, until a render validates (at most ``max_attempts`` renders; None:
    one, not validated); each invalid render is sent back with its errors. ``rendered`` says what came of it."""
    for attempt in range(1, (max_attempts or 1) + 1):
        rendered.args = {}
        async for event in designer.stream_async(request):
            rendered.args = render_args(event) or rendered.args
            if "result" not in event:
                yield event
        if max_attempts is None:
            return
        errors = render_errors(rendered.args)
        rendered.attempts.append({"attempt": attempt, "ok": not errors, "errors": errors})
        if not errors:
            return
        request = f"{RETRY_HEADER}\n{format_validation_errors(errors)}\n"
    rendered.exhausted = True


RETRY_HEADER = "Previous attempt was invalid — fix these and call render_a2ui again:"
"""How a retry's message to the designer starts (the toolkit's wording); the errors follow, one a line."""


def render_errors(args: Mapping[str, Any]) -> list[dict[str, str]]:
    """What the toolkit's validator finds wrong with a render's arguments (none called: ``empty_components``)."""
    if not args:
        return [{"code": "empty_components", "path": "components",
                 "message": f"Sub-agent did not call {RENDER_TOOL_NAME}"}]
    components, data = args.get("components"), args.get("data")
    result = validate_a2ui_components(components=components if isinstance(components, list) else [],
                                      data=data if isinstance(data, dict) else {}, catalog=None)
    return list(result["errors"])


def _envelope(args: dict[str, Any], prep: Mapping[str, Any], target_surface_id: str, params: Mapping[str, Any]
              ) -> Any:
    """The tool's result: the toolkit's ``a2ui_operations`` envelope of the designer's render call."""
    return build_a2ui_envelope(args=args, is_update=bool(prep.get("is_update")),
                               target_surface_id=target_surface_id or None, prior=prep.get("prior"),
                               default_surface_id=params["default_surface_id"],
                               default_catalog_id=params["default_catalog_id"])


def a2ui_state(invocation_state: Mapping[str, Any]) -> dict[str, Any]:
    """The toolkit's state shape from the run's ``RunAgentInput.context``: the catalog the middleware injected
    as ``a2ui_schema``, the other entries as ``context``."""
    run_input = invocation_state.get(AGUI_INPUT_KEY)
    entries = [c.model_dump() for c in getattr(run_input, "context", None) or []]
    schema, rest = split_a2ui_schema_context(entries)
    return {"ag-ui": {"a2ui_schema": schema, "context": rest}}


def tool_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The conversation's tool results as ``{"role": "tool", "content": text}`` (what the toolkit walks to
    find a prior surface)."""
    return [{"role": "tool", "content": result_text(block["toolResult"].get("content"))}
            for message in messages for block in message.get("content") or []
            if isinstance(block.get("toolResult"), Mapping)]


def request_for(messages: Sequence[Mapping[str, Any]], changes: str) -> str:
    """What the designer is asked: the newest user words (and the changes, for an update)."""
    words = next((b["text"] for m in reversed(messages) if m.get("role") == "user"
                  for b in m.get("content") or [] if isinstance(b.get("text"), str)), "")
    return f"{words}\n\nChanges: {changes}" if changes else words or "Render the surface."


def render_args(event: Mapping[str, Any]) -> dict[str, Any] | None:
    """The arguments of the designer's ``render_a2ui`` call, from its assistant message (else None)."""
    message = event.get("message")
    if not isinstance(message, Mapping) or message.get("role") != "assistant":
        return None
    for block in message.get("content") or []:
        use = block.get("toolUse")
        if isinstance(use, Mapping) and use.get("name") == RENDER_TOOL_NAME and isinstance(use.get("input"), Mapping):
            return dict(use["input"])
    return None
