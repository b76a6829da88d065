"""The run loop: a Strands stream through its translator, to exactly one terminal event.

``translate`` is the only async loop of a run (``StrandsAgent._run`` opens the stream and hands it here, a replay
hands a recorded one): it feeds each Strands event to the translator, performs what comes out (user hooks between
two events), halts Strands its own way (``stop``) when the machine halts, and ends the run through ``end_run`` on
every path. ``unwind`` ends a run suspended at a ``yield`` at its next await (the server's driver uses it too).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import aclosing
from typing import Any

from ag_ui.core import BaseEvent, RunErrorEvent, RunFinishedEvent

from ..config import CancelContext, maybe_await
from ..core.translator import HookCall, Item, Translator, hook_failed
from ..errors import RunFailure, adapter_failure, strands_failure
from .hooks import run_hook

logger = logging.getLogger(__name__)

Settle = Callable[[], RunFailure | None | Awaitable[RunFailure | None]]  # after Strands is done, before the end
# (the pause bookkeeping: a paused run can then be resumed at once on any worker)
Pace = Callable[[], Awaitable[Any] | None]  # after each Strands event that emitted nothing: a loop turn to await,
# or None (a server's fairness: ``server.transport.pacing.Pacer`` gives one per time slice)
Flush = Callable[[], list[BaseEvent]]  # after each Strands event that emitted nothing: events due now (the console
# inspector's trace of a move no AG-UI event carries, e.g. ``end_turn`` into ``awaiting_result`` before a tool runs)
UNWIND_LIMIT = 10_000  # events an unwinding run may still yield (a failed Swarm/Graph; a stopped served run)


async def translate(translator: Translator, source: AsyncIterator[Mapping[str, Any]],
                    stop: Callable[[], Any] | None = None, settle: Settle | None = None,
                    pace: Pace | None = None, cancel: Cancellation | None = None,
                    flush: Flush | None = None) -> AsyncIterator[BaseEvent]:
    """Drive ``translator`` with ``source`` (live or replayed Strands events) to a terminal event. A halted run's
    ``stop`` (the live agent's ``cancel``; none in a replay) ends Strands' run its own way; ``settle``, ``pace``,
    ``flush``: their types above; ``cancel``, checked after each Strands event, halts the run once requested."""
    failure: RunFailure | None = None
    strands_ended = False  # Strands' generator ran to its end (or raised): nothing of it is left suspended
    stopped = cancel.requested_at_all if cancel is not None else _never  # what a user hook asks between its events
    async with aclosing(source):  # type: ignore[type-var]
        try:
            while failure is None and not translator.halted:
                try:
                    event = await anext(source)
                except StopAsyncIteration:
                    strands_ended = True
                    break
                except Exception as exc:  # noqa: BLE001 - Strands' failure becomes RUN_ERROR
                    failure, strands_ended = strands_failure(exc), True
                    break
                _before_event(translator, cancel)
                try:
                    items = translator.handle(event)
                    if cancel is not None and cancel.requested(translator):
                        items = [*items, *translator.cancel()]
                except Exception as exc:  # noqa: BLE001 - our failure, still a well-formed end
                    items, failure = list(translator.committed()), adapter_failure(exc)  # the moves made before
                for item in items:  # ``perform`` inline: no async generator per Strands event
                    if isinstance(item, HookCall):
                        try:
                            async for out in run_hook(item, translator, stopped):
                                yield out
                        except asyncio.CancelledError:  # the run is cancelled while a user hook awaits
                            _cancel_in_strands()  # raised again at Strands' next await (anext below)
                            break
                    else:
                        yield item
                if not items and failure is None:
                    if flush is not None:
                        for out in flush():
                            yield out
                    if pace is not None and (turn := pace()) is not None:
                        await _paced(turn)
        except GeneratorExit:  # our consumer closed the run at a yield (the driver cut it short: ENCODING_ERROR)
            await _closed_early(stop, source)
            raise
        await _stopped(translator, source, stop, failure, strands_ended)
    async for out in _conclude(translator, failure, settle, cancel):
        yield out


async def _stopped(translator: Translator, source: AsyncIterator[Mapping[str, Any]], stop: Callable[[], Any] | None,
                   failure: RunFailure | None, strands_ended: bool) -> None:
    """Strands is never closed at a yield from outside: it unwinds its own generators (and OpenTelemetry detaches
    its contexts) when it is cancelled its own way and read to its end (a halted run, or our failure while it
    still runs), or, without ``stop``, cancelled at its next await."""
    if stop is not None and (translator.halted or (failure is not None and not strands_ended)):
        await _halt(stop, source)
    elif failure is not None and not strands_ended:
        await unwind(source)


async def _closed_early(stop: Callable[[], Any] | None, source: AsyncIterator[Mapping[str, Any]]) -> None:
    """The run was closed at one of our yields while Strands is still running (its consumer is done with it):
    Strands ends its own way before its stream is closed, in this task (where its OpenTelemetry contexts were
    attached): halted and read to its end (``stop``), else cancelled at its next await."""
    if stop is not None:
        await _halt(stop, source)
    else:
        await unwind(source)


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
    async for out in end_run(translator, failure):
        yield out


def _before_event(translator: Translator, cancel: Cancellation | None) -> None:
    """Before each Strands event: the journal cleared, and a requested cancel's ``note``."""
    translator.journal.clear()
    if cancel is not None:
        cancel.note(translator)


def _never() -> bool:
    return False


class Cancellation:
    """A run's cancel by id: the flag any thread sets, and the application's ``on_cancel``."""

    def __init__(self, flag: threading.Event, on_cancel: Callable[[CancelContext], Any] | None) -> None:
        self.flag, self.on_cancel = flag, on_cancel

    def requested_at_all(self) -> bool:
        """Whether a cancel was requested, halted or not (a halted run's result handler stops there)."""
        return self.flag.is_set()

    def note(self, translator: Translator) -> None:
        """Before each Strands event: once a cancel is requested, what the client holds then (what its Stop left
        it with: what streamed before the Stop reached the run) is noted, once, for the thread's keep; what
        Strands makes of the cancel afterwards (its ``"Cancelled by user"`` answer) no longer reaches that client."""
        if translator.held_at_stop is None and self.flag.is_set():
            translator.held_at_stop = translator.client.held()

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
    """A cancellation that reached the run between two Strands events (while pacing, or while a user hook such as
    a ``custom_result_handler`` awaits) is requested again, so
    it lands at Strands' next await and Strands unwinds its own generators (closing ``stream_async`` from
    outside while it is suspended would leave them to the garbage collector)."""
    task = asyncio.current_task()
    assert task is not None
    task.uncancel()
    task.cancel()


async def no_events() -> AsyncIterator[Mapping[str, Any]]:
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


async def end_run(translator: Translator, failure: RunFailure | None) -> AsyncIterator[BaseEvent]:
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


__all__ = ["Cancellation", "Flush", "Pace", "Settle", "UNWIND_LIMIT", "end_run", "no_events", "perform", "translate",
           "unwind"]
