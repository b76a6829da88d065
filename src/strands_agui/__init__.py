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
    "create_strands_app",
    "read_log",
    "replay",
    "replay_to_list",
]


def __getattr__(name: str) -> object:
    # The transport is imported on first use, so the translator can be used without loading FastAPI.
    if name in ("AppSettings", "EndpointSettings", "add_ping", "add_strands_fastapi_endpoint", "create_strands_app"):
        from .server import endpoint

        return getattr(endpoint, name)
    raise AttributeError(name)
