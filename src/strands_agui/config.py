"""Configuration: what each tool does on the AG-UI side. Built once, shared read-only by every run."""

from __future__ import annotations

import inspect
import ipaddress
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from ag_ui.core import RunAgentInput

StatePayload: TypeAlias = dict[str, Any]


LIMIT_KEYS = frozenset({"turns", "output_tokens", "total_tokens"})  # Strands' ``Limits``


def _shown(value: Any) -> str:
    """A wrong value as an error message names it: its type, and the value when it is short."""
    text = repr(value)
    return f"{type(value).__name__} {text}" if len(text) <= 60 else type(value).__name__


def _check(owner: Any, name: str, kind: type, expected: str) -> None:
    value = getattr(owner, name)
    if not isinstance(value, kind):
        raise TypeError(f"{type(owner).__name__}.{name} must be {expected}, not {_shown(value)}")


def _check_callable(owner: Any, name: str) -> None:
    value = getattr(owner, name)
    if value is not None and not callable(value):
        raise TypeError(f"{type(owner).__name__}.{name} must be a callable or None, not {_shown(value)}")


def _check_limits(limits: Any) -> None:
    if limits is None:
        return
    if not isinstance(limits, Mapping):
        raise TypeError(f"StrandsAgentConfig.limits must be a dict of {sorted(LIMIT_KEYS)} to positive ints, "
                        f"not {_shown(limits)}")
    for key, value in limits.items():
        if key not in LIMIT_KEYS:
            raise ValueError(f"StrandsAgentConfig.limits has no key {key!r} (Strands' limits: {sorted(LIMIT_KEYS)})")
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise TypeError(f"StrandsAgentConfig.limits[{key!r}] must be a positive int, not {_shown(value)}")


def _predict_state(value: Any) -> tuple[PredictStateMapping, ...] | None:
    """``ToolBehavior.predict_state`` checked: None, one mapping, or an iterable of them (upstream's
    ``Iterable[PredictStateMapping]``). A dict or a string is refused: iterated, it would give its keys."""
    if value is None:
        return None
    if isinstance(value, PredictStateMapping):
        return (value,)
    mappings = None if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable) else tuple(value)
    if mappings is None or not all(isinstance(m, PredictStateMapping) for m in mappings):
        raise TypeError("ToolBehavior.predict_state must be a PredictStateMapping or an iterable of them (as "
                        "upstream ag_ui_strands types it), not "
                        f"{_shown(value)}: write predict_state=[PredictStateMapping(state_key=..., tool=..., "
                        "tool_argument=...)]")
    return mappings


@dataclass(frozen=True)
class ToolCallContext:
    """What a hook sees of a tool call: the run's input, the call's identity and its complete arguments."""

    input_data: RunAgentInput
    tool_name: str
    tool_use_id: str
    tool_input: Any
    args_str: str


@dataclass(frozen=True)
class ToolResultContext(ToolCallContext):
    """A tool call plus its parsed result and the id of the assistant message it belongs to."""

    result_data: Any = None
    message_id: str = ""


ArgsStreamer: TypeAlias = Callable[[ToolCallContext], AsyncIterator[str]]
StateFromArgs: TypeAlias = Callable[[ToolCallContext], "Awaitable[StatePayload | None] | StatePayload | None"]
StateFromResult: TypeAlias = Callable[[ToolResultContext], "Awaitable[StatePayload | None] | StatePayload | None"]
CustomResultHandler: TypeAlias = Callable[[ToolResultContext], AsyncIterator[Any]]
StateContextBuilder: TypeAlias = Callable[[RunAgentInput, str], str]
InvocationStateProvider: TypeAlias = Callable[[Any, RunAgentInput],
                                              "Awaitable[dict[str, Any] | None] | dict[str, Any] | None"]
"""``(request, input_data) -> dict | None`` (sync or async), as upstream ``ag_ui_strands``: trusted server
context for one request, passed to Strands as ``invocation_state``. ``request`` is the FastAPI ``Request``
when the run comes through the endpoint, else None."""

TemplateToolsProvider: TypeAlias = Callable[..., Any]
SessionManagerProvider: TypeAlias = Callable[..., Any]
"""``(input_data) -> SessionManager | None`` (sync or async; a ``principal`` parameter gets the caller's): the
Strands session of the run's thread (upstream ``ag_ui_strands``' name), see ``runtime/building/session_provider.py``."""
"""``(request, input_data) -> names | None`` (sync or async; upstream's one-parameter ``(input_data)`` works
too): the agent's tools one run may use, as names or tool objects; None leaves them all
(``runtime/building/tool_selection.py``)."""


