"""Server-side security: CORS allow-list, authentication by dependency (the README's own snippet), API docs that
can be switched off, no file served from outside the package, no URL fetched by default (fetching when enabled:
tests/server/request/test_media.py), and README, OpenAPI and
behaviour agreeing on what is refused and on the limits."""

from __future__ import annotations

import inspect
import re
import socket
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from strands import Agent

from strands_agui import StrandsAgent, add_strands_fastapi_endpoint, create_strands_app
from strands_agui.server.app import without_api_docs
from strands_agui.server.request.validation import RequestLimits
from strands_agui.tooling import cli
from strands_agui.tooling.scripted import ScriptedModel, Text
from tests.support.hostile import CASES
from tests.support.live import LiveServer
from tests.support.paths import REPO
from tests.support.wire import SSE_HEADERS, body, image, user

README = REPO / "docs" / "security.md"  # where the README's security section moved
DOCS = ("/openapi.json", "/docs", "/redoc", "/docs/oauth2-redirect")


def agent(turns: int = 20) -> StrandsAgent:
    return StrandsAgent(Agent(model=ScriptedModel([[Text("ok")]] * turns), callback_handler=None), name="secure")


def readme_table(name: str) -> list[list[str]]:
    text = README.read_text(encoding="utf-8")
    block = text.split(f"<!-- {name}:start -->")[1].split(f"<!-- {name}:end -->")[0]
    rows = [line.strip().strip("|").split("|") for line in block.strip().splitlines()[2:]]
    return [[cell.strip().strip("`") for cell in row] for row in rows]


# ----------------------------------------------------------------------------------------- CORS


@pytest.mark.parametrize("method", ["OPTIONS", "POST"])
def test_cors_is_an_allow_list_without_credentials(method: str) -> None:
    client = TestClient(create_strands_app(agent(), cors_origins=["https://app.example"]))
    preflight = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}
    for origin, allowed in [("https://app.example", True), ("https://evil.example", False), ("null", False),
                            ("https://app.example.evil.example", False)]:
        headers = {"Origin": origin, "Cookie": "session=1", **(preflight if method == "OPTIONS" else SSE_HEADERS)}
        response = client.request(method, "/", headers=headers, json=body() if method == "POST" else None)
        assert response.headers.get("access-control-allow-origin") == (origin if allowed else None), origin
        assert "access-control-allow-credentials" not in response.headers
        assert response.headers.get("access-control-allow-origin") != "*"


def test_no_cors_unless_origins_are_listed() -> None:
    client = TestClient(create_strands_app(agent()))
    response = client.post("/", json=body(), headers={**SSE_HEADERS, "Origin": "https://app.example"})
    assert response.status_code == 200
    assert "access-control-allow-origin" not in response.headers


def test_a_cors_wildcard_is_refused() -> None:
    with pytest.raises(ValueError, match="wildcard"):
        create_strands_app(agent(), cors_origins=["https://app.example", "*"])


# ----------------------------------------------------------------------------------------- authentication


def readme_auth_app() -> FastAPI:
    """The README's authentication snippet, run as written, on a scripted agent."""
    text = README.read_text(encoding="utf-8").split("**Authentication**")[1]
    code = inspect.cleandoc(text.split("```python")[1].split("```")[0])
    namespace: dict[str, Any] = {"agent": agent(), "add_strands_fastapi_endpoint": add_strands_fastapi_endpoint}
    exec(compile(code, "docs/security.md", "exec"), namespace)  # noqa: S102 - the documented snippet itself
    return namespace["app"]


def test_readme_authentication_dependency_refuses_before_any_run() -> None:
    client = TestClient(readme_auth_app())
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret"}):
        response = client.post("/weather", json=body(), headers={**SSE_HEADERS, **headers})
        assert response.status_code == 401
        assert response.json() == {"detail": "missing or wrong bearer token"}
    ok = client.post("/weather", json=body(), headers={**SSE_HEADERS, "Authorization": "Bearer s3cret"})
    assert ok.status_code == 200
    assert '"type":"RUN_FINISHED"' in ok.text


def test_authentication_runs_before_semantic_validation() -> None:
    """An unauthenticated caller learns nothing about the run input's content rules."""
    client = TestClient(readme_auth_app())
    bad = body(messages=[user([image("!!!")])])
    assert client.post("/weather", json=bad, headers=SSE_HEADERS).status_code == 401
    authorized = {**SSE_HEADERS, "Authorization": "Bearer s3cret"}
    assert client.post("/weather", json=bad, headers=authorized).status_code == 422


# ----------------------------------------------------------------------------------------- API docs


def test_api_docs_are_on_by_default_and_can_be_switched_off() -> None:
    on = TestClient(create_strands_app(agent()))
    off = TestClient(create_strands_app(agent(), api_docs=False))
    for path in DOCS:
        assert on.get(path).status_code == 200, path
        assert off.get(path).status_code == 404, path
    assert off.post("/", json=body(), headers=SSE_HEADERS).status_code == 200


def test_serve_no_docs_removes_the_docs_of_any_app(monkeypatch: pytest.MonkeyPatch) -> None:
    args = cli.parser().parse_args(["serve", "--no-docs", "--workers", "2"])
    assert args.no_docs is True
    monkeypatch.setenv(cli.APP_ENV, cli.DEFAULT_APP)
    examples = TestClient(cli.app_without_docs())  # what each uvicorn worker builds (factory=True)
    for path in DOCS:
        assert examples.get(path).status_code == 404, path
    assert examples.get("/ping").json() == {"status": "ok"}
    plain = FastAPI()
    assert TestClient(without_api_docs(plain)).get("/openapi.json").status_code == 404


