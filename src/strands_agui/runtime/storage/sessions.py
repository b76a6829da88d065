"""Where a paused run waits between requests: one Strands session per AG-UI thread.

Nothing else is kept between requests. A run that never pauses reads at most one path and writes nothing.
A run that pauses stores its Strands agent (conversation, state, ``_interrupt_state``) or its Swarm/Graph
(``serialize_state``: the interrupted nodes' conversations and interrupt state, results, the next node) through
a Strands ``SessionManager``; the resume restores it on whichever worker serves it, and a thread that finishes
has its session removed.

:class:`SessionStore` is the interface; :class:`FileSessions` keeps sessions in a directory with Strands'
``FileSessionManager``. Its invariants:

* **Atomic publish.** A pause is written to a staging directory and renamed into place, so a resume never
  reads half a session.
* **One run per paused thread.** A run that touches a paused session holds an exclusive ``flock`` on the
  session's directory for the whole run (non-blocking: a second run gets ``THREAD_BUSY`` at once). The lock
  belongs to the open directory, so it is shared correctly between processes (``--workers N``) and between
  requests of one process; it goes away with the directory, so no lock file outlives its thread.
* **Bounded.** A pause older than ``retention_seconds`` is expired: removed when a request touches its
  thread, and swept whenever another pause is stored. The interrupts of a paused run carry the moment as
  ``expiresAt``; an infinite retention keeps pauses until their thread moves on (no ``expiresAt``).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import math
import os
import re
import shutil
import threading
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterator
from pathlib import Path

from strands import Agent
from strands.multiagent.base import MultiAgentBase
from strands.session import FileSessionManager
from strands.session.session_manager import SessionManager

from ...errors import RunRefused

DEFAULT_RETENTION_SECONDS = 24 * 3600.0
DEFAULT_LEASE_SECONDS = 30.0  # S3Sessions: a dead holder's lease expires this long after its last renewal
STAGING_SECONDS = 3600.0  # a staging directory this old was left by a crashed worker
DEFAULT_DIRECTORY = Path.home() / ".strands" / "sessions"


_THREAD_BUSY = "another run is on this thread"
_LOCAL_LOCKS: set[str] = set()
_LOCAL_LOCKS_GUARD = threading.Lock()


def session_id(thread_id: str, principal: str | None = None) -> str:
    """The Strands session id of a principal's thread: a digest, so any thread id is a safe file name. The
    anonymous principal's ids (``agui-<hex>``) and a named principal's (``agui-u-<hex>`` of both) never meet, so
    no thread id sent anonymously reaches a named principal's thread."""
    if principal is None:
        return "agui-" + hashlib.sha256(thread_id.encode("utf-8")).hexdigest()[:40]
    both = json.dumps([principal, thread_id]).encode("utf-8")
    return "agui-u-" + hashlib.sha256(both).hexdigest()[:40]


_KEY = re.compile(r"[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*/?")


def thread_key(key: str) -> str:
    """``key`` checked: names of ``[A-Za-z0-9_.-]`` joined by ``/``, none of them ``.`` or ``..``."""
    if not _KEY.fullmatch(key) or any(part in (".", "..") for part in key.split("/")):
        raise ValueError(f"not a thread store key: {key!r}")
    return key


