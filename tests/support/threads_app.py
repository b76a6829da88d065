"""Server-side threads behind bearer tokens (``strands-agui serve --app tests.support.threads_app:app``; threads on when
``$STRANDS_AGUI_THREADS`` is set, ``serve --threads``): ``/chat`` answers with every user message the model read,
so a test sees the history the model got; ``/human_in_the_loop`` is the example (pauses on every booking)."""

from __future__ import annotations

from fastapi import FastAPI
from strands import Agent
from strands.types.content import Messages

from strands_agui import StrandsAgent
from strands_agui.examples.human_in_the_loop import build_agent
from strands_agui.server.app import add_ping
from strands_agui.server.endpoint import add_strands_fastapi_endpoint
from strands_agui.tooling.scripted import ScriptedModel, Text, Turn
from tests.support.principal_app import principal


def read_back(messages: Messages) -> Turn:
    """What the model read: every user text, in order."""
    texts = [b["text"] for m in messages if m["role"] == "user" for b in m["content"] if "text" in b]
    return [Text("read: " + " | ".join(texts))]


chat = StrandsAgent(Agent(model=ScriptedModel(read_back), callback_handler=None), name="chat")
app = FastAPI()
add_ping(app)
add_strands_fastapi_endpoint(app, chat, "/chat", auth=principal)
add_strands_fastapi_endpoint(app, build_agent(), "/human_in_the_loop", auth=principal)
