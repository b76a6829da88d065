"""``RUN_ERROR`` codes: one documented code for every way a run can fail.

Codes are chosen from the exception's class *name*, so a replayed log (which keeps only the name and message)
fails with exactly the code and message the live run had.
"""

from __future__ import annotations

from dataclasses import dataclass

# code -> when it is used. The README's error table is generated from this mapping.
ERROR_CODES: dict[str, str] = {
    "MODEL_THROTTLED": "The model kept throttling after Strands' retries (ModelThrottledException).",
    "CONTEXT_WINDOW_OVERFLOW": "The conversation could not be trimmed to fit the model "
    "(ContextWindowOverflowException).",
    "MAX_TOKENS": "The model stopped at its output token limit (MaxTokensReachedException).",
    "EVENT_LOOP_ERROR": "Strands' event loop failed and named no original exception (EventLoopException); "
    "one that names it is reported under the original's code.",
    "STRUCTURED_OUTPUT_ERROR": "Structured output could not be produced (StructuredOutputException).",
    "AGENT_BUSY": "The Strands agent is already running another invocation (ConcurrencyException).",
    "MODEL_CREDENTIALS_MISSING": "The model provider found no credentials (botocore's NoCredentialsError, an OpenAI "
    "or Anthropic client without its API key); the message names the environment variable(s) to set.",
    "STRANDS_ERROR": "Any other exception raised by the Strands stream, e.g. the model provider's own error.",
    "INVALID_TRANSITION": "The adapter met a Strands event it cannot place in the run (a bug: please report it).",
    "ADAPTER_ERROR": "The adapter itself failed while translating an event (a bug: please report it).",
    "ENCODING_ERROR": "An AG-UI event could not be serialized for the transport; the run is cut short there (the "
    "client's open tool calls get parseable arguments and their END first; a RUN_STARTED that cannot be serialized "
    "is replaced by a bare one).",
    "ID_FACTORY_ERROR": "The StrandsAgent's id_factory raised, returned something other than a non-empty str, or "
    "returned an id it had already given in the run (ids must be unique); what was sent before is closed.",
    "CONFIGURATION_ERROR": "The run's agent could not be built from the configuration: the agent factory raised "
    "or returned something other than a Strands Agent, Swarm or Graph, or the template could not be copied; "
    "Strands was not called.",
    "INTERRUPT_NOT_FOUND": "A resume names an interrupt the thread is not waiting for: an unknown id, or a thread "
    "with no paused run (already resumed, so an identical resume sent twice gets this and changes nothing).",
    "RESUME_INCOMPLETE": "A resume does not answer every pending interrupt of the thread.",
    "RESUME_INVALID": "A resume answer does not match its interrupt's responseSchema, a resolved entry has no "
    "payload, one interrupt is answered twice, or the resume carries a new user message.",
    "INTERRUPT_EXPIRED": "The paused run is older than the session store's retention; its state was removed.",
    "THREAD_BUSY": "Another run holds this paused thread (a concurrent resume), or this server-side thread (a "
                   "concurrent run); nothing was changed.",
    "SESSION_ERROR": "The session store could not read or write the thread's pause state or server-side thread "
    "(at the run's start, taking its lease, restoring a pause, Strands' own session writes during the run, or "
    "keeping the pause and thread after it; an S3 store that times out answers within its documented bound), or "
    "the session_manager_provider raised, returned something other than a SessionManager or None, or its "
    "session could not be read or written (Strands' SessionException).",
    "RUN_LOST": "A resumable run's stored events end before its terminal event: the worker running it stopped "
    "(SIGKILL, a crash, a lost host) or the event store could not be read. A reconnecting client gets the "
    "events that were stored, then this; what the run did after its last stored event is lost.",
    "RUN_ABANDONED": "A resumable run's client left and none reconnected within detach_seconds: the run was "
    "cancelled (its stored events end with this).",
    "INVOCATION_STATE_ERROR": "The invocation_state_provider raised, or returned something other than a dict "
    "or None; Strands was not called.",
    "TOOL_SELECTION_ERROR": "The template_tools_provider raised, or returned something other than None or a list "
    "of tool names (a bare string, a mapping); Strands was not called.",
}

