"""Opt-in fetching of media parts given by URL (``fetch_media=MediaFetchPolicy(...)``, ``server/request/media.py``).

What these tests prove, and what they cannot: no test reaches beyond loopback. The refusals are proven on the
address check itself (it runs before any connection: a loopback listener records none for loopback URLs; for
10.x, 169.254.169.254 and the like the 422 names the check that refused them). Names are resolved through the
resolver seam (``media.resolve``) where a test needs a name to point somewhere; that replaces DNS, not the
check of its answer. The fetches that succeed go to a loopback server the policy exempts explicitly
(``exempt_networks=("127.0.0.1/32",)``), the same switch a deployment uses for a trusted internal media host:
they prove the fetch path (the connection to the checked address, redirects re-checked, size, content type),
not that a public host is reachable.
"""

from __future__ import annotations

import base64
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from fastapi.testclient import TestClient
from strands import Agent

from strands_agui import MediaFetchPolicy, StrandsAgent, create_strands_app
from strands_agui.server.request import media
from strands_agui.tooling.scripted import ScriptedModel, Text
from tests.support.wire import PNG, SSE_HEADERS, body, user

PNG_BYTES = base64.b64decode(PNG)
LOOPBACK = MediaFetchPolicy(schemes=frozenset({"http"}), exempt_networks=("127.0.0.1/32",), max_bytes=4096,
                            timeout_seconds=5)
ROUTES: dict[str, tuple[int, dict[str, str], bytes]] = {
    "/cat.png": (200, {"Content-Type": "image/png"}, PNG_BYTES),
    "/big.png": (200, {"Content-Type": "image/png"}, PNG_BYTES + b"\0" * 5000),
    "/gif.png": (200, {"Content-Type": "image/gif"}, b"GIF89a" + b"\0" * 10),
    "/fake.png": (200, {"Content-Type": "image/png"}, b"<html>not a png</html>"),
    "/notes.txt": (200, {"Content-Type": "text/plain; charset=utf-8"}, b"meeting notes"),
    "/clip.mp4": (200, {"Content-Type": "video/mp4"}, b"\0\0\0\x18ftypmp42"),
    "/voice.wav": (200, {"Content-Type": "audio/wav"}, b"RIFF\0\0\0\0WAVE"),
    "/unsized.png": (200, {"Content-Type": "image/png"}, PNG_BYTES + b"\0" * 5000),
    "/to-metadata": (302, {"Location": "http://169.254.169.254/latest/meta-data/"}, b""),
    "/to-cat": (302, {"Location": "/cat.png"}, b""),
    "/missing": (404, {"Content-Type": "text/plain"}, b"no"),
}


