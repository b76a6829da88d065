"""Upstream ``ag_ui_strands``' ``StrandsAgentConfig.session_manager_provider``: the Strands ``SessionManager``
of a run's thread, so that Strands itself restores and persists the thread's conversation and ``agent.state``.

Upstream calls the provider once per ``threadId`` and caches the thread's agent. Here every run builds a fresh
agent (``run_agent.py``), so the provider is called once per run (sync or async) with the run's
``RunAgentInput``, and the run's agent is attached to the manager it returns (``sessions.attach``: what
``Agent(session_manager=...)`` does) before the run: the stored conversation replaces the client's history
(the stored one wins), a session that does not exist yet starts from the client's history, and a request may
send only its new message. A provider with a ``principal`` parameter also gets the caller's principal
(``server/request/principals.py``); upstream's ``(input_data)`` gets only the client's ``threadId``.

A provider that raises, or returns something that is not a ``SessionManager``, ends the run with RUN_ERROR
``SESSION_ERROR`` before Strands is called (logged with its traceback); ``None`` runs without persistence
(a warning, as upstream).
"""

from __future__ import annotations

import inspect
import logging
from typing import Any

from ag_ui.core import RunAgentInput
from strands.session.session_manager import SessionManager

from ...config import StrandsAgentConfig, maybe_await
from ...errors import RunRefused

logger = logging.getLogger(__name__)


async def provided_session_manager(config: StrandsAgentConfig, input_data: RunAgentInput,
                                   principal: str | None) -> SessionManager | None:
    """The run's session manager from ``config.session_manager_provider`` (None: none configured, or it
    returned None); raises :class:`RunRefused` ``SESSION_ERROR``."""
    provider = config.session_manager_provider
    if provider is None:
        return None
    try:
        kwargs = {"principal": principal} if _takes_principal(provider) else {}
        manager = await maybe_await(provider(input_data, **kwargs))
    except Exception as exc:  # noqa: BLE001 - the documented RUN_ERROR
        logger.error("session_manager_provider failed: %s", exc, exc_info=True)
        raise RunRefused("SESSION_ERROR", f"session_manager_provider failed: {type(exc).__name__}: {exc}") from exc
    if manager is None:
        logger.warning("session_manager_provider returned None for thread_id=%s; the run keeps no session",
                       input_data.thread_id)
        return None
    if not isinstance(manager, SessionManager):
        actual = type(manager).__name__
        logger.error("session_manager_provider returned %s; expected a SessionManager instance", actual)
        raise RunRefused("SESSION_ERROR", f"session_manager_provider returned {actual}; expected a SessionManager")
    return manager


def _takes_principal(provider: Any) -> bool:
    try:
        return "principal" in inspect.signature(provider).parameters
    except (TypeError, ValueError):  # a builtin or C callable: upstream's one argument
        return False
