"""The human_in_the_loop example behind bearer tokens, served at ``/human_in_the_loop`` for the principal tests
(``strands-agui serve --app tests.support.principal_app:app``): each token names its principal; no token -> 401. Runs
are resumable (their events kept in memory), so a run's reconnect and cancel routes are principal-scoped too."""

from __future__ import annotations

from fastapi import Header, HTTPException

from strands_agui.examples.human_in_the_loop import build_agent
from strands_agui.server.app import create_strands_app

TOKENS = {"alice-token": "alice", "bob-token": "bob"}


def principal(authorization: str = Header("")) -> str:
    """The caller named by ``Authorization: Bearer <token>``."""
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or token not in TOKENS:
        raise HTTPException(401, "unknown token", headers={"WWW-Authenticate": "Bearer"})
    return TOKENS[token]


app = create_strands_app(build_agent(), path="/human_in_the_loop", auth=principal, resumable=True)