@dataclass(frozen=True)
class CancelContext:
    """What ``StrandsAgentConfig.on_cancel`` gets when a run is cancelled by id, once Strands has stopped:
    the run's input, the messages the client holds at that point (input messages, then the run's own, as a
    ``MESSAGES_SNAPSHOT`` carries them: camelCase dicts) and the shared state."""

    input_data: RunAgentInput
    messages: list[Any]
    state: Any


@dataclass(frozen=True)
class PredictStateMapping:
    """Tells the UI to project ``tool_argument`` of ``tool`` into ``state_key`` while the arguments stream."""

    state_key: str
    tool: str
    tool_argument: str

    def __post_init__(self) -> None:
        for name in ("state_key", "tool", "tool_argument"):
            _check(self, name, str, "a str")

    def to_payload(self) -> dict[str, str]:
        return {"state_key": self.state_key, "tool": self.tool, "tool_argument": self.tool_argument}


@dataclass(frozen=True)
class ToolBehavior:
    """How the adapter treats one tool (keyed by the Strands tool name in ``StrandsAgentConfig``)."""

    skip_messages_snapshot: bool = False
    continue_after_frontend_call: bool = False
    stop_streaming_after_result: bool = False
    predict_state: Iterable[PredictStateMapping] | PredictStateMapping | None = None
    args_streamer: ArgsStreamer | None = None
    state_from_args: StateFromArgs | None = None
    state_from_result: StateFromResult | None = None
    custom_result_handler: CustomResultHandler | None = None
    interrupt_on_call: bool = False
    """Ask the client for approval before the tool runs (an interrupt with responseSchema
    ``{approved: boolean, reason?: string}``); a refusal cancels the call and the model is told why."""

    def __post_init__(self) -> None:
        for name in ("skip_messages_snapshot", "continue_after_frontend_call", "stop_streaming_after_result",
                     "interrupt_on_call"):
            _check(self, name, bool, "a bool")
        for name in ("args_streamer", "state_from_args", "state_from_result", "custom_result_handler"):
            _check_callable(self, name)
        # kept as a tuple: an iterable given once (a generator) serves every run
        object.__setattr__(self, "predict_state", _predict_state(self.predict_state))

    def predict_state_payload(self) -> list[dict[str, str]]:
        return [mapping.to_payload() for mapping in normalize_predict_state(self.predict_state)]


_DEFAULT_BEHAVIOR = ToolBehavior()


