"""``StrandsAgent``: the long-lived adapter (configuration only) and the async stream loop of one run.

The loop is the only async part of a run: it reads one Strands event, hands it to the run's
:class:`~strands_agui.core.translator.Translator`, performs the items the handler returned (events and user hooks)
and reads the next event only when they are done. When the machine says ``halted`` it asks Strands to cancel
its run and reads it to its natural end without translating it; whatever ends the run, the Strands generator
is closed (``aclosing``).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import ExitStack, aclosing
from typing import Any, TypeVar

from ag_ui.core import BaseEvent, RunAgentInput
from strands import Agent
from strands.multiagent.base import MultiAgentBase

from ..config import StrandsAgentConfig
from ..core.facts import NO_FACTS, RunFacts
from ..core.machine import OnMove
from ..core.opening import RunOpening
from ..core.plan import RunPlan
from ..core.translator import Translator, new_id
from ..errors import RunFailure, RunRefused, building_failure
from . import planning
from .building.background_watch import BackgroundWatch, note_card
from .building.model_info import model_info, subagent_models
from .building.ran_inputs import RanInputs
from .building.run_agent import AgentSource, agent_source
from .invocation import stream_kwargs
from .loop import Cancellation, Flush, Pace, Settle, end_run, no_events, translate
from .pause import ThreadPause
from .recordings import CONFIG_KEY, RecordedRun, Recorder, config_reference, record_stream, replay_events
from .server_thread import ServerThread
from .storage.default import default_store
from .storage.sessions import SessionStore, session_id
from .storage.threads import Threads

logger = logging.getLogger(__name__)

Source = AsyncIterator[Mapping[str, Any]]
Stop = Callable[[], Any] | None
Opened = tuple[Source, Stop, RunFacts]  # Strands events, how to stop them, run facts
Opener = Callable[[], Opened | Awaitable[Opened]]
T = TypeVar("T")
REPLAY_INPUT = {"threadId": "replay-thread", "runId": "replay-run", "messages": []}


class StrandsAgent:
    """Serve a Strands agent over AG-UI. ``agent`` is a template ``strands.Agent`` (each run gets its own
    instance carrying its model, tools, system prompt and state), a template ``Swarm`` or ``Graph`` (each run
    gets its own copy, see ``runtime/building/multiagent.py``) or a factory ``(RunAgentInput) -> Agent | Swarm | Graph``
    (or ``() -> ...``, as upstream ``ag_ui_strands`` accepts).

    ``sessions`` is where paused runs wait for their resume (see ``runtime/storage/sessions.py``); by default the store
    ``strands-agui serve --sessions`` names (``runtime/storage/default.default_store``, read when the adapter is built),
    else a :class:`~strands_agui.runtime.storage.sessions.FileSessions` in ``~/.strands/sessions``.
    ``threads=True`` keeps each principal's thread on the server too, in the same store (``runtime/storage/threads.py``:
    a request may send only its new messages; the stored history wins); a served app also turns them on for
    ``strands-agui serve --threads`` (``environment.py``)."""

    def __init__(self, agent: AgentSource, name: str = "strands_agent", description: str = "",
                 config: StrandsAgentConfig | None = None, *, id_factory: Callable[[], str] = new_id,
                 sessions: SessionStore | None = None, threads: bool = False) -> None:
        if not isinstance(agent, Agent | MultiAgentBase) and not callable(agent):
            raise TypeError("StrandsAgent agent must be a strands Agent, Swarm or Graph, or a factory "
                            f"(RunAgentInput) -> one of them, not {type(agent).__name__}")
        if config is not None and not isinstance(config, StrandsAgentConfig):
            raise TypeError(f"StrandsAgent config must be a StrandsAgentConfig or None, not {type(config).__name__}")
        if not callable(id_factory):
            raise TypeError(f"StrandsAgent id_factory must be a callable () -> str, not {type(id_factory).__name__}")
        self.strands_agent = agent_source(agent)
        self.name = name
        self.description = description
        self.config = config or StrandsAgentConfig()
        self.id_factory = id_factory
        if not isinstance(threads, bool):
            raise TypeError(f"StrandsAgent threads must be True or False, not {threads!r}")
        self.sessions: SessionStore = default_store() if sessions is None else sessions
        self.threads = threads

    def thread_store(self) -> Threads | None:
        """Where this adapter keeps server-side threads (None: threads are off)."""
        return Threads(self.sessions) if self.threads else None

    def plan(self, input_data: RunAgentInput) -> RunPlan:
        """The plan of a run of ``input_data`` without the application's providers or a thread (a replay's)."""
        return planning.plan(self.config, self.strands_agent, input_data)

    def opening(self, run: RunAgentInput | RunPlan, on_move: OnMove | None = None) -> RunOpening:
        """The opening of one run (its first events, then its translator from the facts), from its plan."""
        return RunOpening(run if isinstance(run, RunPlan) else self.plan(run), self.config,
                          id_factory=self.id_factory, on_move=on_move)

    def translator(self, input_data: RunAgentInput, facts: RunFacts = NO_FACTS) -> Translator:
        """A fresh translator for one run of ``input_data`` whose facts are known (not started)."""
        return self.opening(input_data).translator(facts)

    async def run(self, input_data: RunAgentInput, *, recorder: Recorder | None = None,
                  on_move: OnMove | None = None, request: Any = None,
                  invocation_state: Mapping[str, Any] | None = None,
                  pace: Pace | None = None, cancel: threading.Event | None = None,
                  principal: str | None = None, flush: Flush | None = None) -> AsyncIterator[BaseEvent]:
        """Run the agent for one AG-UI request and yield its AG-UI events (RUN_STARTED first, one terminal last).

        ``recorder`` writes the Strands events this run consumed as a replayable log; ``on_move`` sees every
        move of the run's machine and of its subagents' (``core.machine.Move``); ``invocation_state`` (trusted,
        request-scoped values for hooks and tools, e.g. from the endpoint's ``invocation_state_provider``; else
        the configured ``StrandsAgentConfig.invocation_state_provider`` called with ``request``) is copied into
        ``stream_async(..., invocation_state=)`` with the run input added (see ``runtime/invocation.py``). Once
        ``cancel`` is set (a cancel by id, from any thread) the run stops: a Strands agent at its next
        cancellation-safe point (its ``cancel_signal``), any source at its next event (the ``cancel`` move);
        it finishes with outcome ``cancelled`` after ``config.on_cancel``. ``principal`` is whose thread this is
        (None: the anonymous principal; the endpoint passes the one its ``auth`` named): another principal's
        pause or thread on the same ``threadId`` is neither seen nor touched. ``flush`` (the console inspector's)
        gives events to send at once after a Strands event that emitted none (``loop.translate``). The request
        is prepared once, into the run's plan (``runtime/planning.py``), which everything below reads."""
        if recorder is not None and (reference := config_reference(self.config)) is not None:
            recorder.annotate(**{CONFIG_KEY: reference})  # what `strands-agui replay` replays it with
        threads, store = self.thread_store(), self.sessions
        offload = store.blocking or (threads is not None and threads.store.blocking)
        with ExitStack() as stack:  # holds a server-side thread, and a paused thread, for the whole run
            server = ServerThread(threads, input_data, principal, stack)
            planned = await planning.prepare(
                self.config, self.strands_agent, input_data, request=request, invocation_state=invocation_state,
                principal=principal, thread=server if threads is not None else None,
                offload=in_thread if offload else None)
            pause = ThreadPause(store, planned, stack, principal)
            if threads is not None:
                pause.on_agent = server.window

            cards: dict[str, dict[str, str]] = {}  # the run's task cards (runtime/building/background_watch.py)

            def opened() -> Opened:
                if planned.refused is not None:
                    raise planned.refused
                return self._open_live(pause, planned, recorder, cancel, cards)

            live: Opener = (lambda: in_thread(opened)) if offload else opened
            settle = _settle_and_keep(pause.settle, server if threads is not None else None, offload)
            try:
                async with aclosing(self._run(planned, live, on_move, settle, pace, cancel, flush)) as events:  # type: ignore[type-var]
                    async for event in events:  # closed here, in this task: the close reaches ``translate``
                        note_card(cards, event)
                        yield event
            except (asyncio.CancelledError, GeneratorExit):  # its client left (or it was closed) before its end
                await (in_thread(server.keep_left) if offload else _now(server.keep_left))
                raise

    def _open_live(self, pause: ThreadPause, planned: RunPlan, recorder: Recorder | None,
                   cancel: threading.Event | None,
                   cards: dict[str, dict[str, str]] | None = None) -> tuple[Source, Stop, RunFacts]:
        """Build the run's agent (resumed from its pause, if any) and start its Strands stream."""
        agent, strands_prompt = pause.open(self.strands_agent, self.config)
        if agent is None:
            return no_events(), None, NO_FACTS
        state = dict(planned.invocation_state)
        known: dict[str, Any] = {"model": model_info(getattr(agent, "model", None)),
                                 "models": subagent_models(agent), "state_keys": sorted(state), **pause.facts()}
        stream: Source
        if isinstance(agent, Agent):
            ran = RanInputs()  # the inputs a hook or a Transform changed (runtime/building/ran_inputs.py)
            ran.install(agent)
            stream = ran.annotate(agent.stream_async(strands_prompt, **stream_kwargs(self.config, state, cancel)))
            if agent._background_tasks is not None:  # its tasks as activity (runtime/building/background_watch.py)
                run = planned.input  # a task outliving the run waits for the thread's next run (same principal)
                watch = BackgroundWatch(agent, session_id(run.thread_id, pause.principal), run.run_id,
                                        pause.principal, cards)
                known["task_cards"] = watch.task_cards()
                watch.install()
                stream = watch.annotate(stream)
        else:  # a Swarm or Graph: its nodes carry their own limits
            stream = agent.stream_async(strands_prompt, invocation_state=state)
        facts = RunFacts.from_record(known)
        stop = getattr(agent, "cancel", None)  # a Swarm or Graph never halts: its nodes have no frontend tools
        if recorder is None:
            return stream, stop, facts
        recorder.annotate(**facts.record())
        return record_stream(stream, recorder), stop, facts

    async def replay(self, log: RecordedRun, *, input_data: RunAgentInput | None = None,
                     on_move: OnMove | None = None, recorder: Recorder | None = None) -> AsyncIterator[BaseEvent]:
        """Yield the AG-UI events a recorded run produces with this adapter's configuration.

        ``input_data`` defaults to the input stored in the log's header; ``recorder`` writes the replayed events
        again (the console's inspector of a log it opened)."""
        data = input_data or log.input_data or RunAgentInput.model_validate(REPLAY_INPUT)
        facts = RunFacts.from_record(log.metadata)
        if recorder is not None:
            recorder.annotate(**facts.record())

        def opened() -> Opened:
            events = replay_events(log)
            return (events if recorder is None else record_stream(events, recorder)), None, facts

        async with aclosing(self._run(self.plan(data), opened, on_move)) as events:  # type: ignore[type-var]
            async for event in events:
                yield event

    async def _run(self, planned: RunPlan, open_stream: Opener, on_move: OnMove | None,
                   settle: Callable[[Translator], Settle | None] | None = None, pace: Pace | None = None,
                   cancel: threading.Event | None = None, flush: Flush | None = None) -> AsyncIterator[BaseEvent]:
        """RUN_STARTED first (before the agent is built), then the thread's snapshots and the plan's notes, then
        the run's translator from the facts the opener learnt building the agent; an opener that fails ends the
        run with RUN_ERROR. ``settle`` gives the translator's pause and thread bookkeeping."""
        opening = self.opening(planned, on_move)
        for event in opening.start():
            yield event
        if opening.failure is not None:  # its first events could not be built (the id factory failed)
            async for event in end_run(opening.translator(NO_FACTS), opening.failure):
                yield event
            return
        for event in (*planned.thread, *planned.notes):
            yield event
        try:
            opened = open_stream()
            stream, stop, facts = await opened if inspect.isawaitable(opened) else opened
        except RunRefused as exc:
            failure: RunFailure = exc.failure
        except Exception as exc:  # noqa: BLE001 - becomes RUN_ERROR
            failure = building_failure(exc)
        else:
            cancelled = Cancellation(cancel, self.config.on_cancel) if cancel is not None else None
            translator = opening.translator(facts)
            settled = settle(translator) if settle is not None else None
            async with aclosing(translate(translator, stream, stop, settled, pace, cancelled, flush)) as events:  # type: ignore[type-var]
                async for event in events:  # a close at a yield reaches ``translate``, which stops Strands first
                    yield event
            return
        async for event in end_run(opening.translator(NO_FACTS), failure):
            yield event


def _settle_and_keep(settle: Settle, server: ServerThread | None,
                     offload: bool = False) -> Callable[[Translator], Settle]:
    """For a run's translator: the pause bookkeeping, then the server-side thread kept (its failure reported only
    when the pause's is none); in a worker thread when ``offload``."""

    def for_run(translator: Translator) -> Settle:
        if server is not None:
            server.ran = translator  # kept even when the run never settles (``ServerThread.keep_left``)
        def both() -> RunFailure | None:
            settled = settle()
            assert not inspect.isawaitable(settled), "a pause's settle is synchronous"
            return settled or (server.keep(translator) if server is not None else None)

        if server is None and not offload:
            return settle
        return (lambda: in_thread(both)) if offload else both

    return for_run


async def _now(call: Callable[[], T]) -> T:
    return call()


async def in_thread(call: Callable[..., T], *args: Any) -> T:
    """``call(*args)`` in a worker thread (a store on the network), to its end even when the run is cancelled
    meanwhile (its client left): what it took (a lease entered into the run's stack, a pause parked) is then
    released or kept by the run's own unwinding, never by a thread still running behind it."""
    done = asyncio.ensure_future(asyncio.to_thread(call, *args))
    try:
        return await asyncio.shield(done)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            await done
        raise


__all__ = ["StrandsAgent", "in_thread"]
