"""A run on a server-side thread (``runtime/storage/threads.py`` keeps the threads): the run's input merged with the
stored thread (the stored one wins, ``threads``'s policy), whether the client already holds it (the ``holds``
marker: no snapshot then), the Strands history a conversation manager's window needs, and the thread kept after
the run (before its terminal event, as a pause is).
"""

from __future__ import annotations

import contextlib
import json
import logging
import operator
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, NamedTuple

from ag_ui.core import BaseEvent, MessagesSnapshotEvent, RunAgentInput
from strands import Agent
from strands.agent.conversation_manager import SlidingWindowConversationManager
from strands.types.exceptions import SessionException

from ..core.snapshot import remember_answers
from ..core.translator import Translator
from ..errors import RunFailure
from .pause import store_errors
from .storage.sessions import session_id
from .storage.thread_layout import CACHED_THREADS, owner_of
from .storage.threads import StoredThread, Threads, as_json

logger = logging.getLogger(__name__)


def merged_input(stored: StoredThread | None, input_data: RunAgentInput) -> RunAgentInput:
    """The run's input on a server-side thread (the policy in the module docstring)."""
    return _merged(stored, input_data)[0]


def _merged(stored: StoredThread | None, input_data: RunAgentInput, models: Sequence[Any] | None = None,
            sent: list[dict[str, Any]] | None = None,
            ids: dict[Any, int] | None = None) -> tuple[RunAgentInput, list[dict[str, Any]], int]:
    """The run's input, its messages as JSON (the stored dicts themselves where they are the stored ones) and
    how many of them are the stored ones, unchanged (``models``: the stored messages already validated;
    ``sent``: the client's messages as JSON, when the caller made them already: each is dumped once; ``ids``:
    the stored messages' ids, cached with ``models``)."""
    if sent is None:
        sent = [as_json(m) for m in input_data.messages]
    if stored is None:
        return input_data, list(sent), 0
    kept = stored.messages
    if input_data.parent_run_id is not None:
        kept = kept[:_branch_point(kept, sent)]
    known = ids if ids is not None and kept is stored.messages else {m.get("id") for m in kept}
    new = [m for m in sent if m.get("id") not in known]
    if models is not None and len(models) >= len(kept):
        validated = [*models[:len(kept)], *_validated(new)]
    else:
        validated = _validated([*kept, *new])
    state = input_data.state if input_data.state not in (None, {}) else stored.state
    return (input_data.model_copy(update={"messages": validated, "state": state}), [*kept, *new], len(kept))


def _validated(messages: Sequence[dict[str, Any]]) -> list[Any]:
    return list(RunAgentInput.model_validate({"threadId": "t", "runId": "r", "messages": messages}).messages)


HOLDS = "holds"  # forwardedProps.strandsAgui.holds: {"lastMessageId": id, "messages": n}, what a client holds


def held_marker(input_data: RunAgentInput) -> tuple[str | None, int] | None:
    """The thread a client says it holds (``forwardedProps.strandsAgui.holds``): its last message's id and how
    many messages; None when it says nothing. Raises ``ValueError`` naming what is wrong with a malformed one."""
    props = input_data.forwarded_props
    ours = props.get("strandsAgui") if isinstance(props, dict) else None
    if not isinstance(ours, dict) or HOLDS not in ours:
        return None
    marker = ours[HOLDS]
    if not isinstance(marker, dict) or set(marker) - {"lastMessageId", "messages"}:
        raise ValueError('holds: give {"lastMessageId": <id of the last message held>, "messages": <how many>}')
    last, count = marker.get("lastMessageId"), marker.get("messages")
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise ValueError("holds.messages: a count of messages (an integer >= 0)")
    if last is not None and (not isinstance(last, str) or not last or len(last) > 200):
        raise ValueError("holds.lastMessageId: the id of the last message held (a non-empty string), or null")
    if (last is None) != (count == 0):
        raise ValueError("holds: lastMessageId is null exactly when messages is 0")
    return last, count


def _branch_point(kept: Sequence[dict[str, Any]], sent: Sequence[dict[str, Any]]) -> int:
    """How many stored messages a branching request keeps: up to the first one it changed or left out (an activity
    message it does not send stays between two it kept: a client never sends those back, ``@ag-ui/client``)."""
    at = end = 0
    for index, message in enumerate(kept):
        if at < len(sent) and sent[at] == message:
            at, end = at + 1, index + 1
        elif message.get("role") != "activity":
            break
    return end


