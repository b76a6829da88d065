"""Why a run stopped, for the client: every Strands 1.62 ``StopReason`` with what ``RUN_FINISHED`` carries.

Strands ends a run normally (no exception) for most stop reasons, including the ones where the answer is cut:
a budget (``Agent.stream_async(limits=...)``, our ``StrandsAgentConfig.limits``), the provider's content
filter, a guardrail, a stop sequence. A client must learn that without parsing a stop reason it may not know,
so every stop that is not a plain end of the answer adds ``metadata.stop`` to ``RUN_FINISHED``::

    {"stopReason": "limit_turns",
     "stop": {"kind": "limit", "limit": "turns", "cap": 3, "note": "Stopped: the run reached its turn limit (3)."}}

``kind`` is ``limit`` (a budget: ``limit`` names it, ``cap`` is the configured value when the run's config set
it), ``filtered`` (the provider's content filter), ``guardrail`` or ``stop_sequence``; ``note`` is one sentence
a UI may show as is (the console does). The outcome stays ``success``: the run did not fail, the answer is
what Strands kept. ``RUN_ERROR`` is only for a run that failed: ``max_tokens`` (Strands raises
``MaxTokensReachedException``: ``MAX_TOKENS``). ``cancelled``, ``interrupt`` and ``checkpoint`` are outcomes
(``cancelled``, ``interrupt``; a checkpoint is an ``interrupt`` the client resumes from, ``core/checkpoints.py``).
``docs/events.md`` has the table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# stop reason -> (kind, the budget it names or None, the note; {cap} is filled when the cap is known)
NOTED: dict[str, tuple[str, str | None, str]] = {
    "limit_turns": ("limit", "turns", "Stopped: the run reached its turn limit{cap}."),
    "limit_output_tokens": ("limit", "output_tokens", "Stopped: the run reached its output-token budget{cap}."),
    "limit_total_tokens": ("limit", "total_tokens", "Stopped: the run reached its total-token budget{cap}."),
    "content_filtered": ("filtered", None, "The model provider's content filter stopped this answer."),
    "guardrail_intervened": ("guardrail", None, "A guardrail intervened in this answer."),
    "stop_sequence": ("stop_sequence", None, "The answer ended at a stop sequence."),
}

PLAIN = frozenset({"end_turn", "tool_use"})
"""Stop reasons that are a plain end (``tool_use`` is the last one of a run halted on a frontend tool)."""

OUTCOMES = frozenset({"cancelled", "interrupt", "checkpoint"})
"""Stop reasons that are a run outcome of their own (``RUN_FINISHED.outcome``), not a note."""

FAILED = frozenset({"max_tokens"})
"""Stop reasons Strands raises on: the run ends ``RUN_ERROR`` (``MAX_TOKENS``)."""


def stop_metadata(reason: str | None, limits: Mapping[str, int] | None = None) -> dict[str, Any] | None:
    """``RUN_FINISHED.metadata`` for a run Strands stopped for ``reason`` (None: it reported none)."""
    if reason is None:
        return None
    metadata: dict[str, Any] = {"stopReason": reason}
    noted = NOTED.get(reason)
    if noted is not None:
        kind, limit, note = noted
        cap = (limits or {}).get(limit) if limit else None
        stop: dict[str, Any] = {"kind": kind}
        if limit:
            stop["limit"] = limit
        if cap is not None:
            stop["cap"] = cap
        stop["note"] = note.format(cap=f" ({cap})" if cap is not None else "")
        metadata["stop"] = stop
    return metadata
