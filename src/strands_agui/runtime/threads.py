"""Server-side threads (opt-in): what a principal's thread holds, kept between requests, so a request may send
only its new messages and a page can list and restore its threads.

A thread is kept in the session store's backend (:class:`~strands_agui.runtime.sessions.SessionStore`
``threads_repository``: Strands' ``FileSessionManager`` by default, ``S3SessionManager`` for ``s3://``) as one
Strands session per (principal, threadId) whose ``agui`` agent state holds the AG-UI view: the messages as the
client holds them after the run (AG-UI messages, with their ids), the shared state, the pending interrupts, a
title (the first user message) and when it last changed. Each run still rebuilds its Strands conversation from
AG-UI messages (``runtime/conversation.py``), so a stored thread and a client-held one run the same way.

**Policy when the client's history and the stored one disagree: the stored one wins.** The run's messages are
the stored ones, then the client's messages whose ids the thread does not hold (its new turn), in the client's
order; a stored message the client sent changed, or left out, keeps its stored form. The run then starts with a
``MESSAGES_SNAPSHOT`` of those messages, so the client holds what the server holds. Branching is explicit: a
request with ``parentRunId`` whose history ends before the stored one (regenerate: the last assistant turn
dropped; edit: an earlier user message changed) replaces the stored thread from the first message that differs.
State: the client's, when it sends one; else the stored one. Two runs at once on one thread (not paused: a
paused one is held) each keep what they ended with; the later to finish is the thread.
"""

from __future__ import annotations

import base64
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import BaseEvent, MessagesSnapshotEvent, RunAgentInput
from pydantic import BaseModel
from strands.session.session_repository import SessionRepository
from strands.types.exceptions import SessionException
from strands.types.session import Session, SessionAgent, SessionType

from ..core.translator import Translator
from ..errors import RunFailure
from .pause import store_errors
from .sessions import SessionStore, session_id

AGENT_ID = "agui"
TITLE_CHARS = 80
DEFAULT_PAGE = 20
MAX_PAGE = 100


@dataclass
class StoredThread:
    """A principal's thread as the server keeps it."""

    thread_id: str
    principal: str | None
    messages: list[dict[str, Any]] = field(default_factory=list)
    state: Any = None
    interrupts: list[dict[str, Any]] = field(default_factory=list)
    title: str = ""
    updated: float = 0.0

    def summary(self) -> dict[str, Any]:
        """What a thread list shows."""
        return {"threadId": self.thread_id, "title": self.title, "updated": _iso(self.updated),
                "pendingInterrupts": self.interrupts}

    def view(self) -> dict[str, Any]:
        """What a page needs to restore the thread."""
        return {**self.summary(), "messages": self.messages, "state": self.state}


def as_json(message: Any) -> dict[str, Any]:
    """An AG-UI message (model or dict) as the camelCase JSON a client holds."""
    if isinstance(message, BaseModel):
        return message.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dict(message)


class Threads:
    """Load, keep, list and delete principals' threads in ``store`` (see the module docstring)."""

    def __init__(self, store: SessionStore) -> None:
        self.store = store

    @property
    def repository(self) -> SessionRepository:
        return self.store.threads_repository()

    def load(self, thread_id: str, principal: str | None) -> StoredThread | None:
        return self._read(session_id(thread_id, principal))

    def _read(self, sid: str) -> StoredThread | None:
        agent = self.repository.read_agent(sid, AGENT_ID)
        if agent is None:
            return None
        kept = agent.state
        return StoredThread(kept["threadId"], kept.get("principal"), kept.get("messages") or [], kept.get("state"),
                            kept.get("interrupts") or [], kept.get("title") or "", float(kept.get("updated") or 0))

    def keep(self, thread: StoredThread) -> None:
        thread.updated = time.time()
        thread.title = thread.title or _title(thread.messages)
        sid = session_id(thread.thread_id, thread.principal)
        if self.repository.read_session(sid) is None:
            self.repository.create_session(Session(session_id=sid, session_type=SessionType.AGENT))
        state = {"threadId": thread.thread_id, "principal": thread.principal, "messages": thread.messages,
                 "state": thread.state, "interrupts": thread.interrupts, "title": thread.title,
                 "updated": thread.updated}
        self.repository.create_agent(sid, SessionAgent(agent_id=AGENT_ID, state=state, conversation_manager_state={}))

    def delete(self, thread_id: str, principal: str | None) -> bool:
        """Forget the thread (and its pause); False when the principal has no such thread."""
        sid = session_id(thread_id, principal)
        if self.repository.read_agent(sid, AGENT_ID) is None:
            return False
        self.repository.delete_session(sid)  # type: ignore[attr-defined] # File/S3SessionManager have it
        self.store.remove(thread_id, principal)
        return True

    def page(self, principal: str | None, limit: int = DEFAULT_PAGE,
             cursor: str | None = None) -> tuple[list[StoredThread], str | None]:
        """The principal's threads, most recently updated first, ``limit`` at a time from ``cursor``; the next
        cursor (None: no more)."""
        after = _decode(cursor)
        mine = []
        for sid in self.store.thread_session_ids():
            try:
                thread = self._read(sid)
            except SessionException:
                continue
            if thread is not None and thread.principal == principal:
                mine.append(thread)
        mine.sort(key=lambda t: (-t.updated, t.thread_id))
        if after is not None:
            mine = [t for t in mine if (-t.updated, t.thread_id) > (-after[0], after[1])]
        chunk = mine[:limit]
        more = len(mine) > limit
        return chunk, _encode(chunk[-1]) if more and chunk else None


