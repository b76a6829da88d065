"""Running user hooks between two Strands events. Hooks may be sync or async; a failing hook never ends
the run: it becomes a ``strands_agui.hook_error`` custom event and the run goes on."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any

from ag_ui.core import (
    ActivityDeltaEvent,
    ActivitySnapshotEvent,
    BaseEvent,
    EventType,
    StepFinishedEvent,
    StepStartedEvent,
)

from ..config import maybe_await
from ..core.results import complete_json
from ..core.translator import hook_failed

if TYPE_CHECKING:
    from ..core.translator import HookCall, Translator

# What a custom_result_handler may emit: events that open or close nothing the machine tracks.
ALLOWED_FROM_HANDLERS = frozenset({
    EventType.STATE_SNAPSHOT, EventType.STATE_DELTA, EventType.MESSAGES_SNAPSHOT, EventType.CUSTOM,
    EventType.RAW, EventType.STEP_STARTED, EventType.STEP_FINISHED, EventType.ACTIVITY_SNAPSHOT,
    EventType.ACTIVITY_DELTA,
})


async def run_hook(call: HookCall, translator: Translator,
                   cancelled: Callable[[], bool] = lambda: False) -> AsyncIterator[BaseEvent]:
    """The events one hook call produces, in order; a ``custom_result_handler`` stops at the first of its events
    after ``cancelled()`` says the run was cancelled by id (a halted run plays the rest of its result otherwise:
    a plan that went on ticking after Stop)."""
    runner = _RUNNERS[call.kind]
    try:
        async for event in (runner(call, translator, cancelled) if runner is _result_handler
                            else runner(call, translator)):
            yield event
    except Exception as exc:  # noqa: BLE001 - a user hook's failure is reported, never fatal
        yield hook_failed(call.kind, exc, call.context)


async def _state_hook(call: HookCall, translator: Translator) -> AsyncIterator[BaseEvent]:
    fragment = await maybe_await(call.fn(call.context))
    if fragment is None:
        return
    if not isinstance(fragment, Mapping):
        raise TypeError(f"{call.kind} must return a dict or None, not {type(fragment).__name__}")
    if fragment:
        yield translator.merge_state(fragment)


async def _args_streamer(call: HookCall, translator: Translator) -> AsyncIterator[BaseEvent]:
    """Stream the streamer's chunks while they can still form JSON; if it fails, stops early or yields text that
    cannot, report it and finish with what makes the client's arguments parse: the rest of the real arguments
    when what was shown is their beginning, else the shortest completion of what was shown."""
    tool_use_id, full = call.context.tool_use_id, call.context.args_str
    sent: list[str] = []
    problem: str | None = None
    failed = False
    chunks = call.fn(call.context)
    try:
        async for chunk in chunks:
            text = "" if chunk is None else str(chunk)
            if not text:
                continue
            if complete_json("".join(sent) + text) is None:
                problem = f"args_streamer yielded text that cannot continue JSON arguments: {text[:80]!r}"
                break
            sent.append(text)
            yield translator.streamed_args(tool_use_id, text)
    except Exception as exc:  # noqa: BLE001
        failed = True
        yield hook_failed(call.kind, exc, call.context)
    finally:
        aclose = getattr(chunks, "aclose", None)
        if aclose is not None:
            await aclose()
    shown = "".join(sent)
    if problem is None and shown and complete_json(shown) != "":
        problem = f"args_streamer's arguments end before they form JSON: {shown[-80:]!r}"
    if problem is not None:
        yield hook_failed(call.kind, ValueError(problem), call.context)
    if failed or problem is not None:
        rest = full[len(shown):] if full.startswith(shown) else complete_json(shown)
        if rest:
            yield translator.streamed_args(tool_use_id, rest)


async def _result_handler(call: HookCall, translator: Translator,
                          cancelled: Callable[[], bool]) -> AsyncIterator[BaseEvent]:
    """The handler's events that open or close nothing the machine tracks; its steps and activities must pair:
    a STEP_FINISHED of a step it did not start, or an ACTIVITY_DELTA of an activity it did not start, is refused
    (a ``hook_error``), and the steps it leaves open are finished when it ends, or when the run is cancelled (its
    events are then closed, ``aclose``)."""
    steps, activities = translator.hook_steps, translator.hook_activities
    started: list[str] = []
    failure: Exception | None = None
    events = call.fn(call.context)
    try:
        async for event in events:
            if cancelled():
                break
            if event is None:
                continue
            if not isinstance(event, BaseEvent) or event.type not in ALLOWED_FROM_HANDLERS:
                kind = getattr(event, "type", type(event).__name__)
                raise TypeError(f"custom_result_handler may not emit {kind}")
            if isinstance(event, StepStartedEvent):
                if event.step_name in steps:
                    raise ValueError(f"custom_result_handler started step {event.step_name!r} twice")
                steps.add(event.step_name)
                started.append(event.step_name)
            elif isinstance(event, StepFinishedEvent):
                if event.step_name not in steps:
                    raise ValueError(f"custom_result_handler finished step {event.step_name!r}, which it never "
                                     "started")
                steps.discard(event.step_name)
            elif isinstance(event, ActivityDeltaEvent) and event.message_id not in activities:
                raise ValueError(f"custom_result_handler sent a delta of activity {event.message_id!r}, which it "
                                 "never started")
            elif isinstance(event, ActivitySnapshotEvent):
                activities.add(event.message_id)
            yield translator.track_state(event)  # the shared state follows the handler's state events
    except Exception as exc:  # noqa: BLE001 - reported by run_hook, once its open steps are finished
        failure = exc
    finally:
        aclose = getattr(events, "aclose", None)
        if aclose is not None:
            await aclose()
    for name in started:
        if name in steps:
            steps.discard(name)
            yield StepFinishedEvent(step_name=name)
    if failure is not None:
        raise failure


_RUNNERS: dict[str, Any] = {
    "state_from_args": _state_hook,
    "state_from_result": _state_hook,
    "args_streamer": _args_streamer,
    "custom_result_handler": _result_handler,
}
