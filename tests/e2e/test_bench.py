"""The bench's own parts (bench/): the floor route, the paced model, the settings switch, the open loop's
client and the profile's classifier. Nothing here asserts on speed."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
import sys
import time
from typing import Any

import httpx
import pytest

from bench.apps import ANSWER, FIRST_CHUNK_SECONDS, create_app
from bench.http import body as bench_body
from bench.http import free_port, keywords, server_cpu, server_options, start_server
from bench.openloop import (
    Load,
    Target,
    bisect,
    bracket,
    ceiling,
    failed_above,
    held,
    offer,
    pct,
    probe_rate,
    scaling,
    serve_command,
    verdicts,
)
from bench.profile import WAITING, classify, tally
from bench.refusals import BARE, _hold, _served, _window
from strands_agui.server.transport.streaming import COALESCE_SECONDS
from tests.support.processes import running


def _frames(text: str) -> list[dict[str, object]]:
    return [json.loads(line[len("data: "):]) for line in text.splitlines() if line.startswith("data: ")]


def test_the_cost_parts_serve_ours_without_admission_control_unless_asked() -> None:
    """The closed and open loops measure a run's cost and the rate a server holds: runs shed past it would count
    as failed (the closed loop's 64 clients saturate a worker by design), so ours is served with ``admission=None``
    there; ``--admission`` or an explicit ``--endpoint admission=...`` keeps the setting."""
    import argparse

    parser = argparse.ArgumentParser()
    arguments = server_options(parser)
    assert arguments(parser.parse_args([])) == ["--endpoint", "admission=null"]
    assert keywords(["admission=null"]) == {"admission": None}
    assert arguments(parser.parse_args(["--admission"])) == []
    given = "admission=@strands_agui.server.request.admission:AdmissionPolicy"
    assert arguments(parser.parse_args(["--endpoint", given, "--coalesce", "0"])) == [
        "--endpoint", "coalesce_seconds=0.0", "--endpoint", given]


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
    build = ["run (asyncio/events.py:80)", "StrandsAgent.run (strands_agui/runtime/adapter.py:91)",
             "build_run_agent (strands_agui/runtime/building/run_agent.py:39)",
             "Agent.__init__ (strands/agent/agent.py:614)",
             "_discover_methods (strands/plugins/_discovery.py:45)"]
    assert classify(build) == "building the run's agent"
    translate = ["RunStream._frames (strands_agui/server/transport/streaming.py:160)",
                 "translate (strands_agui/runtime/adapter.py:200)",
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
    lean = Load(offered=2, cpu=0.021, run=[0.8, 0.9])  # 1.05x the floor's CPU, run p99 1.125x
    heavy = Load(offered=2, failed=1, cpu=0.030, run=[0.7])  # 3x over its 1 run done; a failed run never meets p99
    assert verdicts({(100.0, "ours"): lean, (100.0, "floor"): floor}) == [
        "target: ours' cpu at 100 runs/s 1.05x the floor's (<= 1.1x): met",
        "target: ours' run p99 at 100 runs/s 1.12x the floor's (<= 1.5x): met",
    ]
    assert verdicts({(100.0, "ours"): heavy, (100.0, "floor"): floor}) == [
        "target: ours' cpu at 100 runs/s 3.00x the floor's (<= 1.1x): NOT met",
        "target: ours' run p99 at 100 runs/s infx the floor's (<= 1.5x): NOT met",
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


def test_the_rate_a_server_holds_and_workers_against_one() -> None:
    """``--serve-workers``: a rate is held when every run was done and the run p50 stayed within ``HELD`` x the
    lowest rate's (the model's pace); two workers are compared with one."""
    paced, slow = [0.7] * 4, [3.0] * 4
    loads = {(50.0, "serve x1"): Load(offered=4, run=paced), (100.0, "serve x1"): Load(offered=4, run=slow),
             (50.0, "serve x2"): Load(offered=4, run=paced), (100.0, "serve x2"): Load(offered=4, run=paced),
             (150.0, "serve x2"): Load(offered=4, failed=1, run=paced[:3])}
    assert held(loads) == {"serve x1": 50.0, "serve x2": 100.0}
    assert failed_above(loads) == {"serve x1": 100.0, "serve x2": 150.0}
    assert scaling(loads) == ["holds: serve x1 50 runs/s (not 100)",
                              "holds: serve x2 100 runs/s (not 150) = 2.00x one worker's (between 1.00x and 3.00x) "
                              "(issue 31: >= 1.8x with 2 workers)"]


def _loads(name: str, outcomes: dict[float, bool]) -> dict[tuple[float, str], Load]:
    """``name``'s loads: a held rate's runs all done at the model's pace, a failed one's p50 past ``HELD``."""
    return {(rate, name): Load(offered=4, run=[0.7] * 4 if ok else [3.0] * 4) for rate, ok in outcomes.items()}


def test_the_bracket_is_the_highest_rate_held_and_the_lowest_above_it_not_held() -> None:
    assert bracket(_loads("s", {50: True, 75: True, 100: False, 125: False}), "s") == (75.0, 100.0)
    # a rate held above one that failed moves the bracket up: the held rate is the highest held
    assert bracket(_loads("s", {50: True, 75: False, 100: True, 125: False, 150: False}), "s") == (100.0, 125.0)
    assert bracket(_loads("s", {50: True, 75: True}), "s") is None  # no rate failed: no upper bound
    assert bracket(_loads("s", {50: False, 75: False}), "s") is None  # none held (the lowest failed)
    assert bracket(_loads("s", {50: True}), "other") is None
    assert probe_rate(75, 100) == 88.0 and probe_rate(75, 88) == 82.0 and probe_rate(82, 88) == 85.0
    assert probe_rate(84, 85) is None and probe_rate(84, 86) == 85.0  # no whole rate between: nothing to probe


async def test_bisection_probes_each_server_between_its_bracket_and_narrows_it() -> None:
    """A server that holds up to 83 runs/s and one up to 141: three probes each, the servers alternating, leave
    each bracket 1/8 of the grid's step wide around the true rate; a server without a bracket is not probed."""
    capacity = {"serve x1": 83.0, "serve x2": 141.0, "floor": 1000.0}
    grid = [50.0, 75.0, 100.0, 125.0, 150.0, 200.0]
    loads = {key: load for name, top in capacity.items()
             for key, load in _loads(name, {rate: rate <= top for rate in grid}).items()}
    probed: list[tuple[float, str]] = []

    async def one(rate: float, name: str) -> Load:
        probed.append((rate, name))
        return _loads(name, {rate: rate <= capacity[name]})[rate, name]

    await bisect(loads, list(capacity), 3, one)
    assert probed == [(88.0, "serve x1"), (138.0, "serve x2"),  # round 1 in order, round 2 reversed
                      (144.0, "serve x2"), (82.0, "serve x1"),
                      (85.0, "serve x1"), (141.0, "serve x2")]
    assert bracket(loads, "serve x1") == (82.0, 85.0) and bracket(loads, "serve x2") == (141.0, 144.0)
    assert held(loads) == {"serve x1": 82.0, "serve x2": 141.0, "floor": 200.0}
    assert scaling(loads)[1] == ("holds: serve x2 141 runs/s (not 144) = 1.72x one worker's (between 1.66x and "
                                 "1.76x) (issue 31: >= 1.8x with 2 workers)")
    before = dict(loads)
    await bisect(loads, list(capacity), 0, one)  # --refine 0: the grid alone
    assert loads == before and len(probed) == 6


