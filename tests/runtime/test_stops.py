"""Issue 29 item 5: every stop reason of Strands 1.62 has a documented outcome the client receives.

Budget stops, the content filter, a guardrail and a stop sequence end the run normally (RUN_FINISHED, outcome
``success``) with ``metadata.stop`` naming why the answer was cut; only a stop Strands raises on (``max_tokens``)
is RUN_ERROR. Each case is a recorded real run (``tests/support/scenarios.py``), checked by what the official client
1.0 and 0.0.59 hold."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest
from strands.types.event_loop import StopReason

from strands_agui.core import stops
from strands_agui.tooling.testing import dump_events
from tests.oracles import LEGACY, assert_valid_streams, check_official_client_many
from tests.support.generations import legacy_event
from tests.support.paths import TESTS
from tests.support.replays import replayed

ROOT = TESTS
NOTED = {
    "limit_turns": {"kind": "limit", "limit": "turns", "cap": 1,
                    "note": "Stopped: the run reached its turn limit (1)."},
    "limit_output_tokens": {"kind": "limit", "limit": "output_tokens", "cap": 10,
                            "note": "Stopped: the run reached its output-token budget (10)."},
    "limit_total_tokens": {"kind": "limit", "limit": "total_tokens", "cap": 15,
                           "note": "Stopped: the run reached its total-token budget (15)."},
    "content_filtered": {"kind": "filtered", "note": "The model provider's content filter stopped this answer."},
    "guardrail_intervened": {"kind": "guardrail", "note": "A guardrail intervened in this answer."},
    "stop_sequence": {"kind": "stop_sequence", "note": "The answer ended at a stop sequence."},
}
NAMES = list(NOTED)


def test_every_strands_stop_reason_has_a_documented_outcome() -> None:
    reasons = set(typing.get_args(StopReason))
    assert reasons == set(stops.NOTED) | stops.PLAIN | stops.OUTCOMES | stops.FAILED
    events_doc = (ROOT.parent / "docs" / "events.md").read_text()
    for reason in reasons:
        assert f"`{reason}`" in events_doc, reason


@pytest.fixture(scope="module")
def clients() -> dict[str, tuple[dict, dict]]:
    streams = [dump_events(replayed(name)) for name in NAMES]
    current = assert_valid_streams(streams)
    legacy = check_official_client_many([[legacy_event(e) for e in replayed(name)] for name in NAMES], client=LEGACY)
    return {name: (new, old) for name, new, old in zip(NAMES, current, legacy, strict=True)}


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_a_cut_answer_finishes_with_its_note(clients, name: str) -> None:
    for report in clients[name]:
        assert report["outcome"] == "success"
        assert report["run_error"] is None
        assert report["run_metadata"] == {"stopReason": name, "stop": NOTED[name]}


@pytest.mark.slow
def test_what_streamed_before_the_cut_stays(clients) -> None:
    for report in clients["content_filtered"]:
        [answer] = [m for m in report["messages"] if m["role"] == "assistant"]
        assert answer["content"] == "The first half of an answer the"
    for name in ("limit_turns", "limit_output_tokens", "limit_total_tokens"):
        for report in clients[name]:  # the tool ran; the model was not called again
            assert sorted(m["role"] for m in report["messages"]) == ["assistant", "tool", "user"]


def test_a_plain_end_carries_no_note() -> None:
    assert dump_events(replayed("plain_text"))[-1]["metadata"] == {"stopReason": "end_turn"}
    assert stops.stop_metadata(None) is None


def test_max_tokens_is_the_only_failed_stop() -> None:
    last = dump_events(replayed("max_tokens"))[-1]
    assert (last["type"], last["code"]) == ("RUN_ERROR", "MAX_TOKENS")


def test_a_cap_the_config_did_not_set_is_left_out() -> None:
    assert stops.stop_metadata("limit_turns") == {
        "stopReason": "limit_turns",
        "stop": {"kind": "limit", "limit": "turns", "note": "Stopped: the run reached its turn limit."}}


NOTICES = """
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
const require = createRequire(process.argv[2] + "/");
globalThis.window = { jsonpatch: require("fast-json-patch") };
const { applyEvent, newThread } = await import(process.argv[3]);
const out = {};
for (const file of process.argv.slice(4)) {
  const thread = newThread({});
  thread.runs.push({ calls: [] });
  const lines = readFileSync(file, "utf8").split("\\n").filter((l) => l.trim());
  for (const line of lines) applyEvent(thread, JSON.parse(line));
  const last = thread.messages[thread.messages.length - 1];
  out[file] = thread.notices.map((n) => ({ kind: n.kind, text: n.text, afterLast: n.after === last.id }));
}
console.log(JSON.stringify(out));
"""


def test_the_console_shows_the_note_after_the_answer(tmp_path: Path) -> None:
    import json
    import subprocess

    from tests.oracles import CLIENT_DIR

    agui = ROOT.parent / "src" / "strands_agui" / "server" / "console" / "static" / "store.js"
    (tmp_path / "agui.mjs").write_text(agui.read_text())
    (tmp_path / "driver.mjs").write_text(NOTICES)
    files = [ROOT / "golden" / f"{name}.jsonl" for name in [*NAMES, "plain_text"]]
    done = subprocess.run(["node", str(tmp_path / "driver.mjs"), str(CLIENT_DIR), str(tmp_path / "agui.mjs"),
                           *map(str, files)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    notices = json.loads(done.stdout)
    for name in NAMES:
        assert notices[str(ROOT / "golden" / f"{name}.jsonl")] == [
            {"kind": "stop", "text": NOTED[name]["note"], "afterLast": True}], name
    assert notices[str(ROOT / "golden" / "plain_text.jsonl")] == []
    views = (ROOT.parent / "src" / "strands_agui" / "server" / "console" / "static" / "views.js").read_text()
    assert 'stop: "stop-note"' in views  # drawn as a notice (data-testid="stop-note"), small (.notice-stop)
