"""What the runtime knows about a run before its first Strands event, handed to the translator once.

A :class:`RunFacts` is frozen and passed to the :class:`~strands_agui.core.translator.Translator`'s constructor
(and, narrowed, to each subagent's translator): nothing writes a fact into a translator afterwards. The runtime
builds the facts when it builds the run's agent (``runtime/adapter.py``); a recording keeps them in its metadata
(:meth:`RunFacts.record`) and a replay reads them back (:meth:`RunFacts.from_record`), so a replayed pause or
resume is the live one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

_NONE: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True)
class RunFacts:
    """The facts of one (sub)run.

    * ``model``: ``{"model": id, "provider": name}`` of its model, when known (usage is reported under it);
    * ``models``: subagent name (node id, tool name) -> its model, when known;
    * ``state_keys``: the ``invocation_state`` keys the run passed Strands (never shown in a RAW event);
    * ``resumed_nodes``: Swarm/Graph node id -> its parked tool use ids, for the nodes a resume continues;
    * ``expires_at``: when a pause of this run stops being answerable (ISO 8601), from the session store;
    * ``parked``: the tool use ids of the parked calls this (sub)run continues (a resume: their results come
      first, on the cards the client holds); None when it continues none;
    * ``confirmers``: the names of the run's agent's intervention handlers (``Agent(interventions=...)``): an
      interrupt named after one is a ``Confirm``, answered with our approval contract (``interrupt_map``);
    * ``task_cards``: background task id -> ``{"messageId", "toolCallId"}`` of the card an earlier run of the
      thread showed it on, for the tasks that outlived their run (``runtime/building/background_watch.py``): the client
      does not send activity messages back, so this is how the next run updates that card.
    """

    model: Mapping[str, Any] = field(default_factory=lambda: _NONE)
    models: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: _NONE)
    state_keys: frozenset[str] = frozenset()
    resumed_nodes: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: _NONE)
    expires_at: str | None = None
    parked: frozenset[str] | None = None
    confirmers: frozenset[str] = frozenset()
    task_cards: Mapping[str, Mapping[str, str]] = field(default_factory=lambda: _NONE)

    @property
    def resumes(self) -> bool:
        """True when the (sub)run continues a parked tool batch."""
        return self.parked is not None

    @classmethod
    def from_record(cls, data: Mapping[str, Any]) -> RunFacts:
        """The facts from their recorded (JSON) form: a log's metadata, or what the runtime gathered."""
        nodes = data.get("resumed_nodes") or {}
        return cls(model=MappingProxyType(dict(data.get("model") or {})),
                   models=MappingProxyType(dict(data.get("models") or {})),
                   state_keys=frozenset(data.get("state_keys") or ()),
                   resumed_nodes=MappingProxyType({str(k): tuple(v) for k, v in nodes.items()}),
                   expires_at=data.get("expires_at"), confirmers=frozenset(data.get("confirmers") or ()),
                   task_cards=MappingProxyType({str(k): MappingProxyType(dict(v))
                                                for k, v in (data.get("task_cards") or {}).items()}))

    def record(self) -> dict[str, Any]:
        """The recorded form (a log's metadata): model, models and state keys always, the others when set."""
        out: dict[str, Any] = {"model": dict(self.model), "models": {k: dict(v) for k, v in self.models.items()},
                               "state_keys": sorted(self.state_keys)}
        if self.resumed_nodes:
            out["resumed_nodes"] = {k: list(v) for k, v in self.resumed_nodes.items()}
        if self.expires_at is not None:
            out["expires_at"] = self.expires_at
        if self.confirmers:
            out["confirmers"] = sorted(self.confirmers)
        if self.task_cards:
            out["task_cards"] = {k: dict(v) for k, v in self.task_cards.items()}
        return out

    def of_run(self, parked: frozenset[str] | None) -> RunFacts:
        """These facts for the run itself: ``parked``, the calls a resume continues (its plan's), or None."""
        return self if parked is None else replace(self, parked=parked)

    def of_subagent(self, name: str, parked: Iterable[str] | None = None) -> RunFacts:
        """The facts of a subagent invocation named ``name`` (its model; ``parked``: a resumed node's calls)."""
        return RunFacts(model=self.models.get(name) or _NONE, models=self.models,
                        parked=frozenset(parked) if parked is not None else None)


NO_FACTS = RunFacts()
"""The facts of a run the runtime learnt nothing about (a run that failed before its agent was built)."""