def test_the_server_cpu_is_its_process_trees() -> None:
    """uvicorn's workers are the supervisor's children: their CPU counts as the server's."""
    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass\ntime.sleep(60)"
    before = server_cpu(os.getpid())
    with running([sys.executable, "-c", burn], first=signal.SIGKILL) as child:
        deadline = time.monotonic() + 20
        while server_cpu(child.pid) < 0.3 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert round(server_cpu(os.getpid()) - before, 2) >= 0.3  # whole ticks: 2.36 - 2.06 is 0.2999...


def test_bench_apps_served_is_ours_on_the_paced_model(monkeypatch: pytest.MonkeyPatch) -> None:
    from bench import apps
    from strands_agui.server.endpoint import served_endpoint
    from strands_agui.server.request.admission import AdmissionPolicy

    paths = {getattr(route, "path", None) for route in apps.served.routes}
    assert {"/ours/chat", "/ours/tool"} <= paths and "/floor/chat" not in paths
    admissions = {}
    for setting in ("on", "off", "fixed:120"):  # bench.overload's shedding, held-rate and --limit servers
        monkeypatch.setenv("BENCH_ADMISSION", setting)
        endpoint = served_endpoint(apps.served, "/ours/chat")
        admissions[setting] = endpoint.admission.policy if endpoint.admission is not None else None
    assert admissions == {"on": AdmissionPolicy(), "off": None,
                          "fixed:120": AdmissionPolicy(adaptive=False, max_runs=120)}
    assert serve_command(8123, 2, ["--threads"])[-7:] == ["--port", "8123", "--workers", "2", "--log-level", "warning",
                                                          "--threads"][-7:]


