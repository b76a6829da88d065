"""Where a server-side thread lies in its session store (``threads.Threads``), and what a process keeps of it.

A principal's threads are in its folder (:func:`owner_of`: a digest, so any principal is a safe file name and S3
key): a record per thread (:func:`record_key`), its messages in chunks named by index and a fresh token
(:func:`chunk_key`: a name is never reused, so the same names are the same messages), and an index of entries
whose names sort most recently updated first (:func:`entry_of`; a page's cursor is the last entry it listed,
:func:`cursor_entry`). :data:`CACHE` keeps the messages of the threads this process read last, by chunk names.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from typing import Any

ENTRY_CLOCK = 10**16 - 1  # an entry's digits: this minus the thread's `updated` in microseconds
_ENTRY = re.compile(r"[0-9]{16}-agui-(u-)?[0-9a-f]{40}")
STALE_ENTRY_SECONDS = 3600.0  # an index entry whose record never came (a crashed keep) is removed after this
CACHED_THREADS = 64  # threads whose messages a process keeps (by chunk names: a thread changed elsewhere rereads)


def owner_of(principal: str | None) -> str:
    """A principal's folder: a digest, so any principal is a safe file name and S3 key."""
    if principal is None:
        return "anonymous"
    return "u-" + hashlib.sha256(principal.encode("utf-8", "surrogatepass")).hexdigest()[:40]


def record_key(owner: str, sid: str) -> str:
    return f"{owner}/records/{sid}.json"


def chunk_key(owner: str, sid: str, index: int, token: str) -> str:
    return f"{owner}/chunks/{sid}/{index:06d}-{token}.json"


def entry_of(updated: float, sid: str) -> str:
    """A thread's index entry: sorted by name, the most recently updated first."""
    return f"{ENTRY_CLOCK - round(updated * 1e6):016d}-{sid}"


def cursor_entry(cursor: str | None) -> str:
    """The index entry a cursor names (the last thread of the page before): a position among the caller's own
    threads, nothing else (another principal's cursor names an entry of another folder: it only starts the
    caller's list at that point of the order)."""
    if not cursor:
        return ""
    if len(cursor) > 100 or not _ENTRY.fullmatch(cursor):
        raise ValueError("cursor: not a cursor this server gave (pass nextCursor back unchanged)")
    return cursor


class ChunkCache:
    """The messages of the last :data:`CACHED_THREADS` threads this process read or kept, each under the chunk
    names it was read from (a thread whose record names other chunks, changed elsewhere, is read again)."""

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple[int, str, str], tuple[tuple[str, ...], list[dict[str, Any]]]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[int, str, str], tag: tuple[str, ...]) -> list[dict[str, Any]] | None:
        """A copy of the messages kept under ``key`` when they were read from the chunks ``tag`` names."""
        with self._lock:
            cached = self._kept.get(key)
            if cached is None or cached[0] != tag:
                return None
            self._kept.move_to_end(key)
            return list(cached[1])

    def remember(self, key: tuple[int, str, str], tag: tuple[str, ...], messages: list[dict[str, Any]]) -> None:
        with self._lock:
            self._kept[key] = (tag, list(messages))
            self._kept.move_to_end(key)
            while len(self._kept) > CACHED_THREADS:
                self._kept.popitem(last=False)

    def forget(self, key: tuple[int, str, str]) -> None:
        with self._lock:
            self._kept.pop(key, None)


CACHE = ChunkCache()
"""The process's one cache (keys: the store's ``id``, the owner, the thread's session id)."""
