"""Server-side threads (opt-in): what a principal's thread holds, kept between requests, so a request may send
only its new messages and a page can list and restore its threads.

A thread is kept in the session store (:class:`~strands_agui.runtime.sessions.SessionStore` ``thread_*``: a
directory, or S3 for ``s3://``) as one JSON record per (principal, threadId), in a folder of the principal's with
an index of its threads (:class:`Threads`): the messages as the client holds them after the run (AG-UI messages,
with their ids), the shared state, the pending interrupts, a title (the first user message) and when it last
changed. Each run still rebuilds its Strands conversation from
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

import contextlib
import hashlib
import json
import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import BaseEvent, MessagesSnapshotEvent, RunAgentInput
from pydantic import BaseModel
from strands.types.exceptions import SessionException

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
    traces: dict[str, dict[str, str]] = field(default_factory=dict)  # message id -> the run's {runId, traceId, spanId}
    feedback: list[dict[str, Any]] = field(default_factory=list)  # {messageId, rating, comment?, at}, oldest first

    def summary(self) -> dict[str, Any]:
        """What a thread list shows."""
        return {"threadId": self.thread_id, "title": self.title, "updated": _iso(self.updated),
                "pendingInterrupts": self.interrupts}

    def view(self) -> dict[str, Any]:
        """What a page needs to restore the thread."""
        return {**self.summary(), "messages": self.messages, "state": self.state, "feedback": self.feedback}


def as_json(message: Any) -> dict[str, Any]:
    """An AG-UI message (model or dict) as the camelCase JSON a client holds."""
    if isinstance(message, BaseModel):
        return message.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dict(message)


class Threads:
    """Load, keep, list and delete principals' threads in ``store`` (see the module docstring).

    Layout, under the store's ``threads/`` (a folder per principal, so listing reads the caller's only):

    * ``<owner>/records/<session id>.json``: the thread (``owner``: ``anonymous``, or ``u-`` and a digest of the
      principal; the session id is ``session_id(thread_id, principal)``);
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

    def _record(self, thread_id: str, principal: str | None) -> tuple[StoredThread, bool] | None:
        """The thread and whether it is still in the old layout (None: the principal has no such thread)."""
        sid = session_id(thread_id, principal)
        data = self.store.thread_read(_record_key(owner_of(principal), sid))
        if data is not None:
            return _thread(data), False
        legacy = self.store.thread_read(f"session_{sid}/agents/agent_{AGENT_ID}/agent.json")
        if legacy is None:
            return None
        return _thread(legacy, legacy=True), True

    def keep(self, thread: StoredThread) -> None:
        owner, sid = owner_of(thread.principal), session_id(thread.thread_id, thread.principal)
        before = self._record(thread.thread_id, thread.principal)
        now = round(time.time(), 6)
        thread.updated = max(now, before[0].updated + 1e-6) if before is not None else now
        thread.title = thread.title or _title(thread.messages)
        if before is not None:  # a run's keep carries what the thread's earlier runs and feedback left
            thread.traces = {**before[0].traces, **thread.traces}
            thread.feedback = thread.feedback or before[0].feedback
        record = {"threadId": thread.thread_id, "principal": thread.principal, "messages": thread.messages,
                  "state": thread.state, "interrupts": thread.interrupts, "title": thread.title,
                  "updated": thread.updated, "traces": thread.traces, "feedback": thread.feedback}
        entry = _entry(thread.updated, sid)
        self.store.thread_write(f"{owner}/index/{entry}", b"")
        self.store.thread_write(_record_key(owner, sid), json.dumps(record).encode())
        if before is not None:
            old, legacy = before
            if legacy:
                self.store.thread_delete_folder(f"session_{sid}/")
            elif _entry(old.updated, sid) != entry:
                self.store.thread_delete(f"{owner}/index/{_entry(old.updated, sid)}")

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
        found = self._record(thread_id, principal)
        if found is None:
            return False
        owner, sid = owner_of(principal), session_id(thread_id, principal)
        if found[1]:
            self.store.thread_delete_folder(f"session_{sid}/")
        else:
            self.store.thread_delete(_record_key(owner, sid))
            self.store.thread_delete(f"{owner}/index/{_entry(found[0].updated, sid)}")
        self.store.remove(thread_id, principal)
        return True

    def page(self, principal: str | None, limit: int = DEFAULT_PAGE,
             cursor: str | None = None) -> tuple[list[StoredThread], str | None]:
        """The principal's threads, most recently updated first, ``limit`` at a time from ``cursor``; the next
        cursor (None: no more). Reads the principal's index (one LIST of ``limit + 1`` names) and the record of
        each thread it lists; raises ``ValueError`` for a cursor this server never gives."""
        owner, after = owner_of(principal), _decode(cursor)
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
            data = self.store.thread_read(_record_key(owner, sid))
            thread = _thread(data) if data is not None else None
        except SessionException:
            return None  # unreadable: skipped, never fatal to the list
        if thread is not None and thread.principal == principal and _entry(thread.updated, sid) == entry:
            return thread
        written = _ENTRY_CLOCK - int(stamp)
        if (thread is not None and _entry(thread.updated, sid) < entry) or \
                time.time() * 1e6 - written > STALE_ENTRY_SECONDS * 1e6:
            with contextlib.suppress(OSError, SessionException):
                self.store.thread_delete(f"{owner}/index/{entry}")
        return None


