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

from ag_ui.core import BaseEvent, RunAgentInput, RunErrorEvent, RunFinishedEvent
from strands import Agent
from strands.multiagent.base import MultiAgentBase

from ..config import CancelContext, StrandsAgentConfig, maybe_await
from ..core.facts import NO_FACTS, RunFacts
from ..core.machine import OnMove
from ..core.opening import RunOpening
from ..core.translator import HookCall, Item, Translator, hook_failed, new_id
from ..errors import RunFailure, RunRefused, adapter_failure, building_failure, strands_failure
from .agents import AgentSource, agent_source
from .approval import with_edited_arguments
from .conversation import conversation
from .hooks import run_hook
from .invocation import invocation_state as resolve_invocation_state
from .invocation import stream_kwargs
from .model_info import model_info, subagent_models
from .pause import ThreadPause
from .runlog import CONFIG_KEY, RecordedRun, Recorder, config_reference, record_stream, replay_events
from .session_provider import provided_session_manager
from .sessions import SessionStore
from .stores import default_store
from .threads import ServerThread, Threads, threads_enabled
from .tool_selection import tool_selection

logger = logging.getLogger(__name__)

DEFAULT_PROMPT = "Hello"
Prompt = list[dict[str, Any]] | None
Source = AsyncIterator[Mapping[str, Any]]
Stop = Callable[[], Any] | None
Opened = tuple[Source, Stop, RunFacts]  # Strands events, how to stop them, run facts
Opener = Callable[[Prompt], Opened | Awaitable[Opened]]
Settle = Callable[[], RunFailure | None | Awaitable[RunFailure | None]]  # after Strands is done, before the end
Pace = Callable[[], Awaitable[Any] | None]  # after each Strands event that emitted nothing: a loop turn to await,
# or None (a server's fairness: ``server.pacing.Pacer`` gives one per time slice)
T = TypeVar("T")
REPLAY_INPUT = {"threadId": "replay-thread", "runId": "replay-run", "messages": []}
UNWIND_LIMIT = 10_000  # events an unwinding run may still yield (a failed Swarm/Graph; a stopped served run)


