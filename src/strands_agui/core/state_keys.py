"""The ``invocation_state`` keys Strands and the adapter write, and which of them must not leave the server.

Strands merges ``invocation_state`` into some of its events. What a log keeps and what a RAW event shows
are both decided from these sets, so the two never drift apart.
"""

from __future__ import annotations

AGUI_INPUT_KEY = "ag_ui_input"
"""Where the adapter puts the run's ``RunAgentInput`` for hooks and tools (``runtime/invocation.py``)."""

LIVE_KEYS: frozenset[str] = frozenset(
    {"agent", "model", "event_loop_cycle_trace", "event_loop_cycle_span", "messages", "tool_config",
     "system_prompt", AGUI_INPUT_KEY}
)
"""Keys holding live or large objects: dropped from every (nested) event a log records."""

STRANDS_STATE_KEYS: frozenset[str] = LIVE_KEYS | {"event_loop_cycle_id", "event_loop_parent_cycle_id",
                                                  "request_state"}
"""Every key Strands (and the adapter) write into invocation_state: never passed through in a RAW event."""
