"""One settings object for the endpoint and the app (server/settings.py): ``settings=`` serves the same as the
keywords it replaces, a keyword overrides its field, the signatures list every field with the settings'
default, and a mistake is refused when the app is built."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from strands import Agent

from strands_agui import AppSettings, EndpointSettings, StrandsAgent, add_strands_fastapi_endpoint, create_strands_app
from strands_agui.server.settings import AppOptions, EndpointOptions
from strands_agui.tooling.scripted import ScriptedModel, Text
from tests.support.wire import SSE_HEADERS, body, user

ORIGIN = "https://app.example"


def agent() -> StrandsAgent:
    return StrandsAgent(Agent(model=ScriptedModel([[Text("ok")]] * 5), callback_handler=None), name="settled")


def three_messages() -> dict[str, Any]:
    return body(messages=[user("a") | {"id": f"u{i}"} for i in range(3)])


def test_an_app_built_from_settings_serves_as_the_keywords_do() -> None:
    settings = AppSettings(max_messages=2, cors_origins=[ORIGIN], health_path="/healthz", api_docs=False)
    client = TestClient(create_strands_app(agent(), settings=settings))
    assert "at most 2 (max_messages)" in client.post("/", json=three_messages(), headers=SSE_HEADERS).text
    response = client.post("/", json=body(), headers={**SSE_HEADERS, "Origin": ORIGIN})
    assert response.status_code == 200 and response.headers["access-control-allow-origin"] == ORIGIN
    assert "RUN_FINISHED" in response.text
    assert client.get("/healthz").json() == {"status": "ok"} and client.get("/ping").status_code == 404
    assert client.get("/openapi.json").status_code == 404


def test_a_keyword_overrides_its_field_of_the_settings() -> None:
    client = TestClient(create_strands_app(agent(), settings=AppSettings(max_messages=2), max_messages=3))
    assert client.post("/", json=three_messages(), headers=SSE_HEADERS).status_code == 200
    assert "at most 2" in TestClient(create_strands_app(agent(), settings=AppSettings(max_messages=2))).post(
        "/", json=three_messages(), headers=SSE_HEADERS).text


def test_an_endpoint_takes_the_same_settings() -> None:
    app = FastAPI()
    add_strands_fastapi_endpoint(app, agent(), "/run", settings=EndpointSettings(max_messages=2, name="runner"))
    client = TestClient(app)
    assert "at most 2 (max_messages)" in client.post("/run", json=three_messages(), headers=SSE_HEADERS).text
    assert {route.name for route in app.routes} >= {"runner", "runner_capabilities"}  # type: ignore[attr-defined]


@pytest.mark.parametrize("function", [add_strands_fastapi_endpoint, create_strands_app])
def test_an_unknown_keyword_is_refused_by_name(function: Any) -> None:
    args = (FastAPI(), agent()) if function is add_strands_fastapi_endpoint else (agent(),)
    with pytest.raises(TypeError, match=rf"{function.__name__}\(\) got an unexpected keyword argument 'max_mesages'"):
        function(*args, max_mesages=2)


@pytest.mark.parametrize("bad", [{"keepalive_seconds": 0}, {"coalesce_seconds": float("inf")}, {"max_depth": 201},
                                 {"cors_origins": ["*"]}])
def test_a_bad_setting_is_refused_when_the_settings_are_made(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(bad))):
        AppSettings(**bad)


def test_settings_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        AppSettings().max_messages = 2  # type: ignore[misc]


@pytest.mark.parametrize(("function", "settings", "options"), [
    (add_strands_fastapi_endpoint, EndpointSettings, EndpointOptions),
    (create_strands_app, AppSettings, AppOptions),
])
def test_the_signature_and_the_typed_keywords_list_every_field_with_its_default(
        function: Any, settings: type[EndpointSettings], options: type) -> None:
    parameters = inspect.signature(function).parameters
    fields = {field.name: field.default for field in dataclasses.fields(settings)}
    assert {name: parameters[name].default for name in fields} == fields
    assert options.__required_keys__ | options.__optional_keys__ == set(fields) - {"health_path"}  # its own parameter