# code -> when a request is refused with it before any run starts (an HTTP status, the code in the JSON body's
# ``detail.code``). docs/errors.md's refusal table is this mapping.
REFUSAL_CODES: dict[str, str] = {
    "RUN_LIMIT": "HTTP 429 (with Retry-After) for a new resumable run: its principal already has as many live "
    "runs as it may, or the event store is full of live runs (which are never evicted). The body's detail names "
    "the limit (live_runs_per_principal, runs, live_runs, bytes) and its maximum; let a run end or cancel one, "
    "then retry. Nothing was started.",
    "OVERLOADED": "HTTP 503 (with Retry-After) for a new run: the worker is serving as many runs as it can at their "
    "normal latency (cause runs_in_flight; the limit is learned from its event loop's lag), or a resumable run's "
    "events could not be stored now (cause event_store). The body's detail names the cause, the limit and the runs "
    "in flight; retry after Retry-After seconds, on any worker. On AgentCore's /ws the socket closes with 1013 "
    "(Try Again Later), its reason naming OVERLOADED and the cause. Nothing was started.",
}

_BY_CLASS_NAME: dict[str, str] = {
    "ModelThrottledException": "MODEL_THROTTLED",
    "ContextWindowOverflowException": "CONTEXT_WINDOW_OVERFLOW",
    "MaxTokensReachedException": "MAX_TOKENS",
    "EventLoopException": "EVENT_LOOP_ERROR",
    "StructuredOutputException": "STRUCTURED_OUTPUT_ERROR",
    "ConcurrencyException": "AGENT_BUSY",
    "SessionException": "SESSION_ERROR",  # Strands' session manager failed during the run (S3 store: any failure)
    "MachineError": "INVALID_TRANSITION",
    "IdFactoryError": "ID_FACTORY_ERROR",
    "ConfigurationError": "CONFIGURATION_ERROR",
}


_AWS = ("set AWS credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE), and AWS_REGION")
_MISSING_CREDENTIALS: tuple[tuple[str, str, str], ...] = (
    # (class name the provider raises, a fragment its message must hold, what to set)
    ("NoCredentialsError", "", _AWS),
    ("PartialCredentialsError", "", _AWS),
    ("OpenAIError", "OPENAI_API_KEY", "set OPENAI_API_KEY"),
    ("TypeError", "Could not resolve authentication method", "set ANTHROPIC_API_KEY"),  # the anthropic client
)


def _missing_credentials(name: str, message: str) -> str | None:
    """What to set when ``name: message`` is a provider saying it has no credentials, else None."""
    for class_name, fragment, fix in _MISSING_CREDENTIALS:
        if name == class_name and fragment in message:
            return fix
    return None


@dataclass(frozen=True)
class RunFailure:
    """What ends a run with ``RUN_ERROR``: a documented code and a message for people."""

    code: str
    message: str


class IdFactoryError(Exception):
    """The ``id_factory`` failed, or gave an id that is empty, not a ``str``, or already given in the run."""


class ConfigurationError(TypeError):
    """The run's agent cannot be built from the configuration (e.g. the agent factory returned no agent)."""


class RunRefused(Exception):
    """A request the run cannot serve, found after RUN_STARTED (a bad resume, a busy thread): ``RUN_ERROR``
    with ``code``, before Strands is asked for anything."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code

    @property
    def failure(self) -> RunFailure:
        return RunFailure(self.code, str(self))


def exception_type_name(exc: BaseException) -> str:
    """The class name a log records for ``exc`` (a replayed exception reports its recorded name)."""
    return getattr(exc, "type_name", None) or type(exc).__name__


def strands_failure(exc: BaseException) -> RunFailure:
    """The failure for an exception raised by the Strands stream (live or replayed).

    Strands wraps a model error raised in any cycle after the first (and a failing Strands hook) in an
    ``EventLoopException``; the code and message are those of the wrapped ``original_exception``."""
    original = getattr(exc, "original_exception", None)
    if exception_type_name(exc) == "EventLoopException" and isinstance(original, BaseException):
        exc = original
    name = exception_type_name(exc)
    fix = _missing_credentials(name, str(exc))
    if fix is not None:
        return RunFailure("MODEL_CREDENTIALS_MISSING", f"The model has no credentials: {fix} ({name}: {exc})")
    code = _BY_CLASS_NAME.get(name, "STRANDS_ERROR")
    return RunFailure(code, f"{name}: {exc}")


def adapter_failure(exc: BaseException) -> RunFailure:
    """The failure for an exception raised by the adapter's own translation."""
    name = type(exc).__name__
    return RunFailure(_BY_CLASS_NAME.get(name, "ADAPTER_ERROR"), f"{name}: {exc}")


def building_failure(exc: BaseException) -> RunFailure:
    """The failure for an exception raised while the run's agent was built (before Strands was called): the
    code Strands' own exception class has (a model without credentials, ...), else ``CONFIGURATION_ERROR``."""
    failure = strands_failure(exc)
    return RunFailure("CONFIGURATION_ERROR", failure.message) if failure.code == "STRANDS_ERROR" else failure
