"""The A2UI example route through ``@ag-ui/a2ui-middleware`` 0.0.10 (what CopilotKit 1.74's runtime applies,
over ``@ag-ui/client`` 0.0.59): the surface is painted while the designer's ``render_a2ui`` call streams."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.frontends.conftest import HERE, node

pytestmark = pytest.mark.slow
TRIP = "show me a checklist for a trip: passport, tickets and charger"


def painted(served: str, tmp_path: Path) -> list[dict[str, Any]]:
    """The events the middleware passes on for one run of the route."""
    data = {"threadId": "thread-a2ui", "runId": "run-1", "messages": [{"id": "u1", "role": "user", "content": TRIP}],
            "tools": [], "context": [], "state": {}, "forwardedProps": {}}
    (tmp_path / "input.json").write_text(json.dumps(data))
    done = subprocess.run([node(), "a2ui_paint.mjs", f"{served}/a2ui_generative_ui", str(tmp_path / "input.json")],
                          cwd=HERE, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return list(json.loads(done.stdout))


def operations(event: dict[str, Any]) -> dict[str, Any]:
    """An A2UI activity snapshot's operations, by kind (empty for a lifecycle snapshot: building...)."""
    ops = (event.get("content") or {}).get("a2ui_operations") or []
    return {next(k for k in op if k != "version"): next(v for k, v in op.items() if k != "version") for op in ops}


def test_the_surface_is_painted_while_the_render_call_streams(served: str, tmp_path: Path) -> None:
    events = painted(served, tmp_path)
    types = [e["type"] for e in events]
    assert types[-1] == "RUN_FINISHED" and "RUN_ERROR" not in types
    surfaces = [i for i, e in enumerate(events) if e["type"] == "ACTIVITY_SNAPSHOT" and operations(e)]
    render_end = next(i for i, e in enumerate(events) if e["type"] == "TOOL_CALL_END" and e["name"] == "render_a2ui")
    assert surfaces and surfaces[0] < render_end, "nothing was painted before the render call ended"
    first = operations(events[surfaces[0]])
    assert first["createSurface"]["surfaceId"] == "checklist"
    assert [c["id"] for c in first["updateComponents"]["components"]] == [
        "root", "body", "title", "list", "item", "done", "done-label"]
    items = [operations(events[i]).get("updateDataModel", {}).get("value", {}).get("items", []) for i in surfaces]
    assert [len(i) for i in items] == sorted(len(i) for i in items)  # the list only grows
    assert items[-1] == [{"name": "passport"}, {"name": "tickets"}, {"name": "charger"}]