def merged_input(stored: StoredThread | None, input_data: RunAgentInput) -> RunAgentInput:
    """The run's input on a server-side thread (the policy in the module docstring)."""
    if stored is None:
        return input_data
    sent = [as_json(m) for m in input_data.messages]
    kept = stored.messages
    if input_data.parent_run_id is not None:
        kept = kept[:_branch_point(kept, sent)]
    known = {m.get("id") for m in kept}
    messages = [*kept, *(m for m in sent if m.get("id") not in known)]
    state = input_data.state if input_data.state not in (None, {}) else stored.state
    return input_data.model_copy(update={"messages": RunAgentInput.model_validate(
        {"threadId": "t", "runId": "r", "messages": messages}).messages, "state": state})


def _dumped(messages: Sequence[Any]) -> list[dict[str, Any]]:
    return [as_json(m) for m in messages]


def _branch_point(kept: Sequence[dict[str, Any]], sent: Sequence[dict[str, Any]]) -> int:
    """How many stored messages a branching request keeps: up to the first one it changed or left out."""
    for index, message in enumerate(kept):
        if index >= len(sent) or sent[index] != message:
            return index
    return len(kept)


def _title(messages: Sequence[dict[str, Any]]) -> str:
    for message in messages:
        if message.get("role") == "user":
            content = message.get("content")
            text = content if isinstance(content, str) else " ".join(
                str(p.get("text", "")) for p in content or () if isinstance(p, dict))
            return " ".join(text.split())[:TITLE_CHARS]
    return ""


def _iso(stamp: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp))


def _encode(thread: StoredThread) -> str:
    return base64.urlsafe_b64encode(json.dumps([thread.updated, thread.thread_id]).encode()).decode()


def _decode(cursor: str | None) -> tuple[float, str] | None:
    if not cursor:
        return None
    try:
        updated, thread_id = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        return float(updated), str(thread_id)
    except (ValueError, TypeError) as exc:
        raise ValueError("cursor: not a cursor this server gave") from exc


THREADS_ENV = "STRANDS_AGUI_THREADS"  # "1": server-side threads on (``strands-agui serve --threads``)


def threads_enabled(setting: bool | None) -> bool:
    """The adapter's ``threads`` setting; None: ``$STRANDS_AGUI_THREADS`` (``serve --threads``) decides."""
    if setting is not None:
        return setting
    return os.environ.get(THREADS_ENV, "").strip().lower() in ("1", "true", "yes", "on")


class ServerThread:
    """One run's view of its server-side thread: the merged input before, the thread kept after (before the
    terminal event, as a pause is). Inert when ``threads`` is None (threads off)."""

    def __init__(self, threads: Threads | None, input_data: RunAgentInput, principal: str | None) -> None:
        self.threads = threads
        self.sent = input_data
        self.principal = principal
        self.input = input_data

    def open(self) -> RunAgentInput:
        """The run's input (stored history first); raises ``RunRefused("SESSION_ERROR")`` when the store fails."""
        if self.threads is not None:
            with store_errors():
                self.input = merged_input(self.threads.load(self.sent.thread_id, self.principal), self.sent)
        return self.input

    def announce(self) -> list[BaseEvent]:
        """``MESSAGES_SNAPSHOT``s when the run's messages are not the ones the client sent (a resume starts with
        one anyway). A client keeps a snapshot's messages it holds where they are, drops the others it holds and
        appends the rest (``@ag-ui/client``), so when one snapshot would leave the client's order, a first one of
        the messages before the first the client holds comes first: after it, the second appends in order."""
        if self.input.resume or _dumped(self.input.messages) == _dumped(self.sent.messages):
            return []
        messages = list(self.input.messages)
        held = {m.id for m in self.sent.messages}
        ids = [m.id for m in messages]
        once = [i for i in (m.id for m in self.sent.messages) if i in ids] + [i for i in ids if i not in held]
        if once == ids:
            return [MessagesSnapshotEvent(messages=messages)]
        first = next(i for i, m in enumerate(messages) if m.id in held)
        return [MessagesSnapshotEvent(messages=messages[:first]), MessagesSnapshotEvent(messages=messages)]

    def keep(self, translator: Translator) -> RunFailure | None:
        """Store what the client holds after the run: messages, state, pending interrupts."""
        if self.threads is None:
            return None
        thread = StoredThread(self.sent.thread_id, self.principal,
                              [as_json(m) for m in translator.client.snapshot()], translator.shared_state,
                              [as_json(i) for i in translator.interrupts.pending()])
        try:
            self.threads.keep(thread)
        except (OSError, SessionException) as exc:
            return RunFailure("SESSION_ERROR", f"{type(exc).__name__}: {exc}")
        return None
