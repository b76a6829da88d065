"""Running user hooks between two Strands events. Hooks may be sync or async; a failing hook never ends
the run: it becomes a ``strands_agui.hook_error`` custom event and the run goes on."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from ag_ui.core import BaseEvent, EventType

from ..config import maybe_await

if TYPE_CHECKING:
    from ..core.translator import HookCall, Translator

# What a custom_result_handler may emit: events that open or close nothing the machine tracks.
ALLOWED_FROM_HANDLERS = frozenset({
    EventType.STATE_SNAPSHOT, EventType.STATE_DELTA, EventType.MESSAGES_SNAPSHOT, EventType.CUSTOM,
    EventType.RAW, EventType.STEP_STARTED, EventType.STEP_FINISHED, EventType.ACTIVITY_SNAPSHOT,
    EventType.ACTIVITY_DELTA,
})


async def run_hook(call: HookCall, translator: Translator) -> AsyncIterator[BaseEvent]:
    """The events one hook call produces, in order."""
    runner = _RUNNERS[call.kind]
    try:
        async for event in runner(call, translator):
            yield event
    except Exception as exc:  # noqa: BLE001 - a user hook's failure is reported, never fatal
        yield translator.hook_failed(call.kind, exc, call.context)


async def _state_hook(call: HookCall, translator: Translator) -> AsyncIterator[BaseEvent]:
    fragment = await maybe_await(call.fn(call.context))
    if fragment is None:
        return
    if not isinstance(fragment, Mapping):
        raise TypeError(f"{call.kind} must return a dict or None, not {type(fragment).__name__}")
    if fragment:
        yield translator.merge_state(fragment)


async def _args_streamer(call: HookCall, translator: Translator) -> AsyncIterator[BaseEvent]:
    """Stream the streamer's chunks; if it fails, finish with what the client is missing of the real args."""
    tool_use_id, full = call.context.tool_use_id, call.context.args_str
    sent: list[str] = []
    try:
        async for chunk in call.fn(call.context):
            if chunk is not None and str(chunk):
                sent.append(str(chunk))
                yield translator.streamed_args(tool_use_id, sent[-1])
    except Exception as exc:  # noqa: BLE001
        yield translator.hook_failed(call.kind, exc, call.context)
        shown = "".join(sent)
        if full.startswith(shown) and full != shown:
            yield translator.streamed_args(tool_use_id, full[len(shown):])


async def _result_handler(call: HookCall, translator: Translator) -> AsyncIterator[BaseEvent]:
    async for event in call.fn(call.context):
        if event is None:
            continue
        if not isinstance(event, BaseEvent) or event.type not in ALLOWED_FROM_HANDLERS:
            kind = getattr(event, "type", type(event).__name__)
            raise TypeError(f"custom_result_handler may not emit {kind}")
        yield translator.track_state(event)  # the shared state follows the handler's state events


_RUNNERS: dict[str, Any] = {
    "state_from_args": _state_hook,
    "state_from_result": _state_hook,
    "args_streamer": _args_streamer,
    "custom_result_handler": _result_handler,
}
