"""The console's reducer (``static/store.js``) holds what the official ``@ag-ui/client`` holds.

Every golden stream is applied by the page's own ``applyEvent`` and by ``@ag-ui/client``'s ``AbstractAgent``
pipeline (one node process for all of them, with the fast-json-patch the official client ships); the messages
and the state they end up with must be the same. The page builds its follow-up requests from them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.oracles import CLIENT_DIR
from tests.support.paths import REPO

ROOT = REPO
AGUI_JS = ROOT / "src" / "strands_agui" / "server" / "console" / "static" / "store.js"
GOLDEN = sorted((ROOT / "tests" / "golden").rglob("*.jsonl"))
DRIVER = """
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
const require = createRequire(process.argv[2] + "/");
globalThis.window = { jsonpatch: require("fast-json-patch") };
const { AbstractAgent } = require("@ag-ui/client");
const { of } = require("rxjs");
const { applyEvent, newThread } = await import(process.argv[3]);

class Recorded extends AbstractAgent {  // the official client's whole pipeline, fed a recorded stream
  constructor(events) { super({ threadId: events[0].threadId }); this.events = events; }
  run() { return of(...this.events); }
}

const out = {};
for (const file of process.argv.slice(4)) {
  const events = readFileSync(file, "utf8").split("\\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
  const thread = newThread({});
  thread.runs.push({ calls: [] });
  for (const ev of events) applyEvent(thread, ev);
  const agent = new Recorded(events);
  let error = null;
  try { await agent.runAgent({ runId: events[0].runId }); } catch (err) { error = String(err); }
  out[file] = { page: { messages: thread.messages, state: thread.state },
                official: { messages: agent.messages, state: agent.state, error } };
}
console.log(JSON.stringify(out));
"""


def held(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a conversation view needs of each message (the official client adds metadata and defaults)."""
    keep = ("id", "role", "content", "toolCallId", "subagentRunId", "activityType", "error")
    out = []
    for m in messages:
        item = {k: m[k] for k in keep if m.get(k) not in (None, "")}
        calls = [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in m.get("toolCalls") or []]
        if calls:
            item["toolCalls"] = calls
        out.append(item)
    return out


@pytest.fixture(scope="module")
def reducers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if shutil.which("node") is None or not (CLIENT_DIR / "node_modules" / "fast-json-patch").is_dir():
        pytest.fail("node and the oracle's node_modules are needed: `make deps`")
    tmp = tmp_path_factory.mktemp("reducer")
    (tmp / "agui.mjs").write_text(AGUI_JS.read_text())
    (tmp / "driver.mjs").write_text(DRIVER)
    done = subprocess.run(["node", str(tmp / "driver.mjs"), str(CLIENT_DIR), str(tmp / "agui.mjs"),
                           *map(str, GOLDEN)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("golden", GOLDEN, ids=lambda p: str(p.relative_to(ROOT / "tests" / "golden")))
def test_the_page_holds_what_the_official_client_holds(reducers: dict[str, Any], golden: Path) -> None:
    page, official = reducers[str(golden)]["page"], reducers[str(golden)]["official"]
    assert official["error"] is None, official["error"]
    assert held(page["messages"]) == held(official["messages"])
    assert page["state"] == official["state"]
