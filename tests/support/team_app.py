"""A Swarm whose node agent books flights only once approved (``interrupt_on_call``), served at ``/team`` for the
multi-process tests (``strands-agui serve --app tests.support.team_app:app``); pauses wait in the default store."""

from __future__ import annotations

from strands_agui import StrandsAgent
from strands_agui.server.app import create_strands_app
from tests.support.hitl_scenarios import BY_NAME

TEAM = BY_NAME["swarm_approval"]
app = create_strands_app(StrandsAgent(TEAM.agent(), config=TEAM.config), path="/team")
