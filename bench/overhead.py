"""``make bench`` (in-process part): what an adapter costs per Strands event.

Workload: a real strands.Agent on a scripted model streaming ``--deltas`` text deltas. Best of N rounds,
one process; the live runs of the three (bare, ours, upstream) are interleaved round by round. Two measures:

* **vs upstream (live runs).** The same template agent run through ``strands_agui.StrandsAgent.run`` and
  ``ag_ui_strands.StrandsAgent.run`` (``ag_ui_strands==1.0.2``, the bench extra), every AG-UI event
  framed as that adapter's server frames it (ours: ``sse_frame``, whose delta events skip ``ag_ui``'s
  Python-level serializer; upstream: ``EventEncoder``). An adapter's overhead is its run time minus a bare
  Strands run (a fresh ``Agent`` built from the same parts and its ``stream_async`` read to the end), per
  Strands event.
* **vs the bare encoder (replay).** The recorded Strands events through the machine + translator +
  ``sse_frame`` of every AG-UI event (what our server writes), beside ``EventEncoder.encode`` alone over the same
  AG-UI output (pre-built events). Memory as tracemalloc peaks.

Not a test: nothing is asserted on time.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import time
import tracemalloc
from collections.abc import AsyncIterator, Callable
from typing import Any

from ag_ui.core import BaseEvent
from ag_ui.encoder import EventEncoder
from strands import Agent

from strands_agui import StrandsAgent
from strands_agui.core.facts import NO_FACTS
from strands_agui.runtime.loop import translate
from strands_agui.runtime.recordings import RecordedRun, Recorder, read_log
from strands_agui.server.transport.streaming import sse_frame
from strands_agui.tooling.scripted import ScriptedModel, Text
from tests.support.scenarios import run_input


def record_run(deltas: int) -> RecordedRun:
    words = " ".join(f"w{i}" for i in range(deltas))
    agent = Agent(model=ScriptedModel([[Text(words)]]), callback_handler=None)
    sink = io.StringIO()
    data = run_input("Tell me a long story")

    async def go() -> None:
        with Recorder(sink, input_data=data) as recorder:
            async for _ in StrandsAgent(agent).run(data, recorder=recorder):
                pass

    asyncio.run(go())
    return read_log(io.StringIO(sink.getvalue()))


async def _events(run: RecordedRun) -> AsyncIterator[dict[str, Any]]:
    for event in run.events:
        yield event


def adapter_pass(run: RecordedRun, encoder: EventEncoder) -> int:
    adapter = StrandsAgent(lambda _: None)  # type: ignore[arg-type,return-value]
    data = run.input_data
    assert data is not None

    async def go() -> int:
        opening = adapter.opening(data)  # framed as our server frames it (``sse_frame``)
        size = sum(len(sse_frame(e)) for e in opening.start())
        translator = opening.translator(NO_FACTS)
        async for event in translate(translator, _events(run)):
            size += len(sse_frame(event))
        return size

    return asyncio.run(go())


def baseline_pass(output: list[BaseEvent], encoder: EventEncoder) -> int:
    async def go() -> int:
        return sum(len(encoder.encode(event)) for event in output)

    return asyncio.run(go())


def best_time(fn: Callable[[], int], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def peak_memory(fn: Callable[[], int]) -> int:
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def _template(deltas: int) -> Agent:
    words = " ".join(f"w{i}" for i in range(deltas))
    return Agent(model=ScriptedModel(lambda _messages: [Text(words)]), callback_handler=None)


def live_overheads(deltas: int, rounds: int) -> dict[str, float]:
    """Seconds per Strands event each adapter adds to a bare Strands run (best of ``rounds``)."""
    import ag_ui_strands  # the bench extra

    template = _template(deltas)
    encoder = EventEncoder(accept="text/event-stream")
    data = run_input("Tell me a long story")
    count = {"n": 0}

    async def bare() -> None:
        agent = Agent(model=template.model, callback_handler=None)
        count["n"] = sum([1 async for _ in agent.stream_async("Tell me a long story")])

    def adapter_run(adapter: Any, frame: Callable[[Any], Any]) -> Callable[[], int]:
        async def go() -> None:
            async for event in adapter.run(data):
                frame(event)

        return lambda: asyncio.run(go()) or 0

    runs: dict[str, Callable[[], int]] = {  # each adapter's events framed as its own server frames them
        "bare": lambda: asyncio.run(bare()) or 0,
        "ours": adapter_run(StrandsAgent(template), sse_frame),
        "upstream": adapter_run(ag_ui_strands.StrandsAgent(template, name="upstream"), encoder.encode),
    }
    timings = {name: float("inf") for name in runs}
    names = list(runs)
    for r in range(rounds):  # interleaved, rotating order: a drift of the machine reaches all three alike
        for name in names[r % 3:] + names[:r % 3]:
            timings[name] = min(timings[name], best_time(runs[name], 1))
    n = count["n"]
    return {name: (timings[name] - timings["bare"]) / n for name in ("ours", "upstream")} | {"events": n}


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__)
    args.add_argument("--deltas", type=int, default=2000)
    args.add_argument("--rounds", type=int, default=15)
    args.add_argument("--no-upstream", action="store_true", help="skip the comparison with ag_ui_strands")
    opts = args.parse_args()
    if not opts.no_upstream:
        live = live_overheads(opts.deltas, opts.rounds)
        print(f"live runs, {opts.deltas} text deltas -> {live['events']:.0f} Strands events; "
              "overhead over a bare Strands run, per Strands event:")
        print(f"| ours | upstream | ratio ours/upstream |\n|---:|---:|---:|\n"
              f"| {live['ours'] * 1e6:.2f} us | {live['upstream'] * 1e6:.2f} us | "
              f"{live['ours'] / live['upstream']:.2f}x |")
    run = record_run(opts.deltas)
    encoder = EventEncoder(accept="text/event-stream")
    output = asyncio.run(_collect(run))
    adapter = best_time(lambda: adapter_pass(run, encoder), opts.rounds)
    baseline = best_time(lambda: baseline_pass(output, encoder), opts.rounds)
    n = len(run.events)
    print(f"workload: {opts.deltas} text deltas -> {n} Strands events -> {len(output)} AG-UI events")
    for label, seconds in (("adapter  (machine + translator + sse_frame)", adapter),
                           ("baseline (EventEncoder only, same output)", baseline)):
        print(f"{label}: {seconds * 1e3:8.2f} ms  {seconds / n * 1e6:6.2f} us/Strands event")
    print(f"ratio adapter/baseline: {adapter / baseline:.2f}x")
    mem_adapter = peak_memory(lambda: adapter_pass(run, encoder))
    mem_baseline = peak_memory(lambda: baseline_pass(output, encoder))
    print(f"peak memory: adapter {mem_adapter / 1024:.0f} KiB, baseline {mem_baseline / 1024:.0f} KiB, "
          f"ratio {mem_adapter / mem_baseline:.2f}x")


async def _collect(run: RecordedRun) -> list[BaseEvent]:
    adapter = StrandsAgent(lambda _: None)  # type: ignore[arg-type,return-value]
    return [event async for event in adapter.replay(run)]


if __name__ == "__main__":
    main()
