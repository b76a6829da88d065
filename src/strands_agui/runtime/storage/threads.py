"""Server-side threads (opt-in), their storage: what a principal's thread holds, kept between requests, so a
request may send only its new messages and a page can list and restore its threads (a run on one:
``runtime/server_thread.py``).

A thread is kept in the session store (:class:`~strands_agui.runtime.storage.sessions.SessionStore` ``thread_*``: a
directory, or S3 for ``s3://``) as one JSON record per (principal, threadId), in a folder of the principal's with
an index of its threads (:class:`Threads`): the messages as the client holds them after the run (AG-UI messages,
with their ids), the shared state, the pending interrupts, a title (the first user message) and when it last
changed. Each run still rebuilds its Strands conversation from
AG-UI messages (``runtime/building/conversation.py``), so a stored thread and a client-held one run the same way.

**Policy when the client's history and the stored one disagree: the stored one wins.** The run's messages are
the stored ones, then the client's messages whose ids the thread does not hold (its new turn), in the client's
order; a stored message the client sent changed, or left out, keeps its stored form. The run then starts with a
``MESSAGES_SNAPSHOT`` of those messages, so the client holds what the server holds. Branching is explicit: a
request with ``parentRunId`` whose history ends before the stored one (regenerate: the last assistant turn
dropped; edit: an earlier user message changed) replaces the stored thread from the first message that differs.
State: the client's, when it sends one; else the stored one. A run holds its thread (``Threads.hold``): a second
run on it at once is ``THREAD_BUSY``. A client that holds the thread says so (``forwardedProps.strandsAgui.holds``,
``runtime/server_thread.held_marker``) and gets no snapshot of it. The messages are kept in chunks of ``CHUNK``
(``Threads.keep``): a run writes the chunks it changed and the record naming them, whatever the thread's length.
Where each part lies in the store, and the process's cache of thread messages: ``runtime/storage/thread_layout.py``.
"""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel
from strands.types.exceptions import SessionException

from .sessions import SessionStore, session_id
from .thread_layout import (
    CACHE,
    ENTRY_CLOCK,
    STALE_ENTRY_SECONDS,
    chunk_key,
    cursor_entry,
    entry_of,
    owner_of,
    record_key,
)

AGENT_ID = "agui"
LAYOUT = 2  # a record naming its chunks (layout 1, 0.2: the messages inside the record)
CHUNK = 32  # messages per chunk object: what a run that appends rewrites at most, besides its own messages
DEFAULT_MESSAGES = 50  # a page of messages when ``before`` comes without ``limit``
MAX_MESSAGES = 500
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
    chunks: list[str] = field(default_factory=list)  # the tokens of its chunk objects (layout 2), in order
    count: int = 0  # how many messages it holds (its record says so before its chunks are read)
    last: str | None = None  # the id of its last message
    legacy: bool = False  # read from 0.1.0's layout (a Strands session)
    conversation: dict[str, Any] | None = None  # a conversation manager's summary (``ServerThread.window``)
    traces: dict[str, dict[str, str]] = field(default_factory=dict)  # message id -> the run's {runId, traceId, spanId}
    feedback: list[dict[str, Any]] = field(default_factory=list)  # {messageId, rating, comment?, at}, oldest first

    def summary(self) -> dict[str, Any]:
        """What a thread list shows."""
        return {"threadId": self.thread_id, "title": self.title, "updated": _iso(self.updated),
                "pendingInterrupts": self.interrupts}

    def marker(self) -> dict[str, Any]:
        """What a client holding this thread sends as ``forwardedProps.strandsAgui.holds`` (``HOLDS``)."""
        last = self.messages[-1].get("id") if self.messages else self.last
        return {"lastMessageId": last, "messages": len(self.messages) if self.messages else self.count}

    def view(self, before: str | None = None, limit: int | None = None) -> dict[str, Any]:
        """What a page needs to restore the thread: every message, or with ``limit`` the last ``limit`` before
        the message ``before`` (None: the end) and ``nextBefore``, the id to ask before for the page preceding it
        (None: none). Raises ``ValueError`` naming ``before`` when the thread holds no such message."""
        messages, earlier = self.messages, None
        if before is not None or limit is not None:
            end = len(messages)
            if before is not None:
                end = next((i for i, m in enumerate(messages) if m.get("id") == before), -1)
                if end < 0:
                    raise ValueError(f"before: the thread holds no message {before[:80]!r} (pass a message id "
                                     "of this thread, e.g. the nextBefore of the page before)")
            start = max(0, end - (limit or DEFAULT_MESSAGES))
            messages, earlier = messages[start:end], (messages[start].get("id") if start > 0 else None)
        return {**self.summary(), "messages": messages, "state": self.state, "nextBefore": earlier,
                "holds": self.marker(), "feedback": self.feedback}