class MediaServer:
    """A loopback HTTP server serving ``ROUTES``; records the path and Host of every request it got."""

    def __init__(self) -> None:
        seen = self.seen = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                seen.append((self.path, self.headers.get("Host")))
                if self.path == "/slow.png":
                    time.sleep(1.5)
                status, headers, payload = ROUTES.get(self.path, ROUTES["/missing"])
                self.send_response(status)
                sized = {} if self.path == "/unsized.png" else {"Content-Length": str(len(payload))}
                for key, value in {**headers, **sized}.items():
                    self.send_header(key, value)
                self.end_headers()
                try:
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the fetch stopped reading (a size or time limit): what those tests check

            def log_message(self, *_: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"


@pytest.fixture(scope="module")
def server() -> Iterator[MediaServer]:
    served = MediaServer()
    served.thread.start()
    yield served
    served.httpd.shutdown()
    served.httpd.server_close()


@pytest.fixture()
def seen(server: MediaServer) -> list[tuple[str, str]]:
    server.seen.clear()
    return server.seen


class Model:
    """A scripted agent that keeps the messages its model was sent."""

    def __init__(self) -> None:
        self.sent: list[list[dict[str, Any]]] = []

    def agent(self) -> StrandsAgent:
        def turn(messages: list[dict[str, Any]]) -> list[Any]:
            self.sent.append(messages)
            return [Text("seen")]
        return StrandsAgent(lambda _input: Agent(model=ScriptedModel(turn), callback_handler=None), name="media")


def post(policy: MediaFetchPolicy | None, *parts: dict[str, Any], model: Model | None = None) -> Any:
    app = create_strands_app((model or Model()).agent(), fetch_media=policy)
    content = [{"type": "text", "text": "look"}, *parts]
    return TestClient(app).post("/", json=body(messages=[user(content)]), headers=SSE_HEADERS)


def part(url: str, mime: str | None = "image/png", kind: str = "image") -> dict[str, Any]:
    source = {"type": "url", "value": url, **({"mimeType": mime} if mime else {})}
    return {"type": kind, "source": source}


def refusal(response: Any) -> str:
    assert response.status_code == 422, response.text
    [error] = response.json()["detail"]
    assert error["loc"][:4] == ["body", "messages", 0, "content"]
    return str(error["msg"])


# -- off by default; the scheme ------------------------------------------------------------------------------

def test_without_a_policy_a_url_part_is_refused_and_not_fetched(server: MediaServer, seen: list[Any]) -> None:
    for kind in ("image", "document", "video", "audio"):
        assert "fetch_media is off" in refusal(post(None, part(server.url("/cat.png"), kind=kind)))
    assert seen == []


def test_http_is_refused_unless_the_policy_lists_it(server: MediaServer, seen: list[Any]) -> None:
    policy = MediaFetchPolicy(exempt_networks=("127.0.0.1/32",))  # https only, the default
    assert "scheme 'http' is not fetched; allowed: https" in refusal(post(policy, part(server.url("/cat.png"))))
    assert "scheme 'file'" in refusal(post(policy, part("file:///etc/passwd")))
    assert seen == []


# -- addresses that are never fetched --------------------------------------------------------------------------

ANY_HTTP = MediaFetchPolicy(schemes=frozenset({"http", "https"}))


@pytest.mark.parametrize(("host", "reason"), [
    ("127.0.0.1", "loopback"), ("localhost", "loopback"), ("[::1]", "loopback"), ("10.1.2.3", "private"),
    ("192.168.0.10", "private"), ("172.16.5.4", "private"), ("169.254.169.254", "link-local"),
    ("[fe80::1]", "link-local"), ("[fd00::1]", "private"), ("224.0.0.1", "multicast"), ("0.0.0.0", "unspecified"),
    ("[::ffff:127.0.0.1]", "loopback"), ("[2002:7f00:1::]", "loopback"), ("100.64.0.1", "non-global"),
    ("240.0.0.1", "private"),
])
def test_private_loopback_and_link_local_addresses_are_refused(host: str, reason: str, server: MediaServer,
                                                              seen: list[Any]) -> None:
    message = refusal(post(ANY_HTTP, part(f"http://{host}:{server.port}/cat.png")))
    assert f"a {reason} address; it is not fetched" in message
    assert seen == []  # the loopback server (the only one these tests can observe) got no request


def test_a_name_is_refused_when_any_of_its_addresses_is(monkeypatch: pytest.MonkeyPatch, server: MediaServer,
                                                       seen: list[Any]) -> None:
    answers = {"media.example": ["127.0.0.1"], "mixed.example": ["93.184.215.14", "10.0.0.7"]}

    async def resolver(host: str, _port: int) -> list[str]:
        return answers[host]
    monkeypatch.setattr(media, "resolve", resolver)
    assert "media.example is 127.0.0.1, a loopback" in refusal(post(ANY_HTTP, part(
        server.url("/cat.png", "media.example"))))
    assert "mixed.example is 10.0.0.7, a private" in refusal(post(ANY_HTTP, part(
        server.url("/cat.png", "mixed.example"))))
    assert seen == []


def test_a_redirect_to_a_refused_address_is_not_followed(server: MediaServer, seen: list[Any]) -> None:
    message = refusal(post(LOOPBACK, part(server.url("/to-metadata"))))
    assert "169.254.169.254 is 169.254.169.254, a link-local address" in message
    assert [path for path, _ in seen] == ["/to-metadata"]


def test_hosts_outside_allowed_hosts_are_refused(server: MediaServer, seen: list[Any]) -> None:
    policy = MediaFetchPolicy(schemes=frozenset({"http"}), allowed_hosts=frozenset({"media.example"}),
                              exempt_networks=("127.0.0.1/32",))
    assert "host '127.0.0.1' is not in allowed_hosts" in refusal(post(policy, part(server.url("/cat.png"))))
    assert seen == []


# -- what an allowed fetch checks ---------------------------------------------------------------------------

def test_an_allowed_image_reaches_the_model_as_its_bytes(server: MediaServer, seen: list[Any]) -> None:
    model = Model()
    response = post(LOOPBACK, part(server.url("/cat.png")), model=model)
    assert response.status_code == 200 and '"RUN_FINISHED"' in response.text
    [prompt] = [m for m in model.sent[0] if m["role"] == "user"]
    assert prompt["content"][1] == {"image": {"format": "png", "source": {"bytes": PNG_BYTES}}}
    assert seen == [("/cat.png", f"127.0.0.1:{server.port}")]


@pytest.mark.parametrize(("path", "kind", "fmt"), [("/clip.mp4", "video", "mp4"), ("/voice.wav", "audio", "wav")])
def test_an_allowed_video_or_audio_reaches_the_model_as_its_bytes(path: str, kind: str, fmt: str,
                                                                 server: MediaServer, seen: list[Any]) -> None:
    model = Model()
    response = post(LOOPBACK, part(server.url(path), mime=None, kind=kind), model=model)
    assert response.status_code == 200 and '"RUN_FINISHED"' in response.text
    [prompt] = [m for m in model.sent[0] if m["role"] == "user"]
    assert prompt["content"][1] == {kind: {"format": fmt, "source": {"bytes": ROUTES[path][2]}}}
    assert [p for p, _ in seen] == [path]


def test_a_video_url_serving_another_type_is_refused(server: MediaServer) -> None:
    message = refusal(post(LOOPBACK, part(server.url("/cat.png"), mime=None, kind="video")))
    assert "the URL served image/png, not a video type (video/x-flv" in message


def test_the_connection_goes_to_the_checked_address_with_the_name_kept(
        monkeypatch: pytest.MonkeyPatch, server: MediaServer, seen: list[Any]) -> None:
    """``media.test`` exists only in the resolver seam: the request still arrives, so the client connected to
    the address that was checked (not to a second lookup of the name), and the name is in ``Host``."""
    async def resolver(host: str, _port: int) -> list[str]:
        return ["127.0.0.1"] if host == "media.test" else []
    monkeypatch.setattr(media, "resolve", resolver)
    model = Model()
    response = post(LOOPBACK, part(server.url("/to-cat", "media.test")), model=model)
    assert response.status_code == 200, response.text
    assert seen == [("/to-cat", f"media.test:{server.port}"), ("/cat.png", f"media.test:{server.port}")]
    assert model.sent[0][-1]["content"][1]["image"]["source"]["bytes"] == PNG_BYTES


def test_a_document_is_fetched_with_its_type(server: MediaServer) -> None:
    model = Model()
    response = post(LOOPBACK, part(server.url("/notes.txt"), mime=None, kind="document"), model=model)
    assert response.status_code == 200, response.text
    document = model.sent[0][-1]["content"][1]["document"]
    assert document["format"] == "txt" and document["source"]["bytes"] == b"meeting notes"


@pytest.mark.parametrize(("path", "mime", "said"), [
    ("/big.png", "image/png", f"is {len(PNG_BYTES) + 5000} bytes; at most 4096 (max_bytes)"),
    ("/unsized.png", "image/png", "is over 4096 bytes (max_bytes)"),  # no Content-Length: counted while read
    ("/gif.png", "image/png", "the URL served image/gif, the part says image/png"),
    ("/fake.png", "image/png", "the URL served bytes that are not image/png"),
    ("/notes.txt", None, "the URL served text/plain, not an image/png, jpeg, gif or webp"),
    ("/missing", "image/png", "answered HTTP 404"),
])
def test_what_the_url_serves_must_be_what_the_part_says(server: MediaServer, path: str, mime: str | None,
                                                        said: str) -> None:
    assert said in refusal(post(LOOPBACK, part(server.url(path), mime=mime)))


def test_a_slow_url_is_refused_after_the_timeout(server: MediaServer) -> None:
    policy = MediaFetchPolicy(schemes=frozenset({"http"}), exempt_networks=("127.0.0.1/32",), timeout_seconds=0.2)
    assert "took longer than 0.2 s" in refusal(post(policy, part(server.url("/slow.png"))))


def test_a_request_may_name_at_most_max_urls(server: MediaServer, seen: list[Any]) -> None:
    policy = MediaFetchPolicy(schemes=frozenset({"http"}), exempt_networks=("127.0.0.1/32",), max_urls=2)
    response = post(policy, *[part(server.url("/cat.png"))] * 3)
    assert "3 URL parts; at most 2 (max_urls)" in refusal(response)
    assert seen == []


def test_a_policy_is_checked_when_it_is_built() -> None:
    for bad in ({"schemes": frozenset({"ftp"})}, {"max_bytes": 0}, {"timeout_seconds": 0},
                {"exempt_networks": ("not a network",)}):
        with pytest.raises(ValueError):
            MediaFetchPolicy(**bad)


def test_a_document_sent_as_data_reaches_the_model_and_an_unknown_type_is_refused() -> None:
    model = Model()
    data = {"type": "document", "source": {"type": "data", "value": base64.b64encode(b"a,b\n1,2").decode(),
                                           "mimeType": "text/csv"}}
    assert post(None, data, model=model).status_code == 200
    assert model.sent[0][-1]["content"][1]["document"] == {"format": "csv", "name": "document-2",
                                                          "source": {"bytes": b"a,b\n1,2"}}
    data["source"]["mimeType"] = "application/x-msdownload"
    assert "unsupported document type 'application/x-msdownload'" in refusal(post(None, data))


@pytest.mark.parametrize("url", ["http://[::1", "http://127.0.0.1:99999/x", "http:///x",
                                 f"http://{'a' * 70}.invalid/", "http://user:pw@127.0.0.1/x"])  # none is resolved
def test_a_url_that_is_not_one_is_a_422_not_a_server_error(url: str) -> None:
    for policy in (None, ANY_HTTP):
        refusal(post(policy, part(url)))
