"""The bench's own parts (bench/): the floor route, the paced model, the settings switch, the open loop's
client and the profile's classifier. Nothing here asserts on speed."""

from __future__ import annotations

import asyncio
import itertools
import json
import time

import httpx
import pytest

from bench.apps import ANSWER, FIRST_CHUNK_SECONDS, create_app
from bench.http import free_port, keywords, start_server
from bench.openloop import Load, Target, offer, pct, verdicts
from bench.profile import WAITING, classify, tally
from strands_agui.server.transport.streaming import COALESCE_SECONDS


def _frames(text: str) -> list[dict[str, object]]:
    return [json.loads(line[len("data: "):]) for line in text.splitlines() if line.startswith("data: ")]


def test_keywords_read_json_imports_and_strings() -> None:
    default = "default=@strands_agui.server.transport.streaming:COALESCE_SECONDS"
    found = keywords(["coalesce_seconds=0", "limits=[1, 2]", "name=bench", default])
    assert found == {"coalesce_seconds": 0, "limits": [1, 2], "name": "bench", "default": COALESCE_SECONDS}
    with pytest.raises(ValueError, match="KEY=VALUE"):
        keywords(["coalesce_seconds"])


async def test_the_floor_streams_the_same_words_as_ours_at_the_model_pace() -> None:
    app = create_app(("ours", "floor"), model="paced", endpoint=keywords(["coalesce_seconds=0"]))
    body = {"threadId": "t", "runId": "r", "state": {}, "tools": [], "context": [], "forwardedProps": {},
            "messages": [{"id": "m", "role": "user", "content": "Tell me something."}]}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as client:
        start = time.perf_counter()
        floor = await client.post("/floor/chat", json=body)
        elapsed = time.perf_counter() - start
        ours = await client.post("/ours/chat", json=body, headers={"Accept": "text/event-stream"})
    floor_frames, ours_frames = _frames(floor.text), _frames(ours.text)
    assert floor_frames[-1] == {"type": "RUN_FINISHED"} and ours_frames[-1]["type"] == "RUN_FINISHED"
    said = "".join(str(f["delta"]) for f in ours_frames if f["type"] == "TEXT_MESSAGE_CONTENT")
    assert "".join(str(f["delta"]) for f in floor_frames[:-1]) == said == ANSWER
    assert elapsed >= FIRST_CHUNK_SECONDS  # the paced model waited before its first chunk


@pytest.mark.slow
def test_the_open_loop_times_runs_from_their_scheduled_start() -> None:
    port = free_port()
    server = start_server(port, ["--adapter", "floor", "--model", "paced"])
    try:
        target = Target(port, server.pid, "/floor/chat")
        load = asyncio.run(offer(target, "chat", 10, 0.5, itertools.count()))
    finally:
        server.terminate()
        server.wait(10)
    assert (load.offered, load.done, load.failed) == (5, 5, 0)
    assert load.chunks == 5 * 41  # the floor writes each of the 40 deltas, then its end, one send each
    assert pct(load.words, 0.0) >= FIRST_CHUNK_SECONDS  # no word before the model's first chunk
    assert all(words <= run for words, run in zip(load.words, load.run, strict=True))
    assert load.cpu > 0


def test_profile_rows_take_the_phase_on_the_stack_else_the_innermost_component() -> None:
    build = ["run (asyncio/events.py:80)", "StrandsAgent.run (strands_agui/runtime/agent.py:91)",
             "build_run_agent (strands_agui/runtime/agents.py:39)", "Agent.__init__ (strands/agent/agent.py:614)",
             "_discover_methods (strands/plugins/_discovery.py:45)"]
    assert classify(build) == "building the run's agent"
    translate = ["RunStream._frames (strands_agui/server/transport/streaming.py:160)",
                 "translate (strands_agui/runtime/agent.py:200)",
                 "Translator.handle (strands_agui/core/translator.py:9)"]
    assert classify(translate) == "our translator + machine (core/, transitions)"
    assert classify([*translate[:1], "_SelectorSocketTransport.write (asyncio/selector_events.py:1057)"]) \
        == "socket writes (the send syscall)"
    raw = ";".join(build) + " 3\n" + ";".join(translate) + " 2\nrun_forever (asyncio/base_events.py:607);" \
        "EpollSelector.select (selectors.py:468) 7\n"
    assert WAITING.match("EpollSelector.select (selectors.py:468)")
    assert tally(raw) == {"building the run's agent": 3, "our translator + machine (core/, transitions)": 2}


def test_the_targets_compare_ours_to_the_floor_of_the_same_bench() -> None:
    floor = Load(offered=2, cpu=0.020, run=[0.7, 0.8])
    lean = Load(offered=2, cpu=0.022, run=[0.8, 0.9])  # 1.10x the floor's CPU, run p99 1.125x
    heavy = Load(offered=2, failed=1, cpu=0.030, run=[0.7])  # a failed run never meets the latency target
    loads = {(100.0, "ours"): lean, (100.0, "floor"): floor, (150.0, "ours"): heavy, (150.0, "floor"): floor}
    assert verdicts(loads) == [
        "target: ours' cpu at 100 runs/s 1.10x the floor's (<= 1.15x): met",
        "target: ours' run p99 at 150 runs/s infx the floor's (<= 1.25x): NOT met",
    ]
    assert verdicts({(50.0, "ours"): lean}) == []


def test_the_threads_bench_measures_flat_wire_and_storage_bytes_with_threads_on(tmp_path: object) -> None:
    """``bench/threads.py`` (issue 30) at two small sizes: with threads on and the client's marker, a run's wire
    and storage bytes do not grow with the thread; threads off, the client's request does (not measured here)."""
    from bench.threads import threaded
    from strands_agui import FileSessions

    small, large = threaded(FileSessions(f"{tmp_path}/a"), 4)(), threaded(FileSessions(f"{tmp_path}/b"), 200)()
    assert small[0] > 0 and abs(small[0] - large[0]) < 100, (small, large)
    assert 0 < large[1] < 3 * small[1], (small, large)
