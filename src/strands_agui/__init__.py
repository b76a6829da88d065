"""strands-agui: serve any AWS Strands agent to any AG-UI frontend.

The names match the existing ``ag_ui_strands`` integration, so switching is an import change.
"""

from .config import (
    MediaFetchPolicy,
    PredictStateMapping,
    StrandsAgentConfig,
    ToolBehavior,
    ToolCallContext,
    ToolResultContext,
)
from .errors import ERROR_CODES
from .runtime.agent import StrandsAgent
from .runtime.runlog import RecordedRun, Recorder, read_log
from .runtime.s3sessions import S3Sessions
from .runtime.sessions import FileSessions, SessionStore
from .tooling.replay import replay, replay_to_list

__all__ = [
    "ERROR_CODES",
    "AppSettings",
    "EndpointSettings",
    "FileSessions",
    "MediaFetchPolicy",
    "PredictStateMapping",
    "Recorder",
    "RecordedRun",
    "S3Sessions",
    "SessionStore",
    "StrandsAgent",
    "StrandsAgentConfig",
    "ToolBehavior",
    "ToolCallContext",
    "ToolResultContext",
    "add_ping",
    "add_strands_fastapi_endpoint",
    "create_agentcore_app",
    "create_strands_app",
    "read_log",
    "replay",
    "replay_to_list",
]


_SERVED = {"AppSettings": "settings", "EndpointSettings": "settings", "add_ping": "app",
           "add_strands_fastapi_endpoint": "endpoint", "create_strands_app": "app",
           "create_agentcore_app": "agentcore"}


def __getattr__(name: str) -> object:
    # The server is imported on first use, so the translator can be used without loading FastAPI.
    if name in _SERVED:
        from importlib import import_module

        return getattr(import_module(f".server.{_SERVED[name]}", __name__), name)
    raise AttributeError(name)