class StrandsAgent:
    """Serve a Strands agent over AG-UI. ``agent`` is a template ``strands.Agent`` (each run gets its own
    instance carrying its model, tools, system prompt and state), a template ``Swarm`` or ``Graph`` (each run
    gets its own copy, see ``runtime/multiagent.py``) or a factory ``(RunAgentInput) -> Agent | Swarm | Graph``
    (or ``() -> ...``, as upstream ``ag_ui_strands`` accepts).

    ``sessions`` is where paused runs wait for their resume (see ``runtime/sessions.py``); by default a
    :class:`~strands_agui.runtime.sessions.FileSessions` in ``$STRANDS_AGUI_SESSIONS`` or ``~/.strands/sessions``.
    ``threads=True`` keeps each principal's thread on the server too, in the same store (``runtime/threads.py``:
    a request may send only its new messages; the stored history wins); None: ``$STRANDS_AGUI_THREADS``
    (``strands-agui serve --threads``)."""

    def __init__(self, agent: AgentSource, name: str = "strands_agent", description: str = "",
                 config: StrandsAgentConfig | None = None, *, id_factory: Callable[[], str] = new_id,
                 sessions: SessionStore | None = None, threads: bool | None = None) -> None:
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
        self.sessions = sessions
        self.threads = threads

    def thread_store(self) -> Threads | None:
        """Where this adapter keeps server-side threads (None: threads are off)."""
        return Threads(self.sessions or default_store()) if threads_enabled(self.threads) else None

    def opening(self, input_data: RunAgentInput, on_move: OnMove | None = None) -> RunOpening:
        """The opening of one run of ``input_data`` (its first events, then its translator from the facts)."""
        frontend = frozenset(tool.name for tool in input_data.tools or ())
        return RunOpening(input_data, self.config, frontend_tools=frontend, id_factory=self.id_factory,
                          on_move=on_move)

    def translator(self, input_data: RunAgentInput, facts: RunFacts = NO_FACTS) -> Translator:
        """A fresh translator for one run of ``input_data`` whose facts are known (not started)."""
        return self.opening(input_data).translator(facts)

    async def run(self, input_data: RunAgentInput, *, recorder: Recorder | None = None,
                  on_move: OnMove | None = None, request: Any = None,
                  invocation_state: Mapping[str, Any] | None = None,
                  pace: Pace | None = None, cancel: threading.Event | None = None,
                  principal: str | None = None) -> AsyncIterator[BaseEvent]:
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
        pause or thread on the same ``threadId`` is neither seen nor touched."""
        if recorder is not None and (reference := config_reference(self.config)) is not None:
            recorder.annotate(**{CONFIG_KEY: reference})  # what `strands-agui replay` replays it with
        refused, state, tools, provided = await self._prepared(input_data, request, invocation_state, principal)
        threads, store = self.thread_store(), self.sessions or default_store()
        offload = store.blocking or (threads is not None and threads.store.blocking)
        server = ServerThread(threads, input_data, principal)
        try:
            input_data = await in_thread(server.open) if offload else server.open()
        except RunRefused as exc:
            refused = refused or exc
        with ExitStack() as stack:  # holds a paused thread for the whole run
            pause = ThreadPause(store, input_data, stack, principal, provided)

            def opened(prompt: Prompt) -> Opened:
                if refused is not None:
                    raise refused
                return self._open_live(pause, prompt, state, tools, recorder, cancel)

            live: Opener = (lambda prompt: in_thread(opened, prompt)) if offload else opened
            async for event in self._run(input_data, live, on_move, pause.settle, pace, cancel, server, offload):
                yield event

    async def _prepared(self, input_data: RunAgentInput, request: Any, invocation_state: Mapping[str, Any] | None,
                        principal: str | None) -> tuple[RunRefused | None, dict[str, Any], Any, Any]:
        """What the application decides before the run: its invocation_state, its tools, its session manager
        (a refusal becomes the run's RUN_ERROR, after RUN_STARTED)."""
        try:
            state = await resolve_invocation_state(self.config, request, input_data, invocation_state)
            tools = await tool_selection(self.config, request, input_data)
            provided = await provided_session_manager(self.config, input_data, principal)
        except RunRefused as exc:
            return exc, {}, None, None
        return None, state, tools, provided

    def _open_live(self, pause: ThreadPause, prompt: Prompt, state: dict[str, Any], tools: Any,
                   recorder: Recorder | None, cancel: threading.Event | None) -> tuple[Source, Stop, RunFacts]:
        """Build the run's agent (resumed from its pause, if any) and start its Strands stream."""
        agent, strands_prompt = pause.open(self.strands_agent, self.config, prompt, tools)
        if agent is None:
            return _nothing(), None, NO_FACTS
        facts = RunFacts.from_record({"model": model_info(getattr(agent, "model", None)),
                                      "models": subagent_models(agent), "state_keys": sorted(state), **pause.facts()})
        if isinstance(agent, Agent):
            stream = agent.stream_async(strands_prompt, **stream_kwargs(self.config, state, cancel))
        else:  # a Swarm or Graph: its nodes carry their own limits
            stream = agent.stream_async(strands_prompt, invocation_state=state)
        stop = getattr(agent, "cancel", None)  # a Swarm or Graph never halts: its nodes have no frontend tools
        if recorder is None:
            return stream, stop, facts
        recorder.annotate(**facts.record())
        return record_stream(stream, recorder), stop, facts

    async def replay(self, log: RecordedRun, *, input_data: RunAgentInput | None = None,
                     on_move: OnMove | None = None) -> AsyncIterator[BaseEvent]:
        """Yield the AG-UI events a recorded run produces with this adapter's configuration.

        ``input_data`` defaults to the input stored in the log's header."""
        data = input_data or log.input_data or RunAgentInput.model_validate(REPLAY_INPUT)
        facts = RunFacts.from_record(log.metadata)
        async for event in self._run(data, lambda _prompt: (replay_events(log), None, facts), on_move):
            yield event

    async def _run(self, input_data: RunAgentInput, open_stream: Opener, on_move: OnMove | None,
                   settle: Settle | None = None, pace: Pace | None = None,
                   cancel: threading.Event | None = None,
                   server: ServerThread | None = None, offload: bool = False) -> AsyncIterator[BaseEvent]:
        """RUN_STARTED first (before the agent is built), then the run's translator from the facts the opener
        learnt building the agent; an opener that fails ends the run with RUN_ERROR. A server-side thread is
        announced after RUN_STARTED and kept after ``settle`` (in a worker thread when ``offload``: a store on
        the network)."""
        input_data = with_edited_arguments(input_data, self.strands_agent)  # history shows what runs
        opening = self.opening(input_data, on_move)
        for event in opening.start():
            yield event
        if opening.failure is not None:  # its first events could not be built (the id factory failed)
            async for event in _end(opening.translator(NO_FACTS), opening.failure):
                yield event
            return
        for event in server.announce() if server is not None else ():
            yield event
        prompt, notes = self._prompt(input_data)
        for event in notes:
            yield event
        try:
            opened = open_stream(prompt)
            stream, stop, facts = await opened if inspect.isawaitable(opened) else opened
        except RunRefused as exc:
            failure: RunFailure = exc.failure
        except Exception as exc:  # noqa: BLE001 - becomes RUN_ERROR
            failure = building_failure(exc)
        else:
            cancelled = Cancellation(cancel, self.config.on_cancel) if cancel is not None else None
            translator = opening.translator(facts)
            async for event in translate(translator, stream, stop, _settle_and_keep(settle, server, translator,
                                                                                     offload), pace, cancelled):
                yield event
            return
        async for event in _end(opening.translator(NO_FACTS), failure):
            yield event

    def _prompt(self, input_data: RunAgentInput) -> tuple[Prompt, list[BaseEvent]]:
        """The run's new user turn (``None`` when it continues from tool results), its text rewritten by
        ``state_context_builder``; "Hello" when the conversation has no new user turn."""
        turn = conversation(input_data)
        if turn.prompt is None and turn.history and turn.history[-1]["role"] == "user":
            return None, []  # the conversation ends with tool results: Strands continues from them
        blocks = turn.prompt or [{"text": DEFAULT_PROMPT}]
        builder = self.config.state_context_builder
        if builder is None:
            return blocks, []
        try:
            text = str(builder(input_data, turn.prompt_text or DEFAULT_PROMPT))
        except Exception as exc:  # noqa: BLE001 - a failing hook never ends the run
            return blocks, [hook_failed("state_context_builder", exc)]
        return [{"text": text}, *(b for b in blocks if "text" not in b)], []


def _settle_and_keep(settle: Settle | None, server: ServerThread | None, translator: Translator,
                     offload: bool = False) -> Settle | None:
    """The pause bookkeeping, then the server-side thread kept (its failure reported only when the pause's
    is none); in a worker thread when ``offload``."""
    if server is None:
        return settle

    def both() -> RunFailure | None:
        settled = settle() if settle is not None else None
        assert not inspect.isawaitable(settled), "a pause's settle is synchronous"
        return settled or server.keep(translator)

    return (lambda: in_thread(both)) if offload else both


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


async def translate(translator: Translator, source: AsyncIterator[Mapping[str, Any]],
                    stop: Callable[[], Any] | None = None, settle: Settle | None = None,
                    pace: Pace | None = None, cancel: Cancellation | None = None) -> AsyncIterator[BaseEvent]:
    """Drive ``translator`` with ``source`` (live or replayed Strands events) to a terminal event.

    When the machine halts, ``stop`` (the live agent's ``cancel``; none in a replay) asks Strands to end its run
    its own way: no tool of the batch runs, no model is called again, nothing more is translated. ``settle``
    (the pause bookkeeping) runs before the terminal event, so a paused run can be resumed at once on any worker.
    ``pace`` is called after each Strands event that emitted nothing and the loop turn it returns awaited (None:
    no turn due); ``cancel`` is checked after each (once
    requested, the ``cancel`` move halts the run)."""
    failure: RunFailure | None = None
    strands_ended = False  # Strands' generator ran to its end (or raised): nothing of it is left suspended
    async with aclosing(source):  # type: ignore[type-var]
        while failure is None and not translator.halted:
            try:
                event = await anext(source)
            except StopAsyncIteration:
                strands_ended = True
                break
            except Exception as exc:  # noqa: BLE001 - Strands' failure becomes RUN_ERROR
                failure, strands_ended = strands_failure(exc), True
                break
            translator.journal.clear()
            try:
                items = translator.handle(event)
                if cancel is not None and cancel.requested(translator):
                    items = [*items, *translator.cancel()]
            except Exception as exc:  # noqa: BLE001 - our failure, still a well-formed end
                for committed in translator.committed():  # the moves made before it, with their events
                    yield committed
                failure = adapter_failure(exc)
                break
            async for out in perform(translator, items):
                yield out
            if not items and pace is not None and (turn := pace()) is not None:
                await _paced(turn)
        # never closed at a yield from outside: Strands unwinds its own generators (and OpenTelemetry detaches
        # its contexts) when it is cancelled its own way and read to its end, or cancelled at its next await
        if stop is not None and (translator.halted or (failure is not None and not strands_ended)):
            await _halt(stop, source)
        elif failure is not None and not strands_ended:
            await unwind(source)
    async for out in _conclude(translator, failure, settle, cancel):
        yield out


async def _halt(stop: Callable[[], Any], source: AsyncIterator[Mapping[str, Any]]) -> None:
    """Ask Strands to end a halted run its own way, and read it to its end."""
    stop()
    await _drain(source)


async def unwind(source: AsyncIterator[Any], *, close: bool = False) -> None:
    """End a run suspended at a ``yield`` at its next await: resume it with a cancellation pending, so it raises
    ``CancelledError`` there and Strands unwinds its own generators; what it still yields is discarded. With
    ``close``, a run that yields ``UNWIND_LIMIT`` events without ever awaiting is closed outright (the server's
    driver, whose client is gone); without, only the pending cancellation is taken back (a Swarm or Graph after
    our own failure)."""
    task = asyncio.current_task()
    assert task is not None
    task.cancel()
    delivered = False
    try:
        for _ in range(UNWIND_LIMIT):
            await anext(source)
    except asyncio.CancelledError:
        delivered = True
    except StopAsyncIteration:
        pass
    except Exception:  # noqa: BLE001 - the run already failed, or its client is gone: nothing to report to
        logger.debug("a run raised while unwinding", exc_info=True)
    if not delivered:
        try:
            if close:
                await source.aclose()  # type: ignore[attr-defined]
            await asyncio.sleep(0)  # the cancellation is still pending: take it here
        except asyncio.CancelledError:
            pass
    task.uncancel()


async def _paced(turn: Awaitable[Any]) -> None:
    """The server's fairness between two Strands events; a cancellation landing here goes to Strands."""
    try:
        await turn
    except asyncio.CancelledError:
        _cancel_in_strands()


async def _conclude(translator: Translator, failure: RunFailure | None, settle: Settle | None,
                    cancel: Cancellation | None) -> AsyncIterator[BaseEvent]:
    """After Strands is done: ``on_cancel`` for a cancelled run, the pause bookkeeping, the terminal event."""
    if cancel is not None and cancel.flag.is_set() and translator.cancelled:
        async for out in cancel.notify(translator):
            yield out
    if settle is not None:
        try:
            settling = settle()
            settled = await settling if inspect.isawaitable(settling) else settling
        except Exception as exc:  # noqa: BLE001 - the pause or the thread could not be kept
            logger.warning("keeping the run's pause or thread failed", exc_info=True)
            settled = RunFailure("SESSION_ERROR", f"the run's pause or thread could not be kept: "
                                                  f"{type(exc).__name__}: {exc}")
        failure = failure or settled
    async for out in _end(translator, failure):
        yield out


class Cancellation:
    """A run's cancel by id: the flag any thread sets, and the application's ``on_cancel``."""

    def __init__(self, flag: threading.Event, on_cancel: Callable[[CancelContext], Any] | None) -> None:
        self.flag, self.on_cancel = flag, on_cancel

    def requested(self, translator: Translator) -> bool:
        """Whether the ``cancel`` move is due now: requested, and the run is still going (the move halts it, so
        it is made once)."""
        return self.flag.is_set() and not translator.halted

    async def notify(self, translator: Translator) -> AsyncIterator[BaseEvent]:
        """Run ``on_cancel`` (after Strands stopped); its failure is a ``hook_error``, never the end of the run."""
        if self.on_cancel is None:
            return
        messages = [m.model_dump(mode="json", by_alias=True, exclude_none=True) if hasattr(m, "model_dump") else m
                    for m in translator.client.snapshot()]
        context = CancelContext(translator.input, messages, translator.shared_state)
        try:
            await maybe_await(self.on_cancel(context))
        except Exception as exc:  # noqa: BLE001 - a user hook's failure is reported, never fatal
            yield hook_failed("on_cancel", exc)


def _cancel_in_strands() -> None:
    """A cancellation that reached the run between two Strands events (while pacing) is requested again, so
    it lands at Strands' next await and Strands unwinds its own generators (closing ``stream_async`` from
    outside while it is suspended would leave them to the garbage collector)."""
    task = asyncio.current_task()
    assert task is not None
    task.uncancel()
    task.cancel()


async def _nothing() -> AsyncIterator[Mapping[str, Any]]:
    """The Strands events of a run with nothing to do."""
    return
    yield


async def _drain(source: AsyncIterator[Mapping[str, Any]]) -> None:
    """Read a cancelled Strands run to its end; what it says after the halt no longer concerns the client."""
    try:
        async for _ in source:
            pass
    except Exception:  # noqa: BLE001 - the run is already complete for the client
        logger.debug("Strands raised while finishing a halted run", exc_info=True)


async def perform(translator: Translator, items: list[Item]) -> AsyncIterator[BaseEvent]:
    """Emit events and run hooks, in order (a hook never raises: its failure is a ``hook_error``)."""
    for item in items:
        if isinstance(item, HookCall):
            async for event in run_hook(item, translator):
                yield event
        else:
            yield item


async def _end(translator: Translator, failure: RunFailure | None) -> AsyncIterator[BaseEvent]:
    """The terminal events: RUN_FINISHED, or RUN_ERROR. Ending the run never raises: when finishing or failing
    it does (an illegal finish: ``INVALID_TRANSITION``; anything else: ``ADAPTER_ERROR``), the events of the
    moves already made leave, and the run fails again from where it is (:func:`_failed`)."""
    translator.journal.clear()
    try:
        items = translator.fail_run(failure) if failure else translator.finish_run()
    except Exception as exc:  # noqa: BLE001 - still one terminal event
        logger.warning("ending the run failed", exc_info=True)
        items = [*translator.committed(), *_failed(translator, failure or adapter_failure(exc))]
    async for event in perform(translator, items):
        yield event


def _failed(translator: Translator, failure: RunFailure) -> list[Item]:
    """Fail the run after ending it raised: through the handlers again, else with the bare END events of
    ``Translator.abort``, else (the machine itself broken) RUN_ERROR alone."""
    translator.journal.clear()
    try:
        return translator.fail_run(failure)
    except Exception:  # noqa: BLE001 - the last resorts follow
        logger.warning("failing the run failed; closing it with bare END events", exc_info=True)
    out: list[Item] = list(translator.committed())
    translator.journal.clear()
    try:
        out += translator.abort(failure)
    except Exception:  # noqa: BLE001
        logger.exception("closing the run with bare END events failed")
        out += translator.committed()
    if not any(isinstance(item, RunErrorEvent | RunFinishedEvent) for item in out):
        out.append(RunErrorEvent(message=failure.message, code=failure.code))
    return out


__all__ = ["StrandsAgent", "translate"]
