"""``handlers/text.py`` alone: text and reasoning envelopes, handed the raw chunks real recorded runs produced."""

from __future__ import annotations

import base64

from tests.support.recorded import Stepper, chunk, delta, types


def test_the_first_text_delta_opens_the_message_and_the_next_only_add_to_it() -> None:
    run = Stepper("plain_text")
    first = run.until(delta("text"))["event"]["contentBlockDelta"]["delta"]["text"]
    opened = run.translator.text.on_text_delta(first)
    assert types(opened) == ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"]
    assert run.translator.state == "streaming_text" and opened[1].delta == first
    second = run.until(delta("text"))["event"]["contentBlockDelta"]["delta"]["text"]
    assert types(run.translator.text.on_text_delta(second)) == ["TEXT_MESSAGE_CONTENT"]
    assert run.translator.client.text_of(opened[0].message_id) == first + second


def test_an_empty_text_delta_moves_nothing() -> None:
    run = Stepper("plain_text")
    run.until(delta("text"))
    before = len(run.moves)
    assert run.translator.text.on_text_delta("") == []
    assert run.translator.state == "ready" and len(run.moves) == before


def test_a_citation_goes_on_its_text_message_end_and_on_the_message() -> None:
    run = Stepper("citations")
    citation = run.until(delta("citation"))["event"]["contentBlockDelta"]["delta"]["citation"]
    assert run.translator.text.on_citation(citation) == []
    run.until(chunk("contentBlockStop"))
    message_id = run.translator.open_id
    end = run.translator.close_open("contentBlockStop")
    assert types(end) == ["TEXT_MESSAGE_END"]
    assert end[0].metadata == {"citations": [citation]}
    held = next(m for m in run.translator.client.snapshot() if isinstance(m, dict) and m["id"] == message_id)
    assert held["metadata"] == {"citations": [citation]}
    assert run.translator.turn.needs_snapshot  # the turn's end sends the snapshot carrying them


def test_reasoning_opens_its_envelope_and_its_signature_closes_it_encrypted() -> None:
    run = Stepper("reasoning")
    content = run.until(delta("reasoningContent"))["event"]["contentBlockDelta"]["delta"]["reasoningContent"]
    assert types(run.translator.text.on_reasoning_content(content)) == [
        "REASONING_START", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT"]
    assert run.translator.state == "reasoning"
    signed = run.until(lambda e: delta("reasoningContent")(e)
                       and "signature" in e["event"]["contentBlockDelta"]["delta"]["reasoningContent"])
    signature = signed["event"]["contentBlockDelta"]["delta"]["reasoningContent"]
    assert run.translator.text.on_reasoning_content(signature) == []
    closed = run.translator.close_open("contentBlockStop")
    assert types(closed) == ["REASONING_MESSAGE_END", "REASONING_ENCRYPTED_VALUE", "REASONING_END"]
    assert closed[1].encrypted_value == signature["signature"]


def test_redacted_reasoning_is_sent_as_its_base64_when_the_block_closes() -> None:
    run = Stepper("redacted_reasoning")
    content = run.until(delta("reasoningContent"))["event"]["contentBlockDelta"]["delta"]["reasoningContent"]
    assert types(run.translator.text.on_reasoning_content(content)) == ["REASONING_START", "REASONING_MESSAGE_START"]
    closed = run.translator.close_open("contentBlockStop")
    assert closed[1].encrypted_value == content["redactedContent"]["data"]
    assert base64.b64decode(closed[1].encrypted_value)  # the provider's opaque bytes, unchanged
