"""The delta fast path (``server/transport/streaming.delta_json``) writes, byte for byte, the frame ``ag_ui``'s own
``EventEncoder`` writes for the same event, for any text (unicode, control characters, quotes, U+2028), with
and without a ``subagentRunId``; an event with anything more takes the model's own path, and a value neither
path can serialize fails the same way on both."""

from __future__ import annotations

import pytest
from ag_ui.core import ReasoningMessageContentEvent, TextMessageContentEvent, ToolCallArgsEvent
from ag_ui.encoder import EventEncoder
from hypothesis import given
from hypothesis import strategies as st

from strands_agui.server.transport.streaming import delta_json, encode_event, sse_frame

texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)  # any text a model can stream
events = st.one_of(  # built as the handlers build them (st.builds would also fill in the camelCase aliases)
    st.builds(lambda i, d: TextMessageContentEvent(message_id=i, delta=d), texts, texts),
    st.builds(lambda i, d: ReasoningMessageContentEvent(message_id=i, delta=d), texts, texts),
    st.builds(lambda i, d: ToolCallArgsEvent(tool_call_id=i, delta=d), texts, texts),
)


def model_frame(event: object) -> bytes:
    return EventEncoder().encode(event).encode()  # type: ignore[arg-type]


@given(events, st.none() | texts)
def test_a_bare_delta_is_framed_as_the_encoder_frames_it(event: TextMessageContentEvent, subagent: str | None) -> None:
    if subagent is not None:
        event = event.model_copy(update={"subagent_run_id": subagent})
    assert delta_json(event) is not None  # the fast path was taken
    assert sse_frame(event) == model_frame(event)
    assert encode_event(event) == event.model_dump_json(by_alias=True, exclude_none=True)


@pytest.mark.parametrize("extra", [{"timestamp": 1}, {"raw_event": {"a": 1}}, {"metadata": {"k": "v"}}, {"note": "x"}])
def test_a_delta_with_anything_more_takes_the_models_own_path(extra: dict[str, object]) -> None:
    event = TextMessageContentEvent(message_id="m", delta="d", **extra)  # type: ignore[arg-type]
    assert delta_json(event) is None
    assert sse_frame(event) == model_frame(event)


def test_a_value_neither_path_can_serialize_fails_on_both() -> None:
    event = TextMessageContentEvent(message_id="m", delta="\ud800")  # a lone surrogate
    with pytest.raises(Exception) as fast:
        sse_frame(event)
    with pytest.raises(Exception) as slow:
        model_frame(event)
    assert type(fast.value) is type(slow.value)
