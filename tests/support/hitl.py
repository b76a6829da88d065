"""Human-in-the-loop tests: a scenario's agent on a session store, pausing it, answering interrupts, and a clean
record of executed bookings per test."""

from __future__ import annotations

from typing import Any

import pytest

from strands_agui import StrandsAgent
from strands_agui.runtime.storage.sessions import FileSessions
from tests.oracles import assert_valid_stream
from tests.support import hitl_scenarios
from tests.support.hitl_scenarios import HitlScenario, pause_input, wire
from tests.support.replays import collected


@pytest.fixture
def clear_executions() -> None:
    """Each test starts with no recorded execution (``hitl_scenarios.EXECUTIONS``): a module asks for it with
    ``pytestmark = pytest.mark.usefixtures("clear_executions")``."""
    hitl_scenarios.EXECUTIONS.clear()


def approve(interrupts: list[dict[str, Any]], payload: Any = None, **extra: Any) -> list[dict[str, Any]]:
    """The resume entries resolving each interrupt with ``payload`` (default: approved)."""
    answer = {"approved": True} if payload is None else payload
    return [{"interruptId": i["id"], "status": "resolved", "payload": answer, **extra} for i in interrupts]


def adapter_for(scenario: HitlScenario, store: FileSessions, **kwargs: Any) -> StrandsAgent:
    return StrandsAgent(scenario.agent(), config=scenario.config, sessions=store, **kwargs)


async def pause(adapter: StrandsAgent, thread: str = "thread-hitl") -> tuple[list[dict[str, Any]], list[Any]]:
    """The paused run's events and the messages the official client holds after it."""
    first = pause_input(thread)
    events = await collected(adapter, first)
    return events, assert_valid_stream(events, input=wire(first))["messages"]