class Entered(NamedTuple):
    """What a run's preparation takes from its server-side thread, in one call (``ServerThread.enter``)."""

    input: RunAgentInput  # the run's input, the stored history first
    snapshots: list[BaseEvent]  # what announces it to a client that does not hold it (``announce``)
    window: int | None  # the messages a sliding window keeps: only the thread's tail is converted (``window_of``)


class ServerThread:
    """One run's view of its server-side thread: the merged input before, the thread kept after (before the
    terminal event, as a pause is). Inert when ``threads`` is None (threads off). ``stack`` holds the thread for
    the run (``Threads.hold``; None: not held, for callers that never run two at once)."""

    def __init__(self, threads: Threads | None, input_data: RunAgentInput, principal: str | None,
                 stack: contextlib.ExitStack | None = None) -> None:
        self.threads = threads
        self.sent = input_data
        self.principal = principal
        self.input = input_data
        self.stack = stack
        self.stored: StoredThread | None = None
        self.messages: list[dict[str, Any]] = []  # the run's input messages as JSON
        self.sent_json: list[dict[str, Any]] = []  # the client's messages as JSON (dumped once)
        self.reused = 0  # how many of them are the stored ones, unchanged
        self.ids: dict[Any, int] | None = None  # the stored messages' ids -> their index (cached per thread)
        self.same = True  # the run's messages are the ones the client sent (or holds, by its marker)
        self.held = contextlib.ExitStack()  # the thread's hold
        self.agent: Agent | None = None  # the run's agent, once built (``window``)
        self.history: list[Any] = []  # its history's Strands messages, the thread's whole (before ``window``)
        self.summary: dict[str, Any] | None = None  # the kept summary this run started from
        self.trace: dict[str, str] | None = None  # the run's span (when traced), for feedback on its messages
        self.ran: Translator | None = None  # the run's translator, once the run started (``keep_left``)
        self.kept = False  # the thread was kept (``keep``)

    def enter(self, manager: Any) -> Entered:
        """The thread met once by a run's preparation (``planning.prepare``): the merged input (``open``: may
        raise ``RunRefused``), its snapshots and the window of the template's conversation ``manager``; in a
        worker thread when the store is on the network."""
        merged = self.open()
        return Entered(merged, self.announce(), self.window_of(manager))

    def open(self) -> RunAgentInput:
        """The run's input (stored history first); raises ``RunRefused("SESSION_ERROR")`` when the store fails,
        ``RunRefused("THREAD_BUSY")`` while another run is on the thread."""
        if self.threads is not None:
            self.trace = current_trace(self.sent.run_id)
            with store_errors():
                if self.stack is not None:  # released once kept (in keep's thread), else with the run
                    self.stack.callback(self.held.close)
                    self.held.enter_context(self.threads.hold(self.sent.thread_id, self.principal))
                self.stored = self.threads.load(self.sent.thread_id, self.principal)
                models, self.ids = _models(self.threads, self.stored)
                self.sent_json = [as_json(m) for m in self.sent.messages]  # once per run
                self.input, self.messages, self.reused = _merged(self.stored, self.sent, models, self.sent_json,
                                                                 self.ids)
                self.same = self._client_holds()
                if self.reused:  # the translator's pass over the thread: from where its last run ended
                    remember_answers(self.input.messages)
        return self.input

    def _client_holds(self) -> bool:
        """Whether the client already holds the run's messages: it sent them all, or it sent its new ones with a
        marker (``forwardedProps.strandsAgui.holds``) naming the stored thread's end, and none it sent differs
        from the stored one."""
        try:
            marker = held_marker(self.sent)
        except ValueError:
            marker = None  # refused before the run by the endpoint; a library caller gets the full snapshot
        stored = self.stored.messages if self.stored is not None else []
        if marker is not None and self.sent.parent_run_id is None:
            last = stored[-1].get("id") if stored else None
            if marker != (last, len(stored)) or self.reused != len(stored):
                return False
            index = (self.ids if self.ids is not None else {m.get("id"): i for i, m in enumerate(stored)}) \
                if self.sent.messages else {}
            for message in self.sent.messages:
                i = index.get(message.id)
                if i is not None and as_json(message) != stored[i]:
                    return False
            return True
        return self.messages == self.sent_json or _unseen(self.messages) == _unseen(self.sent_json)

    def window_of(self, manager: Any) -> int | None:
        """The window the run's Strands history is built for (``planning.tail_history``): for a template whose
        manager is exactly Strands' ``SlidingWindowConversationManager`` (trimming at the start of each call:
        ``per_turn`` off), and no kept summary, its ``window_size``; else None (the whole history)."""
        if type(manager) is not SlidingWindowConversationManager or manager.per_turn is not False or \
                (self.stored is not None and self.stored.conversation):
            return None
        return int(manager.window_size)

    def window(self, agent: Agent) -> None:
        """The run's agent, built with the thread's whole history, given what its conversation manager keeps: the
        summary a run of this thread made (``SummarizingConversationManager``: kept with the thread, it replaces
        the messages it summarized, as Strands' own session restores it), then the manager's window
        (``apply_management``: a ``SlidingWindowConversationManager`` trims to its ``window_size``, as Strands
        does between a long-lived agent's calls). The model is sent that; the thread keeps every message."""
        self.agent = agent
        history = self.history = list(agent.messages)
        kept = self.stored.conversation if self.stored is not None else None
        manager = agent.conversation_manager
        try:
            if kept and self.reused >= kept["messages"] and kept["strands"] <= len(history):
                prefix = manager.restore_from_session(kept["state"]) or []
                agent.messages[:] = [*prefix, *history[kept["strands"]:]]
                self.summary = kept
            manager.apply_management(agent)
        except Exception:  # noqa: BLE001 - the run goes on with the whole history (Strands reduces on overflow)
            logger.warning("the conversation manager could not window the thread's history", exc_info=True)
            agent.messages[:] = history

    def _conversation(self) -> dict[str, Any] | None:
        """The summary to keep with the thread after the run: the manager's state when it holds a summary,
        with which of the history's Strands messages it replaces (``strands``) and how many of the thread's
        messages must stay unchanged for that to hold (``messages``); the one kept before when the run made
        none; None when the run's summary cannot be placed in the history (all of it summarized)."""
        agent = self.agent
        if agent is None:  # a resume: its agent comes from the pause, the thread's summary stays as it was
            return self.stored.conversation if self.stored is not None else None
        try:
            state = agent.conversation_manager.get_state()
        except Exception:  # noqa: BLE001 - a manager without state keeps nothing
            return None
        summary = state.get("summary_message") if isinstance(state, dict) else None
        if summary is None:
            return None
        if self.summary is not None and summary == self.summary["state"].get("summary_message"):
            return self.summary
        index = {id(m): i for i, m in enumerate(self.history)}
        start = next((index[id(m)] for m in agent.messages if id(m) in index), None)
        if start is None:
            return None
        try:
            json.dumps(state)
        except (TypeError, ValueError):
            return None
        return {"state": state, "strands": start, "messages": len(self.input.messages)}

    def announce(self) -> list[BaseEvent]:
        """``MESSAGES_SNAPSHOT``s when the run's messages are not the ones the client holds (a resume starts with
        one anyway). A client keeps a snapshot's messages it holds where they are, drops the others it holds and
        appends the rest (``@ag-ui/client``), so when one snapshot would leave the client's order, a first one of
        the messages before the first the client holds comes first: after it, the second appends in order."""
        if self.input.resume or self.same:
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
        """Store what the client holds after the run: messages, state, pending interrupts. A run that ends any
        way but success keeps what its client held when the end began (``docs/threads.md``): a cancelled run what
        streamed before its Stop reached it (``Translator.held_at_stop``), a run whose client left what was sent
        before it left (``keep_left``). Only what the run changed is written (``Threads.keep``); the stored
        messages the run kept are not converted again."""
        if self.threads is None:
            return None
        self.kept = True
        final, held = translator.client.held(), translator.held_at_stop
        messages = self._held(final if held is None else _settled(held, final))
        if translator.halted and (cards := translator.background.halted_cards()):  # as its terminal event shows
            messages = [{**m, "content": cards[m["id"]][1]} if m.get("id") in cards and m.get("role") == "activity"
                        else m for m in messages]
        traces = {}
        if self.trace:  # the run's own messages: after the input's (a pass over the thread only when traced)
            before = {m.id for m in self.input.messages}
            traces = {m["id"]: self.trace for m in messages if m.get("id") not in before}
        thread = StoredThread(self.sent.thread_id, self.principal, messages, translator.shared_state,
                              [as_json(i) for i in translator.interrupts.pending()], traces=traces)
        thread.conversation = self._conversation()
        try:
            self.threads.keep(thread, self.stored if self.stored is not None else False)
        except (OSError, SessionException) as exc:
            return RunFailure("SESSION_ERROR", f"{type(exc).__name__}: {exc}")
        finally:
            self.held.close()  # before the terminal event: the client's next run finds the thread free
        return None

    def keep_left(self) -> None:
        """A run that ended without its keep (its client left: the run was cancelled at an await, or closed at a
        yield) keeps what it had sent that client, as any other ended run does (its failure only logged: nobody
        is left to tell)."""
        if self.threads is None or self.ran is None or self.kept:
            return
        try:
            failure = self.keep(self.ran)
        except Exception:  # noqa: BLE001 - the run is already over for its client
            logger.warning("keeping the thread of a run whose client left failed", exc_info=True)
            return
        if failure is not None:
            logger.warning("keeping the thread of a run whose client left failed: %s", failure.message)

    def _held(self, snapshot: Sequence[Any]) -> list[dict[str, Any]]:
        """The snapshot as JSON: a message that is one of the run's input messages, unchanged (the same object),
        is its JSON already made (the stored dict itself for a stored one), the others are converted."""
        given, made = self.input.messages, self.messages
        start = _same_prefix(snapshot, given, len(made))  # the stored thread's messages: one C-level pass
        out = made[:start]
        if start == len(snapshot):
            return out
        inputs = {id(given[i]): i for i in range(start, len(given))}  # the rest of the input (a snapshot keeps order)
        for message in snapshot[start:]:
            i = inputs.get(id(message))
            out.append(made[i] if i is not None and i < len(made) else as_json(message))
        return out


