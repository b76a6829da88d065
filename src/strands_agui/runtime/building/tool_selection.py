"""Per-request tool selection: ``StrandsAgentConfig.template_tools_provider`` narrows the template's tools for
one run (upstream ``ag_ui_strands``' name and return contract).

The provider is called once per request, before Strands, with the FastAPI request and the ``RunAgentInput``
(a one-parameter provider, upstream's shape, gets the input only); sync or async. It answers with the names
(or the tool objects) this run may use, or None for all of them; an empty list withholds every one.

* **The answer is checked, not merely iterated** (upstream's rule): a string would come apart into
  characters and a mapping's values would go unread, so both end the run with ``TOOL_SELECTION_ERROR``, as do
  a provider that raises and an answer that is not a container. A name the agent has no tool for is dropped
  with a warning: the selection narrows, it cannot add.
* **Withheld tools are removed from the run's own agent** (a per-run copy: the template is never touched),
  so the model is not offered them. A call the model still makes to one gets an error result,
  :func:`withheld_result`, through Strands' ``BeforeToolCallEvent`` ``cancel_tool``: never a crash, and the
  model reads why.
* **Not narrowed**: the client's frontend tools (``RunAgentInput.tools``: a client that wants fewer sends
  fewer), the tools of calls a resume continues (the parked calls must run), and a Swarm or Graph's nodes.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from ag_ui.core import RunAgentInput
from strands import Agent
from strands.hooks import BeforeToolCallEvent
from strands.multiagent.base import MultiAgentBase

from ...config import StrandsAgentConfig, maybe_await
from ...errors import RunRefused

logger = logging.getLogger(__name__)


def withheld_result(name: str) -> str:
    """The error result a call to a withheld tool gets."""
    return f"The tool {name} is not available in this conversation; answer without it."


async def tool_selection(config: StrandsAgentConfig, request: Any, input_data: RunAgentInput) -> set[str] | None:
    """The tool names this run may use (None: all); raises :class:`RunRefused` ``TOOL_SELECTION_ERROR``."""
    provider = config.template_tools_provider
    if provider is None:
        return None
    try:
        answer = await maybe_await(provider(input_data) if _takes_one(provider) else provider(request, input_data))
    except Exception as exc:  # noqa: BLE001 - the run reports it
        raise RunRefused("TOOL_SELECTION_ERROR", f"template_tools_provider failed: {type(exc).__name__}: {exc}"
                         ) from exc
    return _names(answer)


def _takes_one(provider: Any) -> bool:
    try:
        parameters = inspect.signature(provider).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) == 1 and not any(p.kind is p.VAR_POSITIONAL for p in parameters)


def _names(answer: Any) -> set[str] | None:
    if answer is None:
        return None
    if isinstance(answer, str | bytes | bytearray | Mapping) or not isinstance(answer, Iterable):
        raise RunRefused("TOOL_SELECTION_ERROR", "template_tools_provider must return None or a list of tool "
                                                 f"names (or tools), not {type(answer).__name__}")
    names = {entry if isinstance(entry, str) else getattr(entry, "tool_name", None) for entry in answer}
    if None in names or "" in names:
        logger.warning("template_tools_provider returned an entry that names no tool; it is ignored")
    return {name for name in names if isinstance(name, str) and name}


def narrow_tools(runner: Agent | MultiAgentBase, allowed: Collection[str] | None, kept: Collection[str]) -> None:
    """Withhold from ``runner`` (the run's own agent) the tools ``allowed`` leaves out, never one of ``kept`` (the
    plan's frontend tools and the tools of the calls a resume continues); see the module."""
    if allowed is None or not isinstance(runner, Agent):
        return
    keep = set(allowed) | set(kept)
    registry = runner.tool_registry
    for name in sorted(set(allowed) - set(registry.registry)):
        logger.warning("template_tools_provider named %r, which the agent has no tool for; it stays unavailable",
                       name)
    withheld = {name for name in registry.registry if name not in keep}
    for name in withheld:
        del registry.registry[name]
        registry.dynamic_tools.pop(name, None)
    if withheld:
        runner.hooks.add_callback(BeforeToolCallEvent, _refuse(frozenset(withheld)))


def _refuse(withheld: frozenset[str]) -> Any:
    def refuse(event: BeforeToolCallEvent) -> None:
        name = event.tool_use["name"]
        if name in withheld:
            event.cancel_tool = withheld_result(name)

    return refuse
