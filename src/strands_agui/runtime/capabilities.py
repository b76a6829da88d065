"""``AgentCapabilities`` of a served agent (``GET <path>/capabilities``), derived from what it is configured with.

* ``identity``: the adapter's name and description, ``type: "strands"``, the model's provider;
* ``tools``: the template agent's tools as AG-UI ``Tool``s (a per-run factory's tools are unknown until a
  run: ``items`` is then omitted); client-provided tools are accepted; calls of one turn run concurrently
  unless the agent uses Strands' ``SequentialToolExecutor``;
* ``output.structuredOutput``: the agent has a ``structured_output_model``;
* ``state``: snapshots always, deltas (from ``custom_result_handler``s), ``persistentState`` when server-side
  threads are on (the thread API, ``GET <path>/threads``, lists and restores them);
* ``reasoning``: streamed, with encrypted values (signatures, redacted reasoning) when the model sends them;
* ``multiAgent``: a Swarm or Graph (their node ids as ``subagents``), or tools that are agents;
* ``humanInTheLoop``: interrupts always (Strands' ``interrupt()``), approvals when a tool has
  ``interrupt_on_call``;
* ``transport``: streaming (SSE) always, ``httpBinary`` when the protobuf framing is served (``protobuf``
  installed), ``resumable`` when the endpoint's runs are;
* ``multimodal``: the input kinds a user part is accepted as and reaches the model with (image, audio, video,
  pdf: ``conversation.py`` maps them, ``server/request/validation.py`` refuses any other type with a 422; not ``file``:
  a document of a type Strands has no format for is refused), image output (tool results as image parts).
  ``tests/server/test_media_input.py`` checks each declared kind against a served run, and each undeclared one's 422.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ag_ui.core import (
    AgentCapabilities,
    HumanInTheLoopCapabilities,
    IdentityCapabilities,
    MultiAgentCapabilities,
    MultimodalCapabilities,
    MultimodalInputCapabilities,
    MultimodalOutputCapabilities,
    OutputCapabilities,
    ReasoningCapabilities,
    StateCapabilities,
    SubagentInfo,
    Tool,
    ToolsCapabilities,
    TransportCapabilities,
)

from .building.model_info import model_info

if TYPE_CHECKING:
    from .adapter import StrandsAgent


def capabilities(adapter: StrandsAgent, *, resumable: bool = False, http_binary: bool = False) -> AgentCapabilities:
    """What ``adapter`` can do, for ``GET <path>/capabilities`` (``resumable``: the endpoint's runs are;
    ``http_binary``: it serves the AG-UI protobuf framing)."""
    source = adapter.strands_agent
    template = source if hasattr(source, "tool_registry") else None
    model = getattr(source, "model", None)
    approvals = any(b.interrupt_on_call for b in adapter.config.tool_behaviors.values())
    return AgentCapabilities(
        identity=IdentityCapabilities(name=adapter.name, description=adapter.description or None, type="strands",
                                      provider=model_info(model).get("provider") if model is not None else None),
        transport=TransportCapabilities(streaming=True, http_binary=http_binary or None, resumable=resumable or None),
        tools=_tools(template),
        output=OutputCapabilities(structured_output=bool(getattr(template, "_default_structured_output_model", None))),
        state=StateCapabilities(snapshots=True, deltas=True, persistent_state=adapter.threads),
        multi_agent=_multi_agent(source, template),
        reasoning=ReasoningCapabilities(supported=True, streaming=True, encrypted=True),
        human_in_the_loop=HumanInTheLoopCapabilities(supported=True, interrupts=True, approvals=approvals),
        multimodal=MultimodalCapabilities(input=MultimodalInputCapabilities(image=True, audio=True, video=True,
                                                                            pdf=True, file=False),
                                          output=MultimodalOutputCapabilities(image=True)),
    )


def _tools(template: Any) -> ToolsCapabilities:
    if template is None:
        return ToolsCapabilities(supported=True, client_provided=True)
    specs = template.tool_registry.get_all_tool_specs()
    items = [Tool(name=s["name"], description=s.get("description") or s["name"],
                  parameters=(s.get("inputSchema") or {}).get("json") or {"type": "object"}) for s in specs]
    sequential = type(getattr(template, "tool_executor", None)).__name__ == "SequentialToolExecutor"
    return ToolsCapabilities(supported=True, items=items, parallel_calls=not sequential, client_provided=True)


def _multi_agent(source: Any, template: Any) -> MultiAgentCapabilities:
    nodes = getattr(source, "nodes", None)
    if isinstance(nodes, dict):  # a Swarm or a Graph
        return MultiAgentCapabilities(supported=True, handoffs=True,
                                      subagents=[SubagentInfo(name=str(n)) for n in nodes])
    agents = [t for t in (template.tool_registry.registry.values() if template is not None else ())
              if type(t).__name__ == "_AgentAsTool"]
    if agents:
        return MultiAgentCapabilities(supported=True, delegation=True,
                                      subagents=[SubagentInfo(name=t.tool_name) for t in agents])
    return MultiAgentCapabilities(supported=False)
