"""``handlers/interrupts.py`` alone: what a paused run waits for and what a resume continues, from real
recorded pauses and resumes (``tests/fixtures/hitl``)."""

from __future__ import annotations

from tests.support.recorded import Stepper, only, types


def test_a_tool_interrupt_is_waited_for_with_its_call_and_the_stores_expiry() -> None:
    run = Stepper("hitl/tool_interrupt.pause")
    event = run.until(only("tool_interrupt_event"))
    interrupts = run.translator.interrupts
    assert not interrupts.run_interrupted()
    assert interrupts.on_tool_interrupt(event) == []
    [waiting] = interrupts.pending()
    assert waiting.id == event["tool_interrupt_event"]["interrupts"][0]["id"]
    assert waiting.tool_call_id == run.translator.tools.calls["tool-budget"].wire_id
    assert waiting.expires_at == run.log.metadata["expires_at"]  # a run fact, recorded with the pause
    assert waiting.response_schema == {"type": "object", "properties": {"amount": {"type": "integer", "minimum": 1}},
                                       "required": ["amount"]}
    assert interrupts.run_interrupted()


def test_the_paused_run_finishes_with_the_interrupt_outcome() -> None:
    run = Stepper("hitl/tool_interrupt.pause")
    run.rest()
    finished = run.translator.finish_run()[-1]
    assert run.translator.state == "paused" and finished.outcome.type == "interrupt"
    assert [i.id for i in finished.outcome.interrupts] == list(run.translator.interrupts.waiting)


def test_a_resume_starts_awaiting_the_parked_calls_which_the_client_already_holds() -> None:
    run = Stepper("hitl/tool_interrupt.resume")
    assert types(run.started) == ["RUN_STARTED", "STATE_SNAPSHOT", "MESSAGES_SNAPSHOT"]
    assert run.translator.state == "awaiting_result"
    parked = run.translator.tools.calls["tool-budget"]
    assert parked.answered and parked.name == "ask_budget"  # adopted, never announced again
    results = run.until(only("message"))
    assert types(run.translator.handle(results)) == ["TOOL_CALL_RESULT", "MESSAGES_SNAPSHOT"]
