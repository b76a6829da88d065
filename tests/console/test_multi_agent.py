"""The multi-agent example (``/multi_agent``: a Swarm of a researcher and a writer on the scripted model) in the
console, as a user sees it: one block per node, each holding that node's own messages, the handoff on the
writer's block, the researcher's tool progress, and the writer's answer last."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.console.browser import open_example, run_inputs, send, wait_idle
from tests.support.live import LiveServer

pytestmark = pytest.mark.slow  # a browser (Chromium) per module
EXAMPLES_PACED = False  # the scripted model's words at once: no test here acts while it speaks (conftest)

TOPIC = "the billing service"


def test_a_swarm_run_shows_each_node_its_messages_and_the_handoff(page: Any, examples: LiveServer) -> None:
    requests: list[Any] = []
    page.on("request", lambda request: requests.append(request))
    open_example(page, examples, "/multi_agent")
    send(page, TOPIC)
    wait_idle(page)
    blocks = page.locator('[data-testid="subagent"]')
    expect(blocks.locator('[data-testid="subagent-name"]')).to_have_text(["↳ researcher", "↳ writer"])
    expect(blocks.locator('[data-testid="subagent-status"]')).to_have_text(["done", "done"])
    researcher, writer = blocks.nth(0), blocks.nth(1)

    said = researcher.locator('[data-role="assistant"] > [data-testid="message-text"]')
    expect(said).to_have_text([f"Let me search our notes on {TOPIC}.", "", "Handed over to the writer."])
    search = researcher.locator('[data-testid="tool-call"][data-tool-name="search_notes"]')
    expect(search).to_have_attribute("data-status", "done")
    expect(search.locator('[data-testid="tool-result"]')).to_contain_text(f"3 notes mention {TOPIC}")
    progress = researcher.locator('[data-role="activity"] [data-testid="message-text"]')
    expect(progress).to_have_text("tool_progress · toolName: search_notes\n· searching: wiki\n· searching: tickets\n"
                                  f"· searching: meeting notes\n· 3 notes mention {TOPIC}: it is well documented, "
                                  "widely used, and has an owner.")
    handoff = researcher.locator('[data-testid="tool-call"][data-tool-name="handoff_to_agent"]')
    expect(handoff.locator('[data-testid="tool-args"]')).to_contain_text('"agent_name": "writer"')
    expect(researcher.locator('[data-testid="subagent-handoff"]')).to_have_text("")

    expect(writer.locator('[data-testid="subagent-handoff"]')).to_have_text(
        f"handed over by researcher: Answer about {TOPIC}. 3 notes mention {TOPIC}: it is well documented, widely "
        "used, and has an owner.")
    answer = writer.locator('[data-testid="message-text"]')
    expect(answer).to_have_count(1)
    expect(answer).to_contain_text(f"Here is what the team knows about {TOPIC}:")
    expect(writer.locator('[data-testid="tool-call"]')).to_have_count(0)  # the researcher's calls stay in its block

    items = page.locator("#messages > li")  # the user's message, then the two blocks: nothing outside them
    expect(items).to_have_count(3)
    expect(items.nth(0)).to_have_attribute("data-role", "user")
    expect(page.locator('[data-testid="error"]')).to_have_count(0)
    expect(page.locator('[data-testid="machine-state"]')).to_have_text("finished")  # the run's own machine
    moves = page.locator('[data-testid="subagent-move"]')  # each node's machine, in the inspector
    expect(moves.filter(has_text="writer: open_text → streaming_text")).to_have_count(1)
    expect(moves.filter(has_text="researcher: finish → finished")).to_have_count(1)

    [sent] = run_inputs(requests, "/multi_agent")
    assert [m["content"] for m in sent["messages"]] == [TOPIC]
