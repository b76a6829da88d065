"""Media a client sends: every user part reaches the model as Strands content, or the request is refused (422
naming the part) — never dropped; and the capabilities document says exactly what is served (checked here against
the server's behaviour). URL fetching itself: ``tests/server/request/test_media.py``."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from fastapi.testclient import TestClient
from strands import Agent

from strands_agui import StrandsAgent, create_strands_app
from strands_agui.server.request.negotiation import produced_media_types
from strands_agui.server.transport.proto import PROTO_MEDIA_TYPE
from strands_agui.tooling.scripted import ScriptedModel, Text
from tests.support.wire import PNG, SSE_HEADERS, body, user

CLIP = base64.b64encode(b"\x00\x00\x00\x18ftypmp42 not really a video").decode()
SOUND = base64.b64encode(b"RIFF\x24\x00\x00\x00WAVEfmt not really a sound").decode()
PDF = base64.b64encode(b"%PDF-1.4 not really a pdf").decode()
ZIP = base64.b64encode(b"PK\x03\x04 not really a zip").decode()


class Recorder:
    """A scripted agent that keeps the messages its model was sent."""

    def __init__(self) -> None:
        self.sent: list[list[dict[str, Any]]] = []

    def app(self, **options: Any) -> TestClient:
        def turn(messages: list[dict[str, Any]]) -> list[Any]:
            self.sent.append(messages)
            return [Text("seen")]
        agent = StrandsAgent(lambda _input: Agent(model=ScriptedModel(turn), callback_handler=None), name="media")
        return TestClient(create_strands_app(agent, **options))

    def post(self, *parts: dict[str, Any], **options: Any) -> Any:
        content = [{"type": "text", "text": "look"}, *parts]
        return self.app(**options).post("/", json=body(messages=[user(content)]), headers=SSE_HEADERS)

    def prompt(self) -> list[dict[str, Any]]:
        [message] = [m for m in self.sent[-1] if m["role"] == "user"]
        return list(message["content"])


def part(kind: str, value: str, mime: str, source: str = "data") -> dict[str, Any]:
    return {"type": kind, "source": {"type": source, "value": value, "mimeType": mime}}


def refusal(response: Any) -> tuple[list[Any], str]:
    assert response.status_code == 422, response.text
    [error] = response.json()["detail"]
    return error["loc"], str(error["msg"])


@pytest.mark.parametrize(("kind", "mime", "fmt"), [
    ("video", "video/mp4", "mp4"), ("video", "video/quicktime", "mov"), ("video", "video/webm", "webm"),
    ("video", "video/3gpp", "three_gp"), ("audio", "audio/wav", "wav"), ("audio", "audio/mpeg", "mp3"),
    ("audio", "audio/ogg", "ogg"), ("audio", "audio/flac", "flac"),
])
def test_video_and_audio_parts_reach_the_model_as_strands_content(kind: str, mime: str, fmt: str) -> None:
    value = CLIP if kind == "video" else SOUND
    recorder = Recorder()
    response = recorder.post(part(kind, value, mime))
    assert response.status_code == 200 and '"RUN_FINISHED"' in response.text
    media = {kind: {"format": fmt, "source": {"bytes": base64.b64decode(value)}}}
    assert recorder.prompt() == [{"text": "look"}, media]


@pytest.mark.parametrize(("kind", "mime"), [("video", "video/x-msvideo"), ("audio", "audio/midi"),
                                             ("video", "image/png"), ("audio", "video/mp4")])
def test_an_unsupported_video_or_audio_type_is_refused_naming_the_part(kind: str, mime: str) -> None:
    recorder = Recorder()
    loc, message = refusal(recorder.post(part(kind, CLIP, mime)))
    assert loc == ["body", "messages", 0, "content", 1, "source", "mimeType"]
    assert f"unsupported {kind} type {mime!r}" in message
    assert recorder.sent == []


def test_invalid_base64_video_is_refused() -> None:
    loc, message = refusal(Recorder().post(part("video", "!!!", "video/mp4")))
    assert loc == ["body", "messages", 0, "content", 1, "source", "value"] and message == "not valid base64 data"


@pytest.mark.parametrize("kind", ["image", "document", "video", "audio"])
def test_a_provider_file_handle_is_refused_not_dropped(kind: str) -> None:
    loc, message = refusal(Recorder().post(part(kind, "file-abc123", "application/pdf", source="file")))
    assert loc == ["body", "messages", 0, "content", 1, "source"]
    assert "provider file handles are not resolved by this server" in message


def test_a_video_url_is_refused_while_fetch_media_is_off() -> None:
    loc, message = refusal(Recorder().post(part("video", "https://media.example/clip.mp4", "video/mp4", "url")))
    assert loc == ["body", "messages", 0, "content", 1, "source"] and "fetch_media is off" in message


def tool_round(content: Any) -> dict[str, Any]:
    return body(messages=[
        user("draw it"),
        {"id": "a-1", "role": "assistant", "toolCalls": [
            {"id": "c-1", "type": "function", "function": {"name": "render", "arguments": "{}"}}]},
        {"id": "t-1", "role": "tool", "toolCallId": "c-1", "content": content}])


def test_media_in_a_clients_tool_result_reaches_the_model_as_tool_result_content() -> None:
    recorder = Recorder()
    content = [{"type": "text", "text": "rendered"}, part("image", PNG, "image/png"),
               part("document", PDF, "application/pdf")]
    response = recorder.app().post("/", json=tool_round(content), headers=SSE_HEADERS)
    assert response.status_code == 200, response.text
    [result] = [b["toolResult"] for m in recorder.sent[-1] for b in m["content"] if "toolResult" in b]
    assert result["content"] == [
        {"text": "rendered"}, {"image": {"format": "png", "source": {"bytes": base64.b64decode(PNG)}}},
        {"document": {"format": "pdf", "name": "document-3", "source": {"bytes": base64.b64decode(PDF)}}}]


@pytest.mark.parametrize(("kind", "mime"), [("video", "video/mp4"), ("audio", "audio/wav")])
def test_video_or_audio_in_a_tool_result_is_refused_strands_results_cannot_hold_it(kind: str, mime: str) -> None:
    response = Recorder().app().post("/", json=tool_round([part(kind, CLIP, mime)]), headers=SSE_HEADERS)
    loc, message = refusal(response)
    assert loc == ["body", "messages", 2, "content", 0]
    assert f"a tool result cannot carry {kind}" in message


# -- the capabilities document against the server's behaviour ---------------------------------------------------

INPUT_KINDS = {  # AG-UI MultimodalInputCapabilities field -> a part of that kind, and the block the model gets
    "image": (part("image", PNG, "image/png"), "image"),
    "audio": (part("audio", SOUND, "audio/wav"), "audio"),
    "video": (part("video", CLIP, "video/mp4"), "video"),
    "pdf": (part("document", PDF, "application/pdf"), "document"),
    "file": (part("document", ZIP, "application/zip"), "document"),
}


def test_the_capabilities_document_states_exactly_what_is_served() -> None:
    from ag_ui.core import MultimodalInputCapabilities

    assert set(INPUT_KINDS) == set(MultimodalInputCapabilities.model_fields)  # every kind the schema names
    recorder = Recorder()
    client = recorder.app()
    declared = client.get("/capabilities").json()
    inputs = declared["multimodal"]["input"]
    for kind, (media, block) in INPUT_KINDS.items():
        response = recorder.post(media)
        if inputs.get(kind):
            assert response.status_code == 200, (kind, response.text)
            assert block in recorder.prompt()[-1], kind  # it reached the model
        else:
            assert response.status_code == 422, (kind, response.text)
    proto = client.post("/", json=body(), headers={**SSE_HEADERS, "Accept": PROTO_MEDIA_TYPE})
    assert declared["transport"].get("httpBinary", False) is (PROTO_MEDIA_TYPE in produced_media_types())
    assert (proto.status_code == 200) is declared["transport"].get("httpBinary", False)
    assert declared["transport"]["streaming"] is True and "resumable" not in declared["transport"]
    assert client.get("/threads").json()["threads"] == [] and not declared["state"].get("persistentState")


def test_resumable_and_threads_are_declared_when_served(tmp_path: Any) -> None:
    from strands_agui.runtime.storage.sessions import FileSessions

    client = Recorder().app(resumable=True, threads=True, sessions=FileSessions(tmp_path))
    declared = client.get("/capabilities").json()
    assert declared["transport"]["resumable"] is True and declared["state"]["persistentState"] is True
    response = client.post("/", json=body(), headers=SSE_HEADERS)
    assert response.status_code == 200 and "id: " in response.text  # resumable: each event numbered
    assert [t["threadId"] for t in client.get("/threads").json()["threads"]] == ["t-1"]  # kept on the server
