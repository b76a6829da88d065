"""The routes an app has: the health route, authentication by dependency before anything runs, several endpoints on
one app, and CORS (off by default, an allow-list, never a wildcard).

Over real HTTP: uvicorn on 127.0.0.1 (:class:`~tests.support.live.LiveServer`); helpers in ``tests/support/``.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import Depends, FastAPI, Header, HTTPException
from starlette.middleware.cors import CORSMiddleware

from strands_agui.server.app import create_strands_app
from strands_agui.server.endpoint import add_strands_fastapi_endpoint
from strands_agui.tooling.scripted import ScriptedModel, Text
from tests.support.agents import echo_model, last_user_text, strands_agent
from tests.support.live import LiveServer
from tests.support.wire import SSE_HEADERS, parse_sse, post_sse, run_input, text_of

pytestmark = pytest.mark.usefixtures("no_server_errors")


def test_health_route(echo_server: LiveServer) -> None:
    response = httpx.get(echo_server.url + "/ping")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_health_route_is_optional_and_movable() -> None:
    app = create_strands_app(strands_agent(echo_model()), "/agent", health_path=None)
    assert {route.path for route in app.routes} & {"/ping", "/healthz"} == set()
    app = create_strands_app(strands_agent(echo_model()), "/agent", health_path="/healthz")
    assert "/healthz" in {route.path for route in app.routes}


def test_dependencies_authenticate_before_anything_runs() -> None:
    calls: list[str] = []

    def verify(authorization: str | None = Header(default=None)) -> None:
        if authorization != "Bearer good":
            raise HTTPException(status_code=401, detail="bad token")

    def model_script(messages: list[dict[str, Any]]) -> list[Text]:
        calls.append(last_user_text(messages))
        return [Text("ok")]

    app = create_strands_app(strands_agent(ScriptedModel(model_script)), dependencies=[Depends(verify)])
    with LiveServer(app) as server:
        denied = post_sse(server.url + "/", run_input("nope"))
        not_acceptable = post_sse(server.url + "/", run_input(), {"Accept": "application/json"})
        allowed = post_sse(server.url + "/", run_input("yes"), {**SSE_HEADERS, "Authorization": "Bearer good"})
        health = httpx.get(server.url + "/ping")
    assert denied.status_code == 401 and denied.json() == {"detail": "bad token"}
    assert not_acceptable.status_code == 401  # authentication is checked first
    assert allowed.status_code == 200
    assert health.status_code == 200  # the health route is not behind the agent's dependencies
    assert calls == ["yes"]


def test_several_endpoints_on_one_app() -> None:
    app = FastAPI()
    add_strands_fastapi_endpoint(app, strands_agent(echo_model()), "/a", name="agent_a")
    add_strands_fastapi_endpoint(app, strands_agent(ScriptedModel(lambda m: [Text("bee")])), "/b")
    assert app.url_path_for("agent_a") == "/a"
    with LiveServer(app) as server:
        a = post_sse(server.url + "/a", run_input("A"))
        b = post_sse(server.url + "/b", run_input("B"))
    assert text_of(parse_sse(a.content)[0]) == "echo A"
    assert text_of(parse_sse(b.content)[0]) == "bee"
    operation = app.openapi()["paths"]["/a"]["post"]
    assert {"200", "406", "413", "415", "422"} <= set(operation["responses"])
    assert operation["requestBody"]["required"] is True


def test_no_cors_middleware_by_default() -> None:
    app = create_strands_app(strands_agent(echo_model()))
    assert not any(m.cls is CORSMiddleware for m in app.user_middleware)


def test_cors_allows_exactly_the_listed_origins() -> None:
    app = create_strands_app(strands_agent(echo_model()), cors_origins=["http://localhost:3000"])
    [cors] = [m for m in app.user_middleware if m.cls is CORSMiddleware]
    assert cors.kwargs["allow_origins"] == ["http://localhost:3000"]
    preflight = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}
    with LiveServer(app) as server:
        ok = httpx.options(server.url + "/", headers={"Origin": "http://localhost:3000", **preflight})
        evil = httpx.options(server.url + "/", headers={"Origin": "http://evil.example", **preflight})
        run = post_sse(server.url + "/", run_input(), {**SSE_HEADERS, "Origin": "http://localhost:3000"})
    assert ok.status_code == 200
    assert ok.headers["access-control-allow-origin"] == "http://localhost:3000"
    assert evil.status_code == 400 and "access-control-allow-origin" not in evil.headers
    assert run.headers["access-control-allow-origin"] == "http://localhost:3000"


def test_cors_wildcard_is_refused() -> None:
    with pytest.raises(ValueError, match="wildcard"):
        create_strands_app(strands_agent(echo_model()), cors_origins=["*"])


def test_the_heap_built_at_startup_is_frozen_while_the_app_serves() -> None:
    """After the app's own lifespan has started (its objects included), ``gc.freeze()``: the collections runs
    trigger no longer scan the startup heap; after shutdown, ``gc.unfreeze()``. Two endpoints wrap it once."""
    import contextlib
    import gc

    from fastapi.testclient import TestClient

    seen: list[int] = []

    @contextlib.asynccontextmanager
    async def own(_app: FastAPI) -> Any:
        seen.append(gc.get_freeze_count())  # the app's startup runs before the freeze
        yield

    app = FastAPI(lifespan=own)
    served = strands_agent(ScriptedModel([[Text("hi")]]))
    add_strands_fastapi_endpoint(app, served, "/a")
    add_strands_fastapi_endpoint(app, served, "/b")
    gc.unfreeze()
    with TestClient(app) as client:
        assert seen == [0]
        assert gc.get_freeze_count() > 0
        assert client.post("/a", json={"threadId": "t", "runId": "r", "messages": []},
                           headers={"Accept": "text/event-stream"}).status_code == 200
    assert gc.get_freeze_count() == 0
