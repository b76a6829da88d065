"""The AG-UI Dojo's Strands agents and scenarios on strands-agui, against upstream ``ag_ui_strands`` serving the
same agents (README.md beside this file: where each part comes from, and why).

For every scenario and both client generations: upstream reproduces its reference (what the official client
holds after each step, recorded by ``python -m tests.dojo.record``), and ours leaves the client holding the same.
Where ours differs the test is an ``xfail(strict=True)`` naming the difference (docs/migrating.md, "Event-level
differences from upstream (the Dojo suite)"), so closing a gap turns it into an XPASS that fails the suite.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

from tests.oracles import CURRENT, LEGACY, check_ag_ui_validate

from .harness import GENERATIONS, Dojo, Run, dojo, load_reference, model_requests, play_all
from .scenarios import AGENTS, BLUE_SQUARE, BY_NAME, SCENARIOS

UPSTREAM_SPLITS = ("upstream's TOOL_CALL_START names a parentMessageId no TEXT_MESSAGE_START opened (AGUI208): "
                   "its client holds the text and the call as two assistant messages, ours as one (as Strands has it)")
JSON_RESULT = ("tool results: upstream JSON-encodes them compact (a str quoted, unless it holds JSON, which it "
               "re-dumps), ours sends a str as it is and a dict as json.dumps' default")
INTERRUPT = "interrupts: ours adds toolCallId, expiresAt and metadata.name to upstream's id, reason, metadata.reason"
PROGRESS = ("a tool's yielded {\"state\": ...} chunks: upstream sends each as a STATE_SNAPSHOT, ours as the call's "
            "progress (ACTIVITY_SNAPSHOT/DELTA: an activity message) and the last state once, after the result; "
            f"and {JSON_RESULT}")
# (scenario, generation) -> why ours leaves the client holding something else than upstream's stream does
GAPS: dict[tuple[str, str], str] = {
    **{("agentic_chat_background", g): UPSTREAM_SPLITS for g in GENERATIONS},
    **{("backend_tool_rendering", g): JSON_RESULT for g in GENERATIONS},
    **{("shared_state", g): JSON_RESULT for g in GENERATIONS},
    ("interrupt", CURRENT): f"{JSON_RESULT}; {INTERRUPT}",
    ("interrupt", LEGACY): INTERRUPT,
    **{("agentic_generative_ui", g): PROGRESS for g in GENERATIONS},
    **{("a2ui_fixed_schema", g): JSON_RESULT for g in GENERATIONS},
}


@pytest.fixture(scope="module")
def live() -> Iterator[Dojo]:
    with dojo(AGENTS) as parts:
        yield parts


@pytest.fixture(scope="module")
def runs(live: Dojo) -> dict[tuple[str, str, str], Run | BaseException]:
    return play_all(live, SCENARIOS)


def _run(runs: dict[tuple[str, str, str], Run | BaseException], adapter: str, scenario: str,
         generation: str) -> Run:
    run = runs[(adapter, scenario, generation)]
    if not isinstance(run, Run):
        raise run
    return run


def _cases(with_gaps: bool) -> Iterator[Any]:
    for scenario in SCENARIOS:
        for generation in GENERATIONS:
            gap = GAPS.get((scenario.name, generation)) if with_gaps else None
            marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
            yield pytest.param(scenario.name, generation, id=f"{scenario.name}-{generation}", marks=marks)


def _differences(got: list[dict[str, Any]], want: list[dict[str, Any]]) -> str:
    return "\n".join(f"step {i + 1}:\n  ours:     {json.dumps(g, ensure_ascii=False)}\n"
                     f"  upstream: {json.dumps(w, ensure_ascii=False)}"
                     for i, (g, w) in enumerate(zip(got, want, strict=False)) if g != w)


@pytest.mark.slow
@pytest.mark.parametrize(("scenario", "generation"), list(_cases(with_gaps=False)))
def test_upstream_reproduces_its_reference(runs, scenario: str, generation: str) -> None:
    want = load_reference(BY_NAME[scenario])["generations"][generation]["views"]
    run = _run(runs, "upstream", scenario, generation)
    if run.attempt > 1:
        warnings.warn(f"upstream's {scenario} on {generation} answered on the second try (README: upstream's hang)",
                      stacklevel=1)
    assert run.views == want, _differences(run.views, want)


@pytest.mark.slow
@pytest.mark.parametrize(("scenario", "generation"), list(_cases(with_gaps=True)))
def test_ours_leaves_the_client_holding_what_upstream_does(runs, scenario: str, generation: str) -> None:
    want = load_reference(BY_NAME[scenario])["generations"][generation]["views"]
    got = _run(runs, "ours", scenario, generation).views
    assert len(got) == len(want)
    assert got == want, _differences(got, want)


@pytest.mark.slow
@pytest.mark.parametrize(("scenario", "generation"), list(_cases(with_gaps=False)))
def test_ours_streams_pass_both_oracles(runs, scenario: str, generation: str) -> None:
    """Each step's stream passed the official client in --strict mode as it ran (``harness.play``); here
    ag-ui-validate on the same events, AGUI208 included."""
    for events in _run(runs, "ours", scenario, generation).events:
        check_ag_ui_validate(events)


@pytest.mark.slow
def test_the_interrupt_books_the_picked_time(runs) -> None:
    """The Dojo's ``schedule_meeting`` reads ``answer["response"]``: resumed with the picked time, it books it."""
    view = _run(runs, "ours", "interrupt", CURRENT).views[-1]
    results = [m.get("content", "") for m in view["messages"] if m["role"] == "tool"]
    assert any("Meeting scheduled for Sat, Sep 12, 10:00 AM" in r for r in results), results
    paused = _run(runs, "ours", "interrupt", LEGACY).views[0]
    assert paused["outcome"] == "interrupt" and paused["interrupts"], paused


@pytest.mark.slow
def test_the_image_reaches_the_model_on_both(live: Dojo, runs) -> None:
    """The multimodal page's image part arrives at the model as an image (OpenAI's ``image_url`` data URL) from
    each adapter and client generation: one model call per run."""
    assert all(isinstance(runs[(a, "agentic_chat_multimodal", g)], Run) for a in ("ours", "upstream")
               for g in GENERATIONS)
    asked = [r for r in model_requests(live) if f"data:image/png;base64,{BLUE_SQUARE}" in json.dumps(r["body"])]
    assert len(asked) == 2 * len(GENERATIONS)


@pytest.mark.parametrize("agent", AGENTS)
def test_the_agents_are_upstreams_but_for_the_import(agent: str, tmp_path) -> None:
    """What ours serves is upstream's agent module with each ``ag_ui_strands`` import naming ``strands_agui``."""
    from .harness import examples_tree

    ours = (examples_tree(tmp_path / "ours", "ours") / "server" / "api" / f"{agent}.py").read_text().splitlines()
    theirs = (examples_tree(tmp_path / "up", "upstream") / "server" / "api" / f"{agent}.py").read_text().splitlines()
    changed = [(a, b) for a, b in zip(ours, theirs, strict=True) if a != b]
    assert changed and all(b.replace("ag_ui_strands", "strands_agui") == a and "import" in a for a, b in changed)