def _settled(held: list[Any], final: list[Any]) -> list[Any]:
    """What a client held at its Stop, its activity messages as the run left them (the tasks a Stop left open
    end ``cancelled``: the page shows its stopped run's cards so, ``docs/events.md``)."""
    latest = {m["id"]: m for m in final if isinstance(m, dict) and m.get("role") == "activity"}
    if not latest:
        return held
    return [latest.get(getattr(m, "id", None) if not isinstance(m, dict) else m.get("id"), m) for m in held]


def _unseen(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` without their activity messages (what a client sends of what it holds)."""
    return [m for m in messages if m.get("role") != "activity"]


def _same_prefix(items: Sequence[Any], given: Sequence[Any], limit: int) -> int:
    """``min(len(items), len(given), limit)`` when that many leading ``items`` are the leading ``given``
    themselves (the same objects: one pass in C, some 30 ns a message), else 0 (the caller then looks each one
    up)."""
    n = min(len(items), len(given), limit)
    return n if all(map(operator.is_, items[:n], given[:n])) else 0


def _models(threads: Threads, stored: StoredThread | None) -> tuple[list[Any] | None, dict[Any, int] | None]:
    """The stored messages as validated AG-UI models, and their ids -> index: a message whose dict this process
    validated for the thread's previous run (the same object: the cache of ``Threads`` keeps the dicts a run
    kept) is not validated (nor indexed) again, so a run does so only for what the previous one added (None:
    nothing stored). A thread that only grew is recognised in one C-level pass (``_same_prefix``)."""
    if stored is None or not stored.messages:
        return None, None
    key = (id(threads.store), owner_of(stored.principal), session_id(stored.thread_id, stored.principal))
    with _MODELS_LOCK:
        dicts, models, ids = _MODELS.get(key, ([], [], {}))
    now = stored.messages
    reused = len(dicts) if now[:len(dicts)] == dicts else 0  # grown only: a list comparison, identity first, in C
    if reused < len(dicts):  # changed (or shrunk): the identical leading ones, one by one
        reused = 0
        for was, message in zip(dicts, now, strict=False):
            if was is not message:
                break
            reused += 1
        ids = {}
    out = [*models[:reused], *_validated(now[reused:])]
    if not ids:  # else the cached index is extended in place: the thread is held, one run at a time
        ids = {m.get("id"): i for i, m in enumerate(now[:reused])}
    for i in range(reused, len(now)):
        ids[now[i].get("id")] = i
    with _MODELS_LOCK:
        _MODELS[key] = (list(now), out, ids)
        _MODELS.move_to_end(key)
        while len(_MODELS) > CACHED_THREADS:
            _MODELS.popitem(last=False)
    return out, ids


_MODELS: OrderedDict[tuple[int, str, str], tuple[list[dict[str, Any]], list[Any], dict[Any, int]]] = OrderedDict()
_MODELS_LOCK = threading.Lock()


def current_trace(run_id: str) -> dict[str, str] | None:
    """The current OpenTelemetry span (the served run's, when tracing is on) as ``{runId, traceId, spanId}``."""
    from opentelemetry import trace  # Strands' own dependency

    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return None
    return {"runId": run_id, "traceId": format(context.trace_id, "032x"), "spanId": format(context.span_id, "016x")}
