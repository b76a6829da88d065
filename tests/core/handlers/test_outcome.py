"""``handlers/outcome.py`` alone: what the terminal event carries, from what real recorded runs reported."""

from __future__ import annotations

from strands_agui.errors import RunFailure
from tests.support.recorded import Stepper, chunk, only, types


def test_usage_counts_cache_reads_and_writes_in_the_input_under_the_runs_model() -> None:
    run = Stepper("usage_cache")
    metadata = run.until(chunk("metadata"))["event"]["metadata"]
    assert run.translator.outcome.on_metadata(metadata) == []
    [usage] = run.translator.outcome.usage() or []
    assert (usage.provider, usage.model) == ("scriptedmodel", "scripted")  # the run facts' model
    assert usage.input_tokens == 10 + 7 + 3 and usage.cached_input_tokens == 7
    assert usage.cache_write_input_tokens == 3 and usage.total_tokens == 20 + 10


def test_the_stop_reason_and_structured_output_go_on_run_finished() -> None:
    run = Stepper("structured_output")
    output = run.until(only("structured_output"))
    assert run.translator.outcome.on_structured_output(output) == []
    run.rest()
    finished = run.translator.finish_run()[-1]
    assert finished.result == {"city": "Paris", "temperature": 21}
    assert finished.metadata == {"stopReason": "tool_use"}
    assert finished.outcome.type == "success"


def test_a_cancelled_stop_reason_is_the_cancel_move_and_its_halt_reason_the_outcome() -> None:
    """Strands saying it was cancelled (``agent.cancel()``) is the table's ``cancel`` move: the outcome reads the
    halt reason the row carries, not the stop reason's string."""
    run = Stepper("cancelled")
    result = run.until(only("result"))
    run.translator.outcome.on_result(result)
    assert (run.translator.state, run.translator.halt) == ("halted", "cancelled")
    assert run.translator.finish_run()[-1].outcome.type == "cancelled"


def test_a_failure_closes_what_is_open_and_keeps_the_usage() -> None:
    run = Stepper("model_error_after_tool")
    run.rest()
    out = run.translator.fail_run(RunFailure("STRANDS_ERROR", "RuntimeError: model died"))
    assert types(out)[-1] == "RUN_ERROR" and out[-1].code == "STRANDS_ERROR"
    assert out[-1].usage and out[-1].usage[0].output_tokens > 0
    assert run.translator.state == "errored"
