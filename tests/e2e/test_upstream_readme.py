"""Switching from ``ag_ui_strands`` is an import change: the usage snippets of its own README (1.0.2, kept verbatim
in ``tests/upstream/``) run against strands-agui with ``ag_ui_strands`` replaced by ``strands_agui``, and the apps
they build behave as upstream documents: ``auth`` refuses, ``ping_path`` answers, ``origins`` allows exactly
those origins, and ``invocation_state_provider`` reaches the tools."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient
from strands import Agent, ToolContext, tool

import strands_agui
from strands_agui import StrandsAgent, StrandsAgentConfig
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse
from tests.support.markdown import Block, blocks, run_python
from tests.support.paths import TESTS
from tests.support.wire import SSE_HEADERS, parse_sse, run_input

README = TESTS / "upstream" / "ag_ui_strands_README.md"
TOKEN = "s3cret"


@tool(context=True)
def whoami(tool_context: ToolContext) -> str:
    """Say which tenant and run this call serves (read from the trusted invocation state)."""
    state = tool_context.invocation_state
    return f"tenant={state.get('tenant_id')} run={state.get('run_id')}"


def scenario(messages: list[dict[str, Any]]) -> list[Any]:
    answered = any("toolResult" in block for block in messages[-1]["content"])
    return [Text("Done.")] if answered else [ToolUse("whoami", {})]


def snippets() -> dict[str, list[Block]]:
    """The Python snippets by section, with only the import changed."""
    by_section: dict[str, list[Block]] = {}
    for block in blocks(README):
        if block.language == "python":
            code = block.code.replace("ag_ui_strands", "strands_agui")
            by_section.setdefault(block.section, []).append(Block("python", code, block.line, block.section))
    return by_section


@pytest.fixture
def scope(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, Any]:
    """What the upstream snippets assume is in scope: an agent (`agui_agent`), an app, the public names."""
    monkeypatch.setenv("AGENT_TOKEN", TOKEN)
    agent = Agent(model=ScriptedModel(scenario), tools=[whoami], callback_handler=None)
    agui_agent = StrandsAgent(agent, name="my_agent", config=StrandsAgentConfig(),
                              sessions=strands_agui.FileSessions(tmp_path))
    names = {n: getattr(strands_agui, n) for n in ("create_strands_app", "add_strands_fastapi_endpoint", "add_ping")}
    return {"__name__": "__main__", "agui_agent": agui_agent, "app": FastAPI(), **names}


def post(app: FastAPI, path: str, **headers: str) -> tuple[int, list[dict[str, Any]]]:
    response = TestClient(app).post(path, content=json.dumps(run_input(run_id="run-7")),
                                    headers={**SSE_HEADERS, **headers})
    return response.status_code, parse_sse(response.content)[0] if response.status_code == 200 else []


def test_the_snippets_are_the_ones_upstream_documents() -> None:
    sections = snippets()
    assert [len(sections[s]) for s in ("Amazon Bedrock AgentCore considerations", "Securing the endpoint",
                                       "Request-scoped invocation state")] == [2, 1, 1]


def test_agentcore_snippets_serve_invocations_and_ping(scope: dict[str, Any]) -> None:
    positional, separate = snippets()["Amazon Bedrock AgentCore considerations"]
    app = run_python(positional, scope, filename=str(README))["_"]
    status, events = post(app, "/invocations")
    assert status == 200 and events[-1]["type"] == "RUN_FINISHED"
    assert TestClient(app).get("/ping").json() == {"status": "ok"}
    allowed = TestClient(app).options("/invocations", headers={
        "Origin": "https://app.example", "Access-Control-Request-Method": "POST"})
    refused = TestClient(app).options("/invocations", headers={
        "Origin": "https://evil.example", "Access-Control-Request-Method": "POST"})
    assert allowed.headers["access-control-allow-origin"] == "https://app.example"
    assert "access-control-allow-origin" not in refused.headers
    app = run_python(separate, scope, filename=str(README))["app"]
    assert post(app, "/invocations")[1][-1]["type"] == "RUN_FINISHED"
    assert TestClient(app).get("/ping").json() == {"status": "ok"}


def test_auth_snippet_refuses_without_the_token(scope: dict[str, Any]) -> None:
    (securing,) = snippets()["Securing the endpoint"]
    app = run_python(securing, scope, filename=str(README))["app"]
    assert post(app, "/")[0] == 401
    status, events = post(app, "/", authorization=f"Bearer {TOKEN}")
    assert status == 200 and events[-1]["type"] == "RUN_FINISHED"
    assert TestClient(app).get("/ping").status_code == 200  # health probes stay unauthenticated


def test_invocation_state_snippet_reaches_the_tools(scope: dict[str, Any]) -> None:
    (securing,) = snippets()["Securing the endpoint"]
    (provider,) = snippets()["Request-scoped invocation state"]
    run_python(securing, scope, filename=str(README))
    app = run_python(provider, scope, filename=str(README))["app"]

    @app.middleware("http")
    async def tenant(request: Request, call_next: Any) -> Any:  # the authenticated context upstream assumes
        request.state.tenant_id = "acme"
        return await call_next(request)

    status, events = post(app, "/", authorization=f"Bearer {TOKEN}")
    assert status == 200, events
    results = [json.loads(e["content"]) for e in events if e["type"] == "TOOL_CALL_RESULT"]
    assert results == ["tenant=acme run=run-7"]
    assert post(app, "/")[0] == 401


def test_the_aliases_and_ours_cannot_both_be_given(scope: dict[str, Any]) -> None:
    create = strands_agui.create_strands_app
    with pytest.raises(TypeError, match="cors_origins or its alias origins"):
        create(scope["agui_agent"], cors_origins=["https://a.example"], origins=["https://b.example"])
    with pytest.raises(TypeError, match="health_path or its alias ping_path"):
        create(scope["agui_agent"], health_path="/health", ping_path="/ping")
    with pytest.raises(ValueError, match="wildcard"):
        create(scope["agui_agent"], origins=["*"])
    assert TestClient(create(scope["agui_agent"], ping_path=None)).get("/ping").status_code == 404
