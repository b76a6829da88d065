"""``make bench``: what the adapter costs per Strands event, beside the bare AG-UI encoder, in one run.

Workload: a real strands.Agent run on a scripted model streaming 2,000 text deltas, recorded once.
Measured (best of N rounds, same process):

* adapter: the recorded Strands events through the run machine + translator + ``EventEncoder.encode``
  of every AG-UI event it emits (what serving the run costs us, without the model);
* baseline: ``EventEncoder.encode`` alone over the same AG-UI output (pre-built events).

Reported per Strands event and as a ratio adapter / baseline; memory as tracemalloc peaks.
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
from strands_agui.runtime.agent import translate
from strands_agui.tooling.recording import RecordedRun, Recorder, read_log
from strands_agui.tooling.scripted import ScriptedModel, Text
from tests.scenarios import run_input


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
        translator = adapter.translator(data)
        size = sum(len(encoder.encode(e)) for e in translator.start())  # type: ignore[arg-type]
        async for event in translate(translator, _events(run)):
            size += len(encoder.encode(event))
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


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__)
    args.add_argument("--deltas", type=int, default=2000)
    args.add_argument("--rounds", type=int, default=7)
    opts = args.parse_args()
    run = record_run(opts.deltas)
    encoder = EventEncoder(accept="text/event-stream")
    output = asyncio.run(_collect(run))
    adapter = best_time(lambda: adapter_pass(run, encoder), opts.rounds)
    baseline = best_time(lambda: baseline_pass(output, encoder), opts.rounds)
    n = len(run.events)
    print(f"workload: {opts.deltas} text deltas -> {n} Strands events -> {len(output)} AG-UI events")
    for label, seconds in (("adapter  (machine + translator + encoder)", adapter),
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
