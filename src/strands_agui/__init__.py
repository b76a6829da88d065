"""strands-agui: serve any AWS Strands agent to any AG-UI frontend.

The names match the existing ``ag_ui_strands`` integration, so switching is an import change.
"""

from typing import TYPE_CHECKING

from .config import (
    MediaFetchPolicy,
    PredictStateMapping,
    StrandsAgentConfig,
    ToolBehavior,
    ToolCallContext,
    ToolResultContext,
)
from .environment import env_flag
from .errors import ERROR_CODES
from .runtime.adapter import StrandsAgent
from .runtime.recordings import RecordedRun, Recorder, read_log
from .runtime.storage.s3sessions import S3Sessions
from .runtime.storage.sessions import FileSessions, SessionStore
from .tooling.models import model_from_env
from .tooling.replay import replay, replay_to_list
from .tooling.scripted import Reasoning, ScriptedModel, Text, ToolUse, Turn
from .tooling.testing import assert_replay_matches

if TYPE_CHECKING:
    from .server.agentcore import create_agentcore_app
    from .server.app import add_ping, create_strands_app
    from .server.console.page import mount_console
    from .server.endpoint import add_strands_fastapi_endpoint
    from .server.settings import AppSettings, EndpointSettings
    from .tooling.a2ui import RETRY_HEADER as A2UI_RETRY_HEADER
    from .tooling.a2ui import a2ui_tool

__all__ = [
    "A2UI_RETRY_HEADER",
    "AppSettings",
    "ERROR_CODES",
    "EndpointSettings",
    "FileSessions",
    "MediaFetchPolicy",
    "PredictStateMapping",
    "Reasoning",
    "RecordedRun",
    "Recorder",
    "S3Sessions",
    "ScriptedModel",
    "SessionStore",
    "StrandsAgent",
    "StrandsAgentConfig",
    "Text",
    "ToolBehavior",
    "ToolCallContext",
    "ToolResultContext",
    "ToolUse",
    "Turn",
    "a2ui_tool",
    "add_ping",
    "add_strands_fastapi_endpoint",
    "assert_replay_matches",
    "create_agentcore_app",
    "create_strands_app",
    "env_flag",
    "model_from_env",
    "mount_console",
    "read_log",
    "replay",
    "replay_to_list",
]


_SERVED = {"AppSettings": "settings", "EndpointSettings": "settings", "add_ping": "app",
           "add_strands_fastapi_endpoint": "endpoint", "create_strands_app": "app",
           "create_agentcore_app": "agentcore", "mount_console": "console.page"}
"""The names the package serves from ``server/``: imported on first use, so the translator loads no FastAPI."""
_A2UI = {"a2ui_tool": "a2ui_tool", "A2UI_RETRY_HEADER": "RETRY_HEADER"}
"""The names from ``tooling/a2ui.py``: imported on first use, so only an A2UI agent loads the A2UI toolkit."""


def __getattr__(name: str) -> object:
    from importlib import import_module

    if name in _SERVED:
        return getattr(import_module(f".server.{_SERVED[name]}", __name__), name)
    if name in _A2UI:
        return getattr(import_module(".tooling.a2ui", __name__), _A2UI[name])
    raise AttributeError(name)