@dataclass(frozen=True)
class StrandsAgentConfig:
    """Adapter configuration: per-tool behaviours, the prompt rewriter, what each run passes Strands, and how
    Swarm/Graph nodes are shown."""

    tool_behaviors: Mapping[str, ToolBehavior] = field(default_factory=dict)
    state_context_builder: StateContextBuilder | None = None
    invocation_state_provider: InvocationStateProvider | None = None
    template_tools_provider: TemplateToolsProvider | None = None
    """Narrows the agent's tools for one run (upstream ``ag_ui_strands``' name): see ``TemplateToolsProvider``."""
    session_manager_provider: SessionManagerProvider | None = None
    """The Strands ``SessionManager`` of each run's thread (upstream ``ag_ui_strands``' name): Strands restores
    and persists the thread's conversation and ``agent.state``; see ``runtime/building/session_provider.py``."""
    limits: Mapping[str, int] | None = None
    """Strands' per-invocation budget (``{"turns": N, "output_tokens": N, "total_tokens": N}``)."""
    raw_events: bool = False
    """Pass Strands events that have no AG-UI meaning through as RAW (invocation_state keys and live objects
    stripped)."""
    on_cancel: Callable[[CancelContext], Any] | None = None
    """Called (sync or async) when a run is cancelled by id (``POST <path>/runs/{runId}/cancel``), after Strands
    stopped and before RUN_FINISHED ``outcome: cancelled``: keep the partial work. A failure is reported as
    ``CUSTOM strands_agui.hook_error``, never the end of the run."""
    multiagent_events: Literal["subagents", "steps"] = "subagents"
    """``"subagents"``: each node invocation is a subagent (SUBAGENT_STARTED ... FINISHED/ERROR, its events
    attributed by ``subagentRunId``). ``"steps"``: upstream ``ag_ui_strands``' shape (STEP_STARTED/STEP_FINISHED
    per node, CUSTOM ``MultiAgentHandoff`` / ``MultiAgentNodeStatus``, node text unattributed)."""
    resume_payload: Literal["wrapped", "bare"] = "wrapped"
    """What ``tool_context.interrupt()`` (or a hook's ``event.interrupt()``) returns on resume. ``"wrapped"``
    (upstream ``ag_ui_strands``' contract, so its tools move over unchanged): ``{"response": payload}`` for a
    ``resolved`` entry, ``{"cancelled": True}`` for a ``cancelled`` one. ``"bare"``: the payload itself (and
    ``{"cancelled": True}``). Approvals (``ToolBehavior(interrupt_on_call=True)``) read ``{approved, ...}`` either
    way. See ``docs/human-in-the-loop.md``."""

    def __post_init__(self) -> None:
        behaviors = self.tool_behaviors
        if not isinstance(behaviors, Mapping) or not all(
                isinstance(k, str) and isinstance(v, ToolBehavior) for k, v in behaviors.items()):
            raise TypeError("StrandsAgentConfig.tool_behaviors must be a mapping of tool names (str) to "
                            f"ToolBehavior, not {_shown(behaviors)}")
        for name in ("state_context_builder", "invocation_state_provider", "template_tools_provider",
                     "session_manager_provider", "on_cancel"):
            _check_callable(self, name)
        _check(self, "raw_events", bool, "a bool")
        _check_limits(self.limits)
        if self.multiagent_events not in ("subagents", "steps"):
            raise ValueError("StrandsAgentConfig.multiagent_events must be 'subagents' or 'steps', not "
                             f"{self.multiagent_events!r}")
        if self.resume_payload not in ("wrapped", "bare"):
            raise ValueError("StrandsAgentConfig.resume_payload must be 'wrapped' or 'bare', not "
                             f"{self.resume_payload!r}")

    def behavior(self, tool_name: str) -> ToolBehavior:
        """The behaviour configured for ``tool_name``, or the default one."""
        return self.tool_behaviors.get(tool_name, _DEFAULT_BEHAVIOR)


async def maybe_await(value: Any) -> Any:
    """Await ``value`` when it is awaitable; hooks may be sync or async."""
    if inspect.isawaitable(value):
        return await value
    return value


def normalize_predict_state(
    value: Iterable[PredictStateMapping] | PredictStateMapping | None,
) -> list[PredictStateMapping]:
    """A list of mappings from ``None``, one mapping, or any iterable of them."""
    if value is None:
        return []
    if isinstance(value, PredictStateMapping):
        return [value]
    return list(value)


@dataclass(frozen=True)
class MediaFetchPolicy:
    """Lets the endpoint fetch image and document parts given by URL (``fetch_media=`` of
    ``add_strands_fastapi_endpoint`` / ``create_strands_app``; off when None, the default). See
    ``server/request/media.py`` for what is refused and why.

    ``schemes``: URL schemes fetched (``http`` only if listed). ``allowed_hosts``: host names fetched (None:
    any host whose addresses are all public). ``exempt_networks``: CIDR ranges the address refusal does not
    apply to (an internal media server you trust; empty by default). ``max_bytes``, ``timeout_seconds``: per
    URL, the whole fetch with its redirects. ``max_redirects``: each hop is checked as the first URL was.
    ``max_urls``: URLs one request may make the server fetch."""

    schemes: frozenset[str] = frozenset({"https"})
    allowed_hosts: frozenset[str] | None = None
    exempt_networks: tuple[str, ...] = ()
    max_bytes: int = 5 * 1024 * 1024
    timeout_seconds: float = 10.0
    max_redirects: int = 3
    max_urls: int = 8

    def __post_init__(self) -> None:
        unknown = set(self.schemes) - {"https", "http"}
        if not self.schemes or unknown:
            raise ValueError(f"schemes must be 'https' and/or 'http', not {sorted(self.schemes)}")
        for name in ("max_bytes", "max_redirects", "max_urls"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < (0 if name == "max_redirects" else 1):
                raise ValueError(f"{name} must be a positive int, not {value!r}")
        if not self.timeout_seconds > 0:
            raise ValueError(f"timeout_seconds must be positive, not {self.timeout_seconds!r}")
        for network in self.exempt_networks:
            ipaddress.ip_network(network)  # raises ValueError for a range that is not one
