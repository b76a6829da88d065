"""Human-in-the-loop tests: answering interrupts, and a clean record of executed bookings per test."""

from __future__ import annotations

from typing import Any

import pytest

from tests import hitl_scenarios


@pytest.fixture
def clear_executions() -> None:
    """Each test starts with no recorded execution (``hitl_scenarios.EXECUTIONS``): a module asks for it with
    ``pytestmark = pytest.mark.usefixtures("clear_executions")``."""
    hitl_scenarios.EXECUTIONS.clear()


def approve(interrupts: list[dict[str, Any]], payload: Any = None, **extra: Any) -> list[dict[str, Any]]:
    """The resume entries resolving each interrupt with ``payload`` (default: approved)."""
    answer = {"approved": True} if payload is None else payload
    return [{"interruptId": i["id"], "status": "resolved", "payload": answer, **extra} for i in interrupts]
