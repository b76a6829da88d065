"""Amazon Bedrock AgentCore Runtime's AG-UI contract: ``POST /invocations``, ``/ws`` and ``GET /ping`` around one
agent (``contract.py``), the WebSocket's runs (``socket_runs.py``) and the health answer (``health.py``)."""

from .contract import create_agentcore_app

__all__ = ["create_agentcore_app"]