# ----------------------------------------------------------------------------------------- files and URLs

TRICKS = ["/../pyproject.toml", "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc%2fpasswd", "/static/../../etc/passwd",
          "//etc/passwd", "/examples/../../README.md", "/%2e%2e%5c%2e%2e%5cpyproject.toml", "/console.html",
          "/static/console.html", "/server/static/console.html", "/.git/config", "/%00", "/..;/pyproject.toml"]


def raw_get(port: int, target: str) -> bytes:
    """A GET with the request target exactly as given (HTTP clients normalise dot segments)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.fixture(scope="module")
def examples_server() -> Iterator[LiveServer]:
    from strands_agui.examples.demo import build_app

    with LiveServer(build_app()) as server:
        yield server


@pytest.mark.parametrize("target", TRICKS)
def test_no_file_outside_the_package_is_served(examples_server: LiveServer, target: str) -> None:
    response = raw_get(examples_server.port, target)
    status = int(response.split(b" ", 2)[1])
    assert status in (400, 404), response[:200]
    for secret in (b"root:", b"[project]", b"[core]", b"# strands-agui", b"<!doctype html"):
        assert secret not in response.lower(), target


class Listener:
    """A loopback socket that records whether anything connected to it."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.2)
        self.connected = threading.Event()
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/cat.png"

    def poll(self) -> None:
        try:
            conn, _ = self.sock.accept()
        except TimeoutError:
            return
        conn.close()
        self.connected.set()


@pytest.mark.parametrize("url_of", [lambda ear: ear.url, lambda ear: ear.url.replace("127.0.0.1", "localhost")])
def test_image_urls_are_refused_and_never_fetched(url_of: Any) -> None:
    ear = Listener()
    client = TestClient(create_strands_app(agent()))
    response = client.post("/", json=body(messages=[user([image(url_of(ear), kind="url")])]), headers=SSE_HEADERS)
    ear.poll()
    ear.sock.close()
    assert response.status_code == 422
    assert "not fetched" in response.text
    assert not ear.connected.is_set()


# ----------------------------------------------------------------------------------------- README = OpenAPI = behaviour


def test_readme_openapi_and_behaviour_agree_on_refusals() -> None:
    documented = {int(row[0]) for row in readme_table("refusals")}
    openapi = TestClient(create_strands_app(agent())).get("/openapi.json").json()
    declared = {int(code) for code in openapi["paths"]["/"]["post"]["responses"] if code.startswith("4")}
    observed = {case.status for case in CASES if case.method == "POST" and case.path == "/"}
    assert documented == declared == observed


def test_readme_and_signatures_agree_on_limits() -> None:
    documented = {row[0]: (int(row[1]), int(row[2])) for row in readme_table("limits")}
    defaults = RequestLimits()
    assert {name: value for name, (value, _) in documented.items()} == vars(defaults)
    for function in (add_strands_fastapi_endpoint, create_strands_app):
        parameters = inspect.signature(function).parameters
        assert {name: parameters[name].default for name in documented} == vars(defaults), function.__name__
    refused_with = {case.says: case.status for case in CASES if case.says in documented}
    assert refused_with == {name: status for name, (_, status) in documented.items()}


def test_openapi_says_every_message_needs_its_role() -> None:
    schemas = TestClient(create_strands_app(agent())).get("/openapi.json").json()["components"]["schemas"]
    messages = [name for name, schema in schemas.items() if "role" in schema.get("properties", {})]
    assert {"UserMessage", "AssistantMessage", "ToolMessage", "SystemMessage"} <= set(messages)
    assert all("role" in schemas[name]["required"] for name in messages)


@pytest.mark.parametrize("limits", [{"max_body_bytes": 0}, {"max_messages": -1}, {"max_depth": 201},
                                    {"max_depth": True}, {"max_messages": 1.5}])
def test_limits_are_checked(limits: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=re.escape(next(iter(limits)))):
        create_strands_app(agent(), **limits)


def test_limits_are_configurable() -> None:
    client = TestClient(create_strands_app(agent(), max_body_bytes=300, max_messages=2, max_depth=4))
    three = body(messages=[user("a") | {"id": f"u{i}"} for i in range(3)])
    assert "at most 2 (max_messages)" in client.post("/", json=three, headers=SSE_HEADERS).text
    assert "max_depth=4" in client.post("/", json=body(state={"a": {"b": {"c": {}}}}), headers=SSE_HEADERS).text
    assert client.post("/", json=body(state={"a": {"b": {}}}), headers=SSE_HEADERS).status_code == 200
    assert "300 bytes" in client.post("/", json=body(state={"pad": "x" * 300}), headers=SSE_HEADERS).text
    assert httpx.codes.is_success(client.post("/", json=body(), headers=SSE_HEADERS).status_code)


def test_the_fast_depth_check_agrees_with_the_walk_that_names_the_problem() -> None:
    """A body is walked for the refusal's path only when the level-by-level count finds it too deep (or a
    ``\\u0000`` escape is in its bytes): both must agree on every shape, mixed lists and objects included."""
    from strands_agui.server.request.validation import _json_problem, _nested_within

    shapes: list[Any] = [1, "s", {}, [], {"a": {}}, [[[]]], {"a": [1, {"b": [2, {"c": None}]}], "d": "x"},
                         [{"a": []}, [[[]], 1], {}], {"deep": [[[[[[[[{}]]]]]]]]}]
    for shape in shapes:
        for limit in range(1, 12):
            assert _nested_within(shape, limit) == (_json_problem(shape, limit) is None), (shape, limit)
