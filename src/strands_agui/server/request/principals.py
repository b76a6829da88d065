"""Whose thread it is: the caller's principal, from the endpoint's ``auth`` dependency.

The value ``auth`` returns, when it is a ``str``, is the caller's principal (e.g. the token's subject). Without
``auth``, or when it returns None, the caller is the one anonymous principal (``None``). Everything the server keeps
per thread (pauses, server-side conversations, run logs) is keyed by (principal, threadId): another principal on
the same ``threadId`` is another thread, which can neither abandon, resume nor read the first one's.

Any other return value (an object, a dict) cannot be told apart safely from another caller's, so it is logged once
and treated as anonymous: return the principal's id as a ``str`` to scope threads.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from fastapi import Depends
from starlette.requests import HTTPConnection

logger = logging.getLogger(__name__)

_STATE_KEY = "strands_agui_principal"


def principal_of(request: HTTPConnection | None) -> str | None:
    """The principal the endpoint's ``auth`` named for ``request`` (an HTTP request or a WebSocket; None:
    anonymous, or no request)."""
    if request is None:
        return None
    value = getattr(request.state, _STATE_KEY, None)
    return value if isinstance(value, str) else None


def principal_dependency(auth: Callable[..., Any] | None) -> Callable[..., Any] | None:
    """A route dependency that runs ``auth`` (FastAPI resolves its own parameters and caches it per request) and
    records its value as the request's principal; None without ``auth``."""
    if auth is None:
        return None
    warned: list[type] = []

    async def principal(request: HTTPConnection, value: Any = Depends(auth)) -> None:  # noqa: B008 - a closure's auth
        if value is not None and not isinstance(value, str) and type(value) not in warned:
            warned.append(type(value))
            logger.warning("auth returned a %s, not a str: its callers share the anonymous principal's threads",
                           type(value).__name__)
        setattr(request.state, _STATE_KEY, value if isinstance(value, str) else None)

    return principal