class SessionStore(ABC):
    """Pause state of AG-UI threads, kept in Strands session managers (see the module docstring). A thread is
    ``(principal, thread_id)``: ``principal`` (None: the anonymous one) is whom the endpoint's ``auth`` named
    (``server/request/principals.py``); the same ``thread_id`` of another principal is another thread."""

    retention_seconds: float = DEFAULT_RETENTION_SECONDS
    blocking: bool = False
    """Whether a call may wait on the network (S3): a run then makes the store's calls (the thread's read, the
    pause's open, the keep after the run) in a worker thread, so a frozen store never blocks the event loop."""

    @abstractmethod
    def session_manager(self, thread_id: str, principal: str | None = None) -> SessionManager:
        """The Strands session manager of the thread's stored pause (restores the agent it is attached to)."""

    @abstractmethod
    def paused_at(self, thread_id: str, principal: str | None = None) -> float | None:
        """When the thread's pause was stored (epoch seconds), or None when the thread is not paused."""

    @abstractmethod
    def hold(self, thread_id: str, principal: str | None = None) -> contextlib.AbstractContextManager[None]:
        """Exclusive use of the thread's stored pause for one run; raises ``RunRefused("THREAD_BUSY")``
        when another run holds it, ``RunRefused("INTERRUPT_NOT_FOUND")`` when there is none (any more)."""

    @abstractmethod
    def park(self, thread_id: str, agent: Agent | MultiAgentBase, principal: str | None = None) -> None:
        """Store ``agent`` (an Agent, Swarm or Graph that just paused) as the thread's pause, replacing any
        older one."""

    @abstractmethod
    def remove(self, thread_id: str, principal: str | None = None) -> None:
        """Forget the thread's pause (no error when there is none)."""

    # Server-side threads (``runtime/storage/threads.py``) are small objects under the store's ``threads/``, by key: a
    # ``/``-separated path of names of ``[A-Za-z0-9_.-]`` (built by the adapter from digests, never by a client).

    def thread_read(self, key: str) -> bytes | None:
        """The object at ``key`` (None: there is none)."""
        raise NotImplementedError(f"{type(self).__name__} keeps no server-side threads")

    def thread_write(self, key: str, data: bytes) -> None:
        """Publish ``data`` at ``key`` at once (a reader sees the old or the new object, never half of one)."""
        raise NotImplementedError(f"{type(self).__name__} keeps no server-side threads")

    def thread_delete(self, key: str) -> None:
        """Remove the object at ``key`` (no error when there is none)."""
        raise NotImplementedError(f"{type(self).__name__} keeps no server-side threads")

    def thread_names(self, folder: str, after: str, count: int) -> list[str]:
        """The names of the objects directly in ``folder`` (``a/b/``) that sort after ``after``, ascending, at
        most ``count``: one LIST (S3) or one directory read (files) of that folder only."""
        raise NotImplementedError(f"{type(self).__name__} keeps no server-side threads")

    def thread_delete_folder(self, folder: str) -> None:
        """Remove every object under ``folder``."""
        raise NotImplementedError(f"{type(self).__name__} keeps no server-side threads")

    @contextlib.contextmanager
    def thread_hold(self, key: str) -> Iterator[None]:
        """Hold the lock ``key`` for one run on a server-side thread, or raise ``RunRefused("THREAD_BUSY")``
        while another run holds it. This default holds it within this process only."""
        with _LOCAL_LOCKS_GUARD:
            if key in _LOCAL_LOCKS:
                raise RunRefused("THREAD_BUSY", _THREAD_BUSY)
            _LOCAL_LOCKS.add(key)
        try:
            yield
        finally:
            with _LOCAL_LOCKS_GUARD:
                _LOCAL_LOCKS.discard(key)

    def refresh(self, thread_id: str, principal: str | None = None) -> None:  # noqa: B027 - optional
        """A resumed run paused again: its retention starts over (the state itself is already stored)."""

    def expired(self, paused_at: float) -> bool:
        return time.time() - paused_at > self.retention_seconds

    def expires_at(self, paused_at: float) -> float | None:
        """When a pause stored at ``paused_at`` expires (None: never, an infinite retention)."""
        return paused_at + self.retention_seconds if math.isfinite(self.retention_seconds) else None


