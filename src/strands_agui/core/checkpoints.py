"""A Strands checkpoint (``Agent(checkpointing=True)``, ``stop_reason="checkpoint"``) as an AG-UI pause.

Strands pauses a checkpointing agent at each cycle boundary of a tool-using turn (``after_model``: the model
asked for tools, they have not run; ``after_tools``: they ran, the next model call has not happened) and
resumes it from ``{"checkpointResume": {"checkpoint": ...}}`` (``strands/experimental/checkpoint``). A client
resumes an AG-UI run with ``RunAgentInput.resume``, so a checkpoint ends the run like an interrupt does:
``RUN_FINISHED`` with ``outcome: {type: "interrupt", interrupts: [<one interrupt>]}`` (the machine's
``finish [run_checkpointed]`` -> ``paused``), the interrupt::

    {"id": "checkpoint-<runId>", "reason": "strands_checkpoint",
     "message": "Paused at a checkpoint (after_model, cycle 0): resume to continue.",
     "metadata": {"checkpoint": {"position": "after_model", "cycle_index": 0, "schema_version": "1.0"}}}

and the run's agent is parked in the session store with the checkpoint (``runtime/pause.py``), durable and
resumable on any worker like a pause. A resume answering it with ``status: "resolved"`` (any payload, none
needed) continues from the checkpoint; ``cancelled`` drops it (the run finishes at once).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ag_ui.core import Interrupt

REASON = "strands_checkpoint"
STATE_KEY = "strands_agui.checkpoint"
"""Where the parked agent's ``state`` keeps ``{"interruptId", "checkpoint"}`` (removed when resumed)."""


def interrupt_id(run_id: str) -> str:
    """The id of the interrupt a checkpoint of run ``run_id`` is shown as."""
    return f"checkpoint-{run_id}"


def checkpoint_of(result: Any) -> dict[str, Any] | None:
    """The checkpoint (its ``to_dict`` form) of a Strands ``AgentResult``, live or recorded; None: none."""
    value = result.get("checkpoint") if isinstance(result, Mapping) else getattr(result, "checkpoint", None)
    if value is None:
        return None
    data = value if isinstance(value, Mapping) else value.to_dict()
    return {str(k): v for k, v in data.items()}


def as_interrupt(run_id: str, checkpoint: Mapping[str, Any]) -> Interrupt:
    """The AG-UI interrupt a client answers to resume from ``checkpoint``."""
    where = f"{checkpoint.get('position')}, cycle {checkpoint.get('cycle_index')}"
    return Interrupt(id=interrupt_id(run_id), reason=REASON,
                     message=f"Paused at a checkpoint ({where}): resume to continue.",
                     metadata={"checkpoint": dict(checkpoint)})
