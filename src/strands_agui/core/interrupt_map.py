"""Strands interrupts as AG-UI ``Interrupt`` objects, and AG-UI ``ResumeEntry`` lists as Strands
``interruptResponse`` blocks. Pure functions: the same mapping serves the paused run (the outcome) and the
resume (checking each answer against the ``responseSchema`` the client was given).

A Strands interrupt is ``(id, name, reason)``. Its AG-UI form:

* ``id``: the Strands id, unchanged (stable and opaque: ``v1:tool_call:<toolUseId>:...``);
* ``reason``: the Strands ``name`` (``tool_approval`` for the adapter's own approval hook);
* ``message``: ``reason`` when it is a string, else ``reason["message"]``;
* ``responseSchema``: ``reason["responseSchema"]`` (or ``response_schema``) when the reason is a dict;
* ``toolCallId``: the tool call the interrupt was raised for, when the client has seen it streamed;
* ``metadata``: ``{"reason": ...}``, the raw reason made JSON-safe (upstream ``ag_ui_strands``' metadata; the
  Strands ``name`` is ``reason`` already).

**One approval contract.** A Strands intervention's ``Confirm`` (``Agent(interventions=[...])``, a handler
returning ``Confirm(prompt=...)`` before a tool call) pauses as an interrupt named after its handler, whose
reason is the prompt; Strands approves only ``True`` or ``"y"``/``"yes"``. It is shown like our own approval
(``responseSchema`` = :data:`APPROVAL_SCHEMA`, ``metadata.intervention = "confirm"``) and answered the same way:
``{approved: true}`` becomes ``True``, ``{approved: false}`` ``False`` (Strands then cancels the call with
``CONFIRMATION_FAILED: <prompt>``), whatever ``resume_payload`` says.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import jsonschema
from ag_ui.core import Interrupt, ResumeEntry

from ..errors import RunRefused
from .jsonsafe import stringified

APPROVAL = "tool_approval"
APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["approved"],
    "additionalProperties": False,
}
CANCELLED: dict[str, Any] = {"cancelled": True}
"""The Strands response a ``status: "cancelled"`` entry becomes (a tool or hook reads it as a refusal)."""


def fields(interrupt: Any) -> tuple[str, str, Any]:
    """``(id, name, reason)`` of a live ``strands.interrupt.Interrupt`` or of its recorded dict."""
    if isinstance(interrupt, Mapping):
        return str(interrupt.get("id")), str(interrupt.get("name", "")), interrupt.get("reason")
    return str(interrupt.id), str(interrupt.name), interrupt.reason


def response_schema(interrupt: Any) -> dict[str, Any] | None:
    """The JSON Schema the answer must match, or None when the interrupt names none."""
    _, _, reason = fields(interrupt)
    if not isinstance(reason, Mapping):
        return None
    schema = reason.get("responseSchema", reason.get("response_schema"))
    return dict(schema) if isinstance(schema, Mapping) else None


def to_agui(interrupt: Any, tool_call_id: str | None, confirmers: frozenset[str] = frozenset()) -> Interrupt:
    """The AG-UI form of one Strands interrupt (see the module docstring); ``confirmers``: the names of the
    agent's intervention handlers (an interrupt named after one is a ``Confirm``)."""
    interrupt_id, name, reason = fields(interrupt)
    message = reason if isinstance(reason, str) else None
    if isinstance(reason, Mapping) and isinstance(reason.get("message"), str):
        message = reason["message"]
    metadata: dict[str, Any] = {"reason": stringified(reason)}
    schema = response_schema(interrupt)
    if name in confirmers:
        metadata["intervention"], schema = "confirm", dict(APPROVAL_SCHEMA)
    return Interrupt(id=interrupt_id, reason=name or "interrupt", message=message, tool_call_id=tool_call_id,
                     response_schema=schema, metadata=metadata)


def resume_prompt(entries: Sequence[ResumeEntry], pending: Mapping[str, Any],
                  wrapped: bool = True, confirmers: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    """The ``interruptResponse`` blocks answering every pending interrupt (id -> Strands interrupt): a resolved
    entry's payload as ``{"response": payload}`` when ``wrapped`` (upstream ``ag_ui_strands``' contract:
    ``_wrap_resume_response`` in its ``agent.py``), bare otherwise; an approval's payload is always bare (its hook
    reads ``{approved, ...}``); a cancelled entry is ``CANCELLED``.

    Raises :class:`RunRefused` (``INTERRUPT_NOT_FOUND``, ``RESUME_INCOMPLETE``, ``RESUME_INVALID``)."""
    ids = [entry.interrupt_id for entry in entries]
    unknown = [i for i in ids if i not in pending]
    if unknown:
        raise RunRefused("INTERRUPT_NOT_FOUND", f"the thread is not waiting for interrupt(s) {_names(unknown)}; "
                                                f"pending: {_names(pending)}")
    if len(set(ids)) != len(ids):
        raise RunRefused("RESUME_INVALID", "an interrupt is answered more than once")
    missing = [i for i in pending if i not in ids]
    if missing:
        raise RunRefused("RESUME_INCOMPLETE", f"the resume leaves interrupt(s) {_names(missing)} unanswered; "
                                              "answer each (status resolved or cancelled)")
    return [{"interruptResponse": {"interruptId": e.interrupt_id,
                                   "response": _response(e, pending[e.interrupt_id], wrapped, confirmers)}}
            for e in entries]


def _response(entry: ResumeEntry, interrupt: Any, wrapped: bool, confirmers: frozenset[str] = frozenset()) -> Any:
    confirm = fields(interrupt)[1] in confirmers
    if entry.status == "cancelled":
        return False if confirm else CANCELLED
    if entry.payload is None:
        raise RunRefused("RESUME_INVALID", f"interrupt {entry.interrupt_id!r} is resolved without a payload")
    schema = APPROVAL_SCHEMA if confirm else response_schema(interrupt)
    if schema is not None:
        try:
            jsonschema.validate(entry.payload, schema)
        except jsonschema.ValidationError as exc:
            where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
            raise RunRefused("RESUME_INVALID", f"the answer to {entry.interrupt_id!r} does not match its "
                                               f"responseSchema at {where}: {exc.message}") from None
        except jsonschema.SchemaError as exc:
            raise RunRefused("RESUME_INVALID", f"interrupt {entry.interrupt_id!r} has an invalid responseSchema: "
                                               f"{exc.message}") from None
    if confirm:
        return entry.payload["approved"] is True  # Strands' Confirm approves True only (or "yes")
    if wrapped and fields(interrupt)[1] != APPROVAL:
        return {"response": entry.payload}
    return entry.payload


def _names(ids: Iterable[str]) -> str:
    return ", ".join(repr(i) for i in ids) or "none"