class FileSessions(SessionStore):
    """Sessions in ``directory`` (``FileSessionManager`` layout: ``session_<id>/agents/...``)."""

    def __init__(self, directory: str | os.PathLike[str], *,
                 retention_seconds: float = DEFAULT_RETENTION_SECONDS) -> None:
        self.directory = Path(directory)
        self.retention_seconds = retention_seconds
        self._threads = os.path.join(self.directory, "threads")

    # A run on a server-side thread reads, holds and writes objects here: string paths, not pathlib, and a folder
    # made only when a write finds it missing (docs/benchmarks.md, the cuts).

    def _thread_path(self, key: str) -> str:
        return f"{self._threads}/{thread_key(key)}"

    def thread_read(self, key: str) -> bytes | None:
        try:
            with open(self._thread_path(key), "rb") as file:
                return file.read()
        except FileNotFoundError:
            return None

    def thread_write(self, key: str, data: bytes) -> None:
        path = self._thread_path(key)
        folder, name = os.path.split(path)
        staged = f"{folder}/.{name}.{uuid.uuid4().hex}"
        try:
            try:
                file = open(staged, "xb")
            except FileNotFoundError:  # the folder's first object
                os.makedirs(folder, mode=0o700, exist_ok=True)
                file = open(staged, "xb")
            with file:
                file.write(data)
            os.replace(staged, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(staged)
            raise

    def thread_delete(self, key: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._thread_path(key))

    def thread_names(self, folder: str, after: str, count: int) -> list[str]:
        try:
            names = os.listdir(self._thread_path(folder))
        except FileNotFoundError:
            return []
        return sorted(name for name in names if name > after and not name.startswith("."))[:count]

    def thread_delete_folder(self, folder: str) -> None:
        shutil.rmtree(self._thread_path(folder), ignore_errors=True)

    @contextlib.contextmanager
    def thread_hold(self, key: str) -> Iterator[None]:
        """``flock`` of the file ``key`` (every worker on this disk sees it; the kernel drops it with a dead
        worker)."""
        path = self._thread_path(key)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except FileNotFoundError:  # the first lock of its folder
            os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise RunRefused("THREAD_BUSY", _THREAD_BUSY) from None
            yield
        finally:
            os.close(fd)

    def _path(self, thread_id: str, principal: str | None = None) -> Path:
        return self.directory / f"session_{session_id(thread_id, principal)}"

    def session_manager(self, thread_id: str, principal: str | None = None) -> SessionManager:
        return FileSessionManager(session_id=session_id(thread_id, principal), storage_dir=str(self.directory))

    def paused_at(self, thread_id: str, principal: str | None = None) -> float | None:
        try:  # asked on every run: a string path, not pathlib (docs/benchmarks.md)
            name = f"session_{session_id(thread_id, principal)}"
            return os.stat(os.path.join(self.directory, name, "session.json")).st_mtime
        except FileNotFoundError:
            return None

    @contextlib.contextmanager
    def hold(self, thread_id: str, principal: str | None = None) -> Iterator[None]:
        path = self._path(thread_id, principal)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        except FileNotFoundError:
            raise RunRefused("INTERRUPT_NOT_FOUND", "the thread has no paused run (already resumed?)") from None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise RunRefused("THREAD_BUSY", "another run is resuming this thread") from None
            if not (path / "session.json").exists():  # removed by the run that held it before us
                raise RunRefused("INTERRUPT_NOT_FOUND", "the thread has no paused run (already resumed?)")
            yield
        finally:
            os.close(fd)

    def park(self, thread_id: str, agent: Agent | MultiAgentBase, principal: str | None = None) -> None:
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.sweep()
        staging = self.directory / f".staging-{uuid.uuid4().hex}"
        try:
            staged = FileSessionManager(session_id=session_id(thread_id, principal), storage_dir=str(staging))
            initialize_session(staged, agent)
            target = self._path(thread_id, principal)
            if target.exists():
                with self.hold(thread_id, principal):
                    shutil.rmtree(target)
            os.rename(staging / target.name, target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    def refresh(self, thread_id: str, principal: str | None = None) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.utime(self._path(thread_id, principal) / "session.json")

    def remove(self, thread_id: str, principal: str | None = None) -> None:
        shutil.rmtree(self._path(thread_id, principal), ignore_errors=True)

    def sweep(self) -> None:
        """Remove every expired pause (and staging left by a crashed worker)."""
        for entry in self.directory.iterdir():
            try:
                stamp = (entry / "session.json").stat().st_mtime if entry.name.startswith("session_") \
                    else entry.stat().st_mtime
            except FileNotFoundError:
                continue
            stale = self.expired(stamp) if entry.name.startswith("session_") \
                else entry.name.startswith(".staging-") and time.time() - stamp > STAGING_SECONDS
            if stale:
                shutil.rmtree(entry, ignore_errors=True)


def initialize_session(manager: SessionManager, agent: Agent | MultiAgentBase) -> None:
    """Restore ``agent`` from ``manager``'s session, or write it there when the session is new."""
    if isinstance(agent, MultiAgentBase):
        manager.initialize_multi_agent(agent)
    else:
        manager.initialize(agent)


def attach(agent: Agent | MultiAgentBase, manager: SessionManager) -> None:
    """Restore ``agent`` (or a Swarm/Graph) from ``manager`` and keep the session in step with it from now on
    (what ``Agent(session_manager=...)`` / ``Swarm(session_manager=...)`` do, for one that already exists)."""
    initialize_session(manager, agent)
    agent.hooks.add_hook(manager)  # type: ignore[union-attr]
    if isinstance(agent, Agent):
        agent._session_manager = manager
