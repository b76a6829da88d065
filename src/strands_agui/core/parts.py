"""The decode step: one Strands ``stream_async`` dict -> the part it is (a kind) and what its handler reads.

A Strands event is a plain dict whose shape says what it is: a ``type`` (``tool_stream``, ``multiagent_*``), an
only key (``message``, ``result``, ``event``: a raw model chunk), or keys Strands merged the caller's
``invocation_state`` into (``event_loop_throttled_delay``). A raw chunk is one of the model's ``StreamEvent`` keys,
and a ``contentBlockDelta`` one of its delta keys. :func:`decode` reads that shape once and answers ``(kind,
payload)``: the translator's one dispatch table (``Translator.parts``) maps each kind to one handler, which is
given the payload (the event, the chunk's value, or the delta's value: what that handler reads).

Events Strands merges the caller's invocation_state into (text, reasoning, tool input, citations: the typed twin
of a raw chunk, carrying ``delta``) are :data:`TWIN`: what they say is read from the raw chunk before them, which
nothing is merged into. An event of no known shape is :data:`UNMAPPED` (RAW when ``raw_events`` is on); a chunk
or delta with no AG-UI meaning is :data:`IGNORED`.

Why a kind and not a typed object per part (pydantic-ai decodes into part classes): a text delta is the hot path
(one raw chunk and one typed twin per delta), and a tuple of a string and the dict's own value allocates nothing
a handler would not read anyway (``docs/benchmarks.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# what is not handled: the typed twin of a raw chunk, an event of no known shape, a chunk or delta of no meaning
TWIN, UNMAPPED, IGNORED = "twin", "unmapped", "ignored"

# events handled by their ``type`` (payload: the event)
TYPED = frozenset({
    "tool_stream", "multiagent_node_start", "multiagent_node_stream", "multiagent_node_stop", "multiagent_handoff",
    "multiagent_node_cancel", "multiagent_node_interrupt",
})
# events handled by their only key (payload: the event); ``event`` (a raw chunk) is decoded further
KEYED = frozenset({
    "message", "tool_interrupt_event", "strands_agui_tool_inputs", "strands_agui_background_tasks",
    "structured_output", "result",
})
# events Strands merges invocation_state into, handled by one of their keys (payload: the event)
MERGED = ("event_loop_throttled_delay",)
# raw model chunk keys whose value is the payload (``contentBlockStart`` / ``contentBlockDelta`` decoded further)
CHUNKS = frozenset({"messageStart", "contentBlockStop", "messageStop", "metadata"})
# ``contentBlockDelta.delta`` keys (payload: the key's value), each its own kind
DELTAS = frozenset({"text", "citation", "reasoningContent", "toolUse"})
# ``contentBlockStart.start.toolUse`` (payload: the toolUse)
TOOL_USE_START = "toolUseStart"

KINDS: tuple[str, ...] = (*sorted(TYPED), *sorted(KEYED), *MERGED, *sorted(CHUNKS), TOOL_USE_START, *sorted(DELTAS),
                          TWIN, UNMAPPED, IGNORED)
"""Every kind :func:`decode` answers: the keys of the translator's dispatch table."""


def decode(event: Mapping[str, Any]) -> tuple[str, Any]:
    """The part ``event`` is, and its handler's payload. A plain ``dict`` is recognised without the ``Mapping``
    ABC check (the hot path: a delta's raw chunk, then its typed twin)."""
    if "event" in event and len(event) == 1:
        return _chunk(event["event"])
    kind = event.get("type")
    if isinstance(kind, str) and kind in TYPED:
        return kind, event
    if "delta" in event:
        return TWIN, event
    if len(event) == 1:
        key = next(iter(event))
        return (key, event) if key in KEYED else (UNMAPPED, event)
    for key in MERGED:
        if key in event:
            return key, event
    return UNMAPPED, event


def _chunk(chunk: Any) -> tuple[str, Any]:
    """A raw model chunk: its first key with a meaning and a mapping value."""
    if type(chunk) is not dict and not isinstance(chunk, Mapping):
        return IGNORED, chunk
    for key, value in chunk.items():
        if type(value) is not dict and not isinstance(value, Mapping):
            continue
        if key == "contentBlockDelta":
            return _delta(value.get("delta"))
        if key in CHUNKS:
            return key, value
        if key == "contentBlockStart":
            tool_use = (value.get("start") or {}).get("toolUse")
            return (TOOL_USE_START, tool_use) if isinstance(tool_use, Mapping) else (IGNORED, value)
    return IGNORED, chunk


def _delta(delta: Any) -> tuple[str, Any]:
    """A ``contentBlockDelta``'s delta: its one key (text, toolUse, reasoningContent, citation) and value."""
    if type(delta) is not dict and not isinstance(delta, Mapping):
        return IGNORED, delta
    for key, value in delta.items():
        if key in DELTAS:
            return key, value
    return IGNORED, delta


__all__ = ["IGNORED", "KINDS", "TWIN", "UNMAPPED", "decode"]
