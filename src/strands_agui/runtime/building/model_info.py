"""Which model serves a run and each of its subagents, for the ``TokenUsage`` entries of the terminal event."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def model_info(model: Any) -> dict[str, Any]:
    """The model id (its config's ``model_id``) and provider (the ``strands.models`` module it comes from, or
    its class name) of a Strands model."""
    if model is None:
        return {}
    config = model.get_config() if hasattr(model, "get_config") else {}
    model_id = config.get("model_id") if isinstance(config, Mapping) else None
    module = type(model).__module__
    provider = module.split(".")[2] if module.startswith("strands.models.") else type(model).__name__
    info = {"provider": provider.lower()}
    if isinstance(model_id, str):
        info["model"] = model_id
    return info


def subagent_models(source: Any) -> dict[str, dict[str, Any]]:
    """The model of every subagent a run of ``source`` can start, by the name its subagent events carry: a
    Swarm's or Graph's node ids (nested orchestrators included) and the tool names of agents used as tools."""
    found: dict[str, dict[str, Any]] = {}
    nodes = getattr(source, "nodes", None)
    for node_id, node in nodes.items() if isinstance(nodes, Mapping) else ():
        executor: Any = getattr(node, "executor", None)
        if hasattr(executor, "model"):
            found[str(node_id)] = model_info(executor.model)
        found.update(subagent_models(executor))
    registry = getattr(getattr(source, "tool_registry", None), "registry", None)
    for name, tool in registry.items() if isinstance(registry, Mapping) else ():
        inner = getattr(tool, "agent", None) if type(tool).__name__ == "_AgentAsTool" else None
        if inner is not None:
            found[str(name)] = model_info(getattr(inner, "model", None))
            found.update(subagent_models(inner))
    return found