_ENTRY_CLOCK = 10**16 - 1  # an entry's digits: this minus the thread's `updated` in microseconds
_ENTRY = re.compile(r"[0-9]{16}-agui-(u-)?[0-9a-f]{40}")
STALE_ENTRY_SECONDS = 3600.0  # an index entry whose record never came (a crashed keep) is removed after this


def owner_of(principal: str | None) -> str:
    """A principal's folder: a digest, so any principal is a safe file name and S3 key."""
    if principal is None:
        return "anonymous"
    return "u-" + hashlib.sha256(principal.encode("utf-8", "surrogatepass")).hexdigest()[:40]


def _record_key(owner: str, sid: str) -> str:
    return f"{owner}/records/{sid}.json"


def _entry(updated: float, sid: str) -> str:
    return f"{_ENTRY_CLOCK - round(updated * 1e6):016d}-{sid}"


def _thread(data: bytes, *, legacy: bool = False) -> StoredThread:
    """A stored record (or an old-layout Strands agent, whose ``state`` is the record) as a thread."""
    try:
        kept = json.loads(data)
        if legacy:
            kept = kept["state"]
        return StoredThread(str(kept["threadId"]), kept.get("principal"), kept.get("messages") or [],
                            kept.get("state"), kept.get("interrupts") or [], kept.get("title") or "",
                            float(kept.get("updated") or 0), dict(kept.get("traces") or {}),
                            list(kept.get("feedback") or []))
    except (ValueError, TypeError, KeyError, RecursionError) as exc:
        raise SessionException(f"a stored thread is corrupt: {type(exc).__name__}: {exc}") from exc


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


def _decode(cursor: str | None) -> str:
    """The index entry a cursor names (the last thread of the page before): a position among the caller's own
    threads, nothing else (another principal's cursor names an entry of another folder: it only starts the
    caller's list at that point of the order)."""
    if not cursor:
        return ""
    if len(cursor) > 100 or not _ENTRY.fullmatch(cursor):
        raise ValueError("cursor: not a cursor this server gave (pass nextCursor back unchanged)")
    return cursor


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
        self.trace: dict[str, str] | None = None  # the run's span (when traced), for feedback on its messages

    def open(self) -> RunAgentInput:
        """The run's input (stored history first); raises ``RunRefused("SESSION_ERROR")`` when the store fails."""
        if self.threads is not None:
            self.trace = current_trace(self.sent.run_id)
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
        messages = [as_json(m) for m in translator.client.snapshot()]
        before = {m.id for m in self.input.messages}
        traces = {m["id"]: self.trace for m in messages if m["id"] not in before} if self.trace else {}
        thread = StoredThread(self.sent.thread_id, self.principal, messages, translator.shared_state,
                              [as_json(i) for i in translator.interrupts.pending()], traces=traces)
        try:
            self.threads.keep(thread)
        except (OSError, SessionException) as exc:
            return RunFailure("SESSION_ERROR", f"{type(exc).__name__}: {exc}")
        return None


def current_trace(run_id: str) -> dict[str, str] | None:
    """The current OpenTelemetry span (the served run's, when tracing is on) as ``{runId, traceId, spanId}``."""
    from opentelemetry import trace  # Strands' own dependency

    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return None
    return {"runId": run_id, "traceId": format(context.trace_id, "032x"), "spanId": format(context.span_id, "016x")}