def as_json(message: Any) -> dict[str, Any]:
    """An AG-UI message (model or dict) as the camelCase JSON a client holds."""
    if isinstance(message, BaseModel):
        return message.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dict(message)


class Threads:
    """Load, keep, list and delete principals' threads in ``store`` (see the module docstring).

    Layout, under the store's ``threads/`` (a folder per principal, so listing reads the caller's only):

    * ``<owner>/records/<session id>.json``: the thread's record (``owner``: ``anonymous``, or ``u-`` and a digest
      of the principal; the session id is ``session_id(thread_id, principal)``): all but its messages, their
      count and the tokens of its chunks; a record of layout 1 (0.2) holds the messages itself;
    * ``<owner>/chunks/<session id>/<index>-<token>.json``: ``CHUNK`` messages each, never rewritten under a name
      (a keep writes changed chunks under new tokens, publishes the record, then removes the replaced ones);
    * ``<owner>/locks/<session id>``: the hold of the run on the thread (``SessionStore.thread_hold``);
    * ``<owner>/index/<entry>``: one empty object per thread, named ``<16 digits>-<session id>`` where the digits
      fall as the thread's ``updated`` (microseconds) grows, so the folder's own order is "most recently updated
      first". ``keep`` adds the new entry, then writes the record, then removes the old entry: an entry whose
      record says another time is skipped by a list (and removed when it is the older one); a crash leaves the
      thread listed under one of its two entries, never under none.
    * In 0.1.0 a thread was a Strands session ``session_<session id>/agents/agent_agui/agent.json`` directly
      under ``threads/``: it is still read (run, restore, delete), and moved to the new layout by its next run;
      until then it is not listed.
    """

    def __init__(self, store: SessionStore) -> None:
        self.store = store

    def load(self, thread_id: str, principal: str | None) -> StoredThread | None:
        found = self._record(thread_id, principal)
        return found[0] if found is not None else None

    def hold(self, thread_id: str, principal: str | None) -> contextlib.AbstractContextManager[None]:
        """The thread held for one run: a second run on it at once is ``RunRefused("THREAD_BUSY")``."""
        sid = session_id(thread_id, principal)
        return self.store.thread_hold(f"{owner_of(principal)}/locks/{sid}")

    def _record(self, thread_id: str, principal: str | None) -> tuple[StoredThread, bool] | None:
        """The thread with its messages and whether it is still in the old layout (None: the principal has no
        such thread). A chunk removed under a reader (a keep published a newer record meanwhile) rereads."""
        sid = session_id(thread_id, principal)
        owner = owner_of(principal)
        for _attempt in range(3):
            data = self.store.thread_read(record_key(owner, sid))
            if data is None:
                break
            thread = _thread(data)
            if not thread.chunks:
                return thread, False
            messages = self._messages(owner, sid, thread)
            if messages is not None:
                thread.messages = messages
                return thread, False
        else:
            raise SessionException(f"the thread {sid}'s chunks kept changing while it was read")
        legacy = self.store.thread_read(f"session_{sid}/agents/agent_{AGENT_ID}/agent.json")
        if legacy is None:
            return None
        return _thread(legacy, legacy=True), True

    def _messages(self, owner: str, sid: str, thread: StoredThread) -> list[dict[str, Any]] | None:
        """The thread's messages from its chunks (None: one is gone), or from this process' cache of the thread
        when its record names the same chunks (chunk names are never reused: same names, same messages)."""
        key = (id(self.store), owner, sid)
        tag = tuple(thread.chunks)
        cached = CACHE.get(key, tag)
        if cached is not None:
            return cached
        messages: list[dict[str, Any]] = []
        for index, token in enumerate(thread.chunks):
            data = self.store.thread_read(chunk_key(owner, sid, index, token))
            if data is None:
                return None
            try:
                messages.extend(json.loads(data))
            except ValueError as exc:
                raise SessionException(f"a stored thread chunk is corrupt: {exc}") from exc
        del messages[thread.count:]
        CACHE.remember(key, tag, messages)
        return list(messages)

    def keep(self, thread: StoredThread, before: StoredThread | None | bool = True) -> None:
        """Store ``thread``; ``before``: what the store held (as loaded at the run's start, under its hold;
        ``True``: read it now). Writes the chunks from the first one whose messages changed (a run that appends
        rewrites the last chunk and adds the next, whatever the thread's length), then the index entry, then the
        record naming the chunks (the one publishing write: a reader sees the old thread or the new, never a
        mix), then removes the old entry and the chunks the new record no longer names."""
        owner, sid = owner_of(thread.principal), session_id(thread.thread_id, thread.principal)
        if before is True:
            found = self._record(thread.thread_id, thread.principal)
            previous, legacy = found if found is not None else (None, False)
        else:
            previous = before if isinstance(before, StoredThread) else None
            legacy = previous is not None and previous.legacy
        now = round(time.time(), 6)
        thread.updated = max(now, previous.updated + 1e-6) if previous is not None else now
        thread.title = thread.title or _title(thread.messages)
        if previous is not None:  # a run's keep carries what the thread's earlier runs and feedback left
            thread.traces = {**previous.traces, **thread.traces}
            thread.feedback = thread.feedback or previous.feedback
        old_chunks = previous.chunks if previous is not None else []
        first = _common_prefix(previous.messages, thread.messages) // CHUNK if old_chunks and previous else 0
        first = min(first, len(old_chunks))
        chunks = old_chunks[:first]
        for index in range(first, -(-len(thread.messages) // CHUNK)):
            token = uuid.uuid4().hex[:12]
            body = json.dumps(thread.messages[index * CHUNK:(index + 1) * CHUNK]).encode()
            self.store.thread_write(chunk_key(owner, sid, index, token), body)
            chunks.append(token)
        thread.chunks, thread.count = chunks, len(thread.messages)
        thread.last = thread.messages[-1].get("id") if thread.messages else None
        record = {"threadId": thread.thread_id, "principal": thread.principal, "state": thread.state,
                  "interrupts": thread.interrupts, "title": thread.title, "updated": thread.updated,
                  "layout": LAYOUT, "chunks": chunks, "count": thread.count, "last": thread.last,
                  **({"conversation": thread.conversation} if thread.conversation else {}),
                  **({"traces": thread.traces} if thread.traces else {}),
                  **({"feedback": thread.feedback} if thread.feedback else {})}
        entry = entry_of(thread.updated, sid)
        self.store.thread_write(f"{owner}/index/{entry}", b"")
        self.store.thread_write(record_key(owner, sid), json.dumps(record).encode())
        CACHE.remember((id(self.store), owner, sid), tuple(chunks), thread.messages)
        if previous is not None:
            if legacy:
                self.store.thread_delete_folder(f"session_{sid}/")
            elif entry_of(previous.updated, sid) != entry:
                self.store.thread_delete(f"{owner}/index/{entry_of(previous.updated, sid)}")
            for index, token in enumerate(old_chunks[first:], first):  # the replaced ones only
                with contextlib.suppress(OSError, SessionException):
                    self.store.thread_delete(chunk_key(owner, sid, index, token))

    def add_feedback(self, thread_id: str, principal: str | None, entry: dict[str, Any]
                     ) -> tuple[StoredThread, dict[str, str] | None] | None:
        """Keep ``entry`` (``{messageId, rating, comment?}``) with the thread; returns the thread and the trace of
        the run that wrote the message (None: not traced). None: the principal has no such thread. Raises
        ``LookupError`` when the thread holds no assistant message ``messageId``."""
        thread = self.load(thread_id, principal)
        if thread is None:
            return None
        message_id = entry["messageId"]
        if not any(m.get("id") == message_id and m.get("role") == "assistant" for m in thread.messages):
            raise LookupError(f"thread {thread_id!r} holds no assistant message {message_id!r}")
        thread.feedback = [*thread.feedback, {**entry, "at": _iso(time.time())}]
        self.keep(thread)
        return thread, thread.traces.get(message_id)

    def delete(self, thread_id: str, principal: str | None) -> bool:
        """Forget the thread (and its pause); False when the principal has no such thread."""
        owner, sid = owner_of(principal), session_id(thread_id, principal)
        data = self.store.thread_read(record_key(owner, sid))
        if data is None:
            if self.store.thread_read(f"session_{sid}/agents/agent_{AGENT_ID}/agent.json") is None:
                return False
            self.store.thread_delete_folder(f"session_{sid}/")
        else:
            updated = _thread(data).updated
            self.store.thread_delete(record_key(owner, sid))
            self.store.thread_delete(f"{owner}/index/{entry_of(updated, sid)}")
            self.store.thread_delete_folder(f"{owner}/chunks/{sid}/")
        CACHE.forget((id(self.store), owner, sid))
        self.store.remove(thread_id, principal)
        return True

    def page(self, principal: str | None, limit: int = DEFAULT_PAGE,
             cursor: str | None = None) -> tuple[list[StoredThread], str | None]:
        """The principal's threads, most recently updated first, ``limit`` at a time from ``cursor``; the next
        cursor (None: no more). Reads the principal's index (one LIST of ``limit + 1`` names) and the record of
        each thread it lists; raises ``ValueError`` for a cursor this server never gives."""
        owner, after = owner_of(principal), cursor_entry(cursor)
        found: list[tuple[str, StoredThread]] = []
        more = False
        while not more:
            names = self.store.thread_names(f"{owner}/index/", after, limit + 1)
            for name in names:
                if len(found) == limit:
                    more = True
                    break
                thread = self._listed(owner, name, principal)
                if thread is not None:
                    found.append((name, thread))
                after = name
            if len(names) < limit + 1:
                break
        return [t for _, t in found], (found[-1][0] if more and found else None)

    def _listed(self, owner: str, entry: str, principal: str | None) -> StoredThread | None:
        """The thread an index entry names, if the entry is its current one; an entry a later ``keep`` left
        behind is removed, one without its record yet (a ``keep`` under way) is skipped (removed after an hour)."""
        stamp, _, sid = entry.partition("-")
        try:
            data = self.store.thread_read(record_key(owner, sid))
            thread = _thread(data) if data is not None else None
        except SessionException:
            return None  # unreadable: skipped, never fatal to the list
        if thread is not None and thread.principal == principal and entry_of(thread.updated, sid) == entry:
            return thread
        written = ENTRY_CLOCK - int(stamp)
        if (thread is not None and entry_of(thread.updated, sid) < entry) or \
                time.time() * 1e6 - written > STALE_ENTRY_SECONDS * 1e6:
            with contextlib.suppress(OSError, SessionException):
                self.store.thread_delete(f"{owner}/index/{entry}")
        return None


def _common_prefix(old: Sequence[dict[str, Any]], new: Sequence[dict[str, Any]]) -> int:
    """How many leading messages ``new`` shares with ``old`` (the same dict object is the same message: a run's
    messages reuse the stored ones they came from, so this is mostly identity checks: a thread that only grew is
    one list comparison, in C)."""
    if len(new) >= len(old) and new[:len(old)] == old:
        return len(old)
    for index, (was, now) in enumerate(zip(old, new, strict=False)):
        if was is not now and was != now:
            return index
    return min(len(old), len(new))


def _thread(data: bytes, *, legacy: bool = False) -> StoredThread:
    """A stored record (or an old-layout Strands agent, whose ``state`` is the record) as a thread."""
    try:
        kept = json.loads(data)
        if legacy:
            kept = kept["state"]
        messages = kept.get("messages") or []
        thread = StoredThread(str(kept["threadId"]), kept.get("principal"), messages,
                              kept.get("state"), kept.get("interrupts") or [], kept.get("title") or "",
                              float(kept.get("updated") or 0), list(map(str, kept.get("chunks") or ())),
                              int(kept.get("count") or len(messages)), kept.get("last"))
        thread.legacy = legacy
        thread.traces = dict(kept.get("traces") or {})
        thread.feedback = list(kept.get("feedback") or [])
        conversation = kept.get("conversation")
        if isinstance(conversation, dict) and isinstance(conversation.get("state"), dict) and \
                isinstance(conversation.get("strands"), int) and isinstance(conversation.get("messages"), int):
            thread.conversation = conversation
        return thread
    except (ValueError, TypeError, KeyError, RecursionError) as exc:
        raise SessionException(f"a stored thread is corrupt: {type(exc).__name__}: {exc}") from exc


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