@pytest.mark.slow
def test_the_open_loop_drives_serve_with_two_workers_threads_and_redis(tmp_path: object) -> None:
    """``bench.openloop --serve-workers 2 --stateful``'s server: ``strands-agui serve --workers 2`` with threads
    in files and resumable runs in Redis, timed by the open loop's client."""
    from tests.support.redis import redis_server

    with redis_server() as redis:
        port = free_port()
        extra = ["--threads", "--sessions", str(tmp_path), "--resumable", "--events", redis.url]
        server = start_server(port, command=serve_command(port, 2, extra))
        try:
            load = asyncio.run(offer(Target(port, server.pid, "/ours/chat"), "chat", 10, 0.5, itertools.count()))
            cpu = server_cpu(server.pid)
        finally:
            server.terminate()
            server.wait(20)
    assert (load.offered, load.done, load.failed) == (5, 5, 0), load.errors
    assert cpu > 0


async def test_the_instructions_child_runs_each_server_in_process_and_checks_every_run() -> None:
    from bench.instructions import child, run_once

    for server in ("ours", "floor"):
        await child(server, "tool", 2, instrument=False)  # warm-up and measured runs, each checked
    app = create_app(("ours",), model="yielding")
    async with app.router.lifespan_context(app):
        data = await run_once(app, "/ours/chat", bench_body("chat", 1))
    assert [frame["type"] for frame in _frames(data.decode())][-1] == "RUN_FINISHED"
    with pytest.raises(RuntimeError, match="did not finish"):
        async with app.router.lifespan_context(app):
            await run_once(app, "/ours/chat", b'{"threadId": "t"}')  # a 422: no RUN_FINISHED


def test_the_instructions_part_reads_callgrinds_count_and_reports_ratios() -> None:
    from bench.instructions import collected, report

    stderr = "==1== Events    : Ir\n==1== Collected : 262961425\n==1==\n==1== I   refs:      262,961,425\n"
    assert collected(stderr) == 262_961_425
    with pytest.raises(RuntimeError, match="no callgrind summary"):
        collected("valgrind: not found")
    table = report({("ours", "chat"): 13e6, ("upstream", "chat"): 26e6, ("floor", "chat"): 10e6})
    assert "| chat | 13.00 | 26.00 | 10.00 | 1.30x | 0.50x |" in table
    assert "| tool |" not in table  # a workload not measured has no row


def test_the_instructions_split_gives_a_fixed_part_a_part_per_delta_and_the_budget_they_leave() -> None:
    from bench.instructions import split

    counts = {("ours", 1): 5.7e6, ("ours", 41): 13.7e6, ("floor", 1): 3.4e6, ("floor", 41): 8.6e6}
    table = split(counts)
    assert "| ours | 5,500 | 200.0 |" in table and "| floor | 3,270 | 130.0 |" in table
    # 1.10x the floor's 41-delta run (8.6 M) is 9.46 M; 41 deltas at the floor's 130 k leave 4.13 M
    assert "9.46 M" in table and "leaves ours 4.13 M for its fixed part (0.86 M over the floor's)" in table
    assert "ours' is 5.50 M (2.23 M over)" in table
    assert split({("ours", 40): 1.0}) == ""  # one length: nothing to split


