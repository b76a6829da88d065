"""What one run passes ``stream_async`` besides the prompt: its ``invocation_state`` and ``limits``.

``invocation_state`` is the provider's dict (``StrandsAgentConfig.invocation_state_provider``, called once per
request with the FastAPI request and the run input), copied, plus :data:`AGUI_INPUT_KEY` holding the
``RunAgentInput``: Strands hooks and tools read the run input, ``forwardedProps`` and ``context`` there
(``event.invocation_state[AGUI_INPUT_KEY]``, ``tool_context.invocation_state[AGUI_INPUT_KEY]``). Strands merges
these keys into some of its events; the translator never reads them back and RAW events strip them.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from ag_ui.core import RunAgentInput

from ..config import StrandsAgentConfig, maybe_await
from ..core.state_keys import AGUI_INPUT_KEY
from ..errors import RunRefused


async def invocation_state(config: StrandsAgentConfig, request: Any, input_data: RunAgentInput,
                           given: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The run's invocation_state; raises :class:`RunRefused` (``INVOCATION_STATE_ERROR``) when the provider
    fails or returns something other than a dict or None."""
    state: Any = given
    provider = config.invocation_state_provider
    if state is None and provider is not None:
        try:
            state = await maybe_await(provider(request, input_data))
        except Exception as exc:  # noqa: BLE001 - the run reports it
            raise RunRefused("INVOCATION_STATE_ERROR", f"invocation_state_provider failed: "
                                                       f"{type(exc).__name__}: {exc}") from exc
    if state is not None and not isinstance(state, Mapping):
        raise RunRefused("INVOCATION_STATE_ERROR", "invocation_state_provider must return a dict or None, "
                                                   f"not {type(state).__name__}")
    return {**(state or {}), AGUI_INPUT_KEY: input_data}


def stream_kwargs(config: StrandsAgentConfig, state: dict[str, Any],
                  cancel: threading.Event | None = None) -> dict[str, Any]:
    """The keyword arguments of ``stream_async`` for one run (``cancel``: Strands' ``cancel_signal``)."""
    kwargs: dict[str, Any] = {"invocation_state": state}
    if cancel is not None:
        kwargs["cancel_signal"] = cancel
    if config.limits:
        kwargs["limits"] = dict(config.limits)
    return kwargs
