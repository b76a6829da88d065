"""Run end: the terminal RUN_FINISHED / RUN_ERROR with what Strands reported about the run (its start,
RUN_STARTED, needs nothing Strands reports: ``core/opening.py``).

* ``outcome``: ``interrupt`` when the machine ends ``paused`` (the interrupts the run waits for, or the one
  naming a Strands checkpoint: ``core/checkpoints.py``);
  ``cancelled`` when the run halted on the ``cancel`` move (a cancel by id, or Strands' ``result`` saying it was
  cancelled: ``agent.cancel()``, a hook's cancel), the halt reason the table carries; otherwise ``success``,
  naming in ``pendingToolCallIds`` the frontend tool calls the client is to answer.
* ``usage``: the token usage every model call of the run reported (raw ``metadata`` chunks), summed per model
  (one ``TokenUsage`` per provider and model id), on RUN_FINISHED and on RUN_ERROR alike. ``inputTokens``
  includes cache reads and writes (AG-UI counts them as parts of it; Strands reports them beside it). The
  calls of subagents count (AG-UI: "calls made by its subagents included"): each subagent's translator sums its
  own chunks and hands its totals to its parent when it ends (:meth:`OutcomeHandler.absorb`), so a Swarm or
  Graph run's usage equals Strands' ``accumulated_usage`` of the multi-agent result, which is never read
  (reading both would count every node twice). An agent used as a tool counts too, although Strands leaves it
  out of the calling agent's ``accumulated_usage``: it is model usage the run caused.
* ``result``: the validated structured output (``structured_output`` event), as JSON data.
* ``metadata.stopReason``: Strands' stop reason (``end_turn``, ``tool_use``, ``cancelled``, ``limit_turns``,
  ``guardrail_intervened`` ...), whenever Strands reported one; ``metadata.stop`` (kind, note) when the answer
  was cut short without the run failing (a budget, a content filter, a guardrail, a stop sequence:
  ``core/stops.py``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from ag_ui.core import (
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    TokenUsage,
)

from ...errors import RunFailure
from ..checkpoints import as_interrupt, checkpoint_of
from ..jsonsafe import stringified
from ..machine import CANCELLED, HALTED, PAUSED
from ..stops import stop_metadata
from .base import Item
from .run import Handler, Outcome, Run

USAGE_KEYS = ("inputTokens", "outputTokens", "totalTokens", "cacheReadInputTokens", "cacheWriteInputTokens")
ModelKey = tuple[str | None, str | None]  # (provider, model id)


class OutcomeHandler(Handler):
    """The last event of the run, and what it carries (usage under the run facts' ``model``)."""

    stop_reason: str | None = None
    result: Any = None
    checkpoint: dict[str, Any] | None = None  # the run's Strands checkpoint (stop reason ``checkpoint``)

    def __init__(self, run: Run) -> None:
        super().__init__(run)
        self.usage_totals: Counter[str] = Counter()  # this (sub)run's own model calls
        self.usage_by_model: dict[ModelKey, Counter[str]] = {}  # its ended subagents' calls

    def absorb(self, sub: Outcome) -> None:
        """Add an ended subagent's usage (its own calls and its subagents') to this run's."""
        for key, totals in sub.usage_entries().items():
            self.usage_by_model.setdefault(key, Counter()).update(totals)

    def usage_entries(self) -> dict[ModelKey, Counter[str]]:
        model = self.run.facts.model
        own = (model.get("provider"), model.get("model"))
        entries = {own: Counter(self.usage_totals)} if self.usage_totals else {}
        for key, totals in self.usage_by_model.items():
            entries.setdefault(key, Counter()).update(totals)
        return entries

    # -- what Strands reports -------------------------------------------------------------------------
    def on_message_stop(self, chunk: Mapping[str, Any]) -> list[Item]:
        reason = chunk.get("stopReason")
        if isinstance(reason, str):
            self.stop_reason = reason
        return []

    def on_metadata(self, chunk: Mapping[str, Any]) -> list[Item]:
        usage = chunk.get("usage")
        if isinstance(usage, Mapping):
            self.usage_totals.update({k: int(usage[k]) for k in USAGE_KEYS if isinstance(usage.get(k), int)})
        return []

    def on_structured_output(self, event: Mapping[str, Any]) -> list[Item]:
        value = event["structured_output"]
        self.result = stringified(value.model_dump(mode="json") if hasattr(value, "model_dump") else value)
        return []

    # -- the end --------------------------------------------------------------------------------------
    def on_result(self, event: Mapping[str, Any]) -> list[Item]:
        result = event["result"]
        reason = result.get("stop_reason") if isinstance(result, Mapping) else getattr(result, "stop_reason", None)
        if isinstance(reason, str):
            self.stop_reason = reason
        if reason == "checkpoint":
            self.checkpoint = checkpoint_of(result)
        if reason == "cancelled" and not self.run.subagent and self.run.can("cancel"):
            return self.halt_cancelled("result")  # Strands cancelled the run (agent.cancel(), a hook)
        return []

    def cancel(self) -> list[Item]:
        """A cancel by id: close what is open, halt (``cancel``), and finish with outcome ``cancelled``."""
        out = self.halt_cancelled("cancel")
        self.stop_reason = "cancelled"
        return out

    def halt_cancelled(self, cause: str) -> list[Item]:
        """The ``cancel`` move (its halt reason is the table's ``cancelled``), once what is open is closed."""
        out = self.run.close_open(cause)
        return out + self.run.fire("cancel", cause)

    def finish_run(self) -> list[Item]:
        run = self.run
        out = run.close_open("finish") + run.subagents.close_all(failed=False)
        if run.state == HALTED and not run.subagent:  # its open background tasks were cancelled with it
            out += run.background.on_halted()
        metadata = stop_metadata(self.stop_reason, None if run.subagent else run.config.limits)
        paused = run.goes_to("finish") == PAUSED  # the table's answer (its guards), asked before the move
        finished = RunFinishedEvent(thread_id=run.input.thread_id, run_id=run.input.run_id,
                                    outcome=self.outcome(paused), usage=self.usage(), result=self.result,
                                    metadata=metadata)
        return out + run.fire("finish", "finish", [finished])

    def outcome(self, paused: bool) -> Any:
        """The one place a finished run's outcome is decided: ``paused`` (the machine's ``finish`` goes to
        ``paused``), else the halt reason the table carries (``cancelled``), else success."""
        if paused and self.checkpoint is not None and not self.run.interrupts.waiting:
            interrupt = as_interrupt(self.run.input.run_id, self.checkpoint)
            interrupt.expires_at = self.run.facts.expires_at  # parked as long as a pause
            return RunFinishedInterruptOutcome(interrupts=[interrupt])
        if paused:
            return RunFinishedInterruptOutcome(interrupts=self.run.interrupts.pending())
        if self.run.halt == CANCELLED:
            return RunFinishedCancelledOutcome()
        return RunFinishedSuccessOutcome(pending_tool_call_ids=self.run.tools.pending() or None)

    def usage(self) -> list[TokenUsage] | None:
        """One entry per (provider, model), the run's own model first; None when no model call reported usage."""
        return [_token_usage(key, totals) for key, totals in self.usage_entries().items()] or None

    def fail_run(self, failure: RunFailure) -> list[Item]:
        run = self.run
        out = run.close_open("error") + run.subagents.close_all(failed=True)
        return out + run.fire("fail", "error", self.failed_events(failure))

    def failed_events(self, failure: RunFailure) -> list[Item]:
        return [RunErrorEvent(message=failure.message, code=failure.code, usage=self.usage())]


def _token_usage(key: ModelKey, totals: Counter[str]) -> TokenUsage:
    cached, written = totals["cacheReadInputTokens"], totals["cacheWriteInputTokens"]
    prompt = totals["inputTokens"] + cached + written
    return TokenUsage(provider=key[0], model=key[1], input_tokens=prompt, output_tokens=totals["outputTokens"],
                      total_tokens=prompt + totals["outputTokens"], cached_input_tokens=cached or None,
                      cache_write_input_tokens=written or None)