async def test_the_instructions_span_until_a_message_is_switched_on_at_each_request_and_off_at_that_message(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import bench.instructions as instructions

    switched: list[bool] = []
    monkeypatch.setattr(instructions, "_instrument", switched.append)
    sent: list[str] = []
    real_run_once = instructions.run_once

    async def run_once(app: Any, path: str, payload: bytes, watch: Any = None) -> bytes:
        def seen(message: dict[str, Any]) -> None:
            sent.append(f"{message['type']}{'+' if switched[-1] else '-'}")  # before ``watch``: was it counted?
            watch(message)
        return await real_run_once(app, path, payload, seen if watch else None)

    monkeypatch.setattr(instructions, "run_once", run_once)
    await instructions.child("ours", "chat", 2, instrument=True, deltas=1, until="first")
    assert switched == [True, False, True, False]  # on at each request, off at its first body
    first = sent.index("http.response.body+")
    assert sent[:first] == ["http.response.start+"] and sent[first + 1] == "http.response.body-"
    switched.clear()
    await instructions.child("ours", "chat", 2, instrument=True, deltas=1, until="toggles")
    assert switched == [True, False, True, False]  # the switching alone, subtracted by ``measure``


async def test_the_chat_workload_streams_as_many_deltas_as_asked() -> None:
    from bench.instructions import run_once

    for deltas in (1, 3):
        app = create_app(("ours",), model="yielding", deltas=deltas)
        async with app.router.lifespan_context(app):
            data = await run_once(app, "/ours/chat", bench_body("chat", deltas))
        contents = [f for f in _frames(data.decode()) if f["type"] == "TEXT_MESSAGE_CONTENT"]
        assert len(contents) == deltas


def test_the_ceiling_of_n_workers_is_what_the_client_and_redis_leave_them() -> None:
    """One worker holds ``1 / c`` (a CPU); two on 2 CPUs shared with the client and Redis (``o`` a run beside the
    worker's ``c``) hold at most ``2 / (c + o)``: 2c / (c + o) against one; with nothing beside, the CPUs."""
    def one(cpu: float, client: float, redis: float) -> dict[tuple[float, str], Load]:
        runs = 100
        return {(50.0, "serve x1"): Load(offered=runs, run=[0.7] * runs, cpu=cpu * runs, client_cpu=client * runs,
                                         beside_cpu=redis * runs),
                (100.0, "serve x1"): Load(offered=runs, run=[3.0] * runs)}

    loads = one(0.0092, 0.0009, 0.0007)
    assert ceiling(loads, 2, 2) == pytest.approx(2 * 9.2 / 10.8)  # 1.70x
    assert ceiling(one(0.0092, 0.0, 0.0), 2, 2) == 2.0 and ceiling(one(0.0092, 0.0, 0.0), 4, 2) == 2.0
    assert ceiling(one(0.001, 0.0045, 0.0045), 2, 2) == pytest.approx(1.0)  # the machine binds one worker too
    assert ceiling({(50.0, "serve x2"): Load(offered=1, run=[0.7])}, 2, 2) is None  # no x1 measured
    loads[50.0, "serve x2"] = Load(offered=100, run=[0.7] * 100)
    assert scaling(loads, 2)[1] == ("holds: serve x2 50 runs/s = 1.00x one worker's (issue 31: >= 1.8x with 2 "
                                    "workers); at best 1.70x on 2 CPUs shared with the client and Redis (at x1's "
                                    "costs)")


def test_the_refusals_bench_holds_the_one_place_so_every_run_after_it_is_refused() -> None:
    """``bench.refusals``: a run whose body never finishes holds ``serve --max-runs 1``'s place, so the window
    measures refusals alone (none served); the bare server refuses every run too."""
    port = free_port()
    with _served(serve_command(port, 1, ["--max-runs", "1"]), port, {"BENCH_ADMISSION": "on"}) as server:
        with contextlib.closing(_hold(port, "/ours/chat")):
            refused, served, cpu = _window(port, "/ours/chat", server.pid, 50, 0.4)
        assert (refused, served) == (20, 0) and cpu >= 0
        deadline = time.monotonic() + 10  # the held run's connection closed: its place is given back
        while (status := httpx.post(f"http://127.0.0.1:{port}/ours/chat", content=bench_body("chat", 1),
                                    headers={"content-type": "application/json"}, timeout=10).status_code) == 503:
            assert time.monotonic() < deadline, "the held place was not given back"
            time.sleep(0.1)
        assert status == 200
    port = free_port()
    with _served([sys.executable, "-c", BARE, str(port)], port, {}) as server:
        assert _window(port, "/ours/chat", server.pid, 50, 0.4)[:2] == (20, 0)
