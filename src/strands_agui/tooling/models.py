"""Pick the examples' model from the environment: a scripted one by default (no key, no network), or a
real provider when ``STRANDS_AGUI_MODEL`` names one.

Environment variables:

``STRANDS_AGUI_MODEL``
    Unset or empty (or ``scripted``): the deterministic :class:`~strands_agui.tooling.scripted.ScriptedModel`
    plays the example's scenario. Otherwise ``<provider>:<model_id>`` (split at the first ``:``, so
    model ids may contain colons, e.g. ``ollama:llama3.2:3b``):

    - ``bedrock:<model_id>``   -> ``strands.models.bedrock.BedrockModel`` (AWS credentials and region
      from the usual AWS environment / config; ``AWS_REGION`` is passed on when set)
    - ``openai:<model>``       -> ``strands.models.openai.OpenAIModel`` (``OPENAI_API_KEY``, and
      ``OPENAI_BASE_URL`` for a compatible gateway, are read by the ``openai`` client);
      needs ``pip install 'strands-agents[openai]'``
    - ``anthropic:<model>``    -> ``strands.models.anthropic.AnthropicModel`` (``max_tokens=4096``;
      ``ANTHROPIC_API_KEY`` is read by the ``anthropic`` client); needs
      ``pip install 'strands-agents[anthropic]'``
    - ``ollama:<model>``       -> ``strands.models.ollama.OllamaModel`` on ``OLLAMA_HOST``
      (default ``http://localhost:11434``); needs ``pip install 'strands-agents[ollama]'``

``STRANDS_AGUI_SCRIPTED_DELAY``
    Seconds the scripted model waits before each streamed chunk (default ``0.03``, so streaming is
    visible in a browser; ``0`` in tests).

``OLLAMA_HOST``
    The Ollama server for ``ollama:<model>`` (default ``http://localhost:11434``).

Examples::

    STRANDS_AGUI_MODEL=bedrock:us.anthropic.claude-sonnet-4-20250514-v1:0 strands-agui serve
    STRANDS_AGUI_MODEL=openai:gpt-4o OPENAI_API_KEY=sk-... python -m strands_agui.examples.agentic_chat
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from strands.models import Model
from strands.types.content import Messages

from .scripted import ScriptedModel, Text, ToolUse, Turn

MODEL_ENV = "STRANDS_AGUI_MODEL"
DELAY_ENV = "STRANDS_AGUI_SCRIPTED_DELAY"
DEFAULT_DELAY = "0.03"
DEFAULT_OLLAMA_HOST = "http://localhost:11434"
SCRIPTED = "scripted"

# provider prefix -> (module, class name, the strands-agents extra that installs its client package)
PROVIDERS: dict[str, tuple[str, str, str | None]] = {
    "bedrock": ("strands.models.bedrock", "BedrockModel", None),
    "openai": ("strands.models.openai", "OpenAIModel", "openai"),
    "anthropic": ("strands.models.anthropic", "AnthropicModel", "anthropic"),
    "ollama": ("strands.models.ollama", "OllamaModel", "ollama"),
}

ACCEPTED_FORMS = (
    "unset/empty or 'scripted' (the scripted demo model), 'bedrock:<model_id>', 'openai:<model>', "
    "'anthropic:<model>', 'ollama:<model>'"
)


class ModelProviderUnavailable(ImportError):
    """The provider named in ``STRANDS_AGUI_MODEL`` needs an optional package that is not installed."""


def parse_model_spec(spec: str | None) -> tuple[str, str]:
    """``"openai:gpt-4o"`` -> ``("openai", "gpt-4o")``; unset/empty/``scripted`` -> ``("scripted", "")``.

    Raises ``ValueError`` for an unknown provider or a missing model id."""
    spec = (spec or "").strip()
    if not spec or spec.lower() == SCRIPTED:
        return SCRIPTED, ""
    provider, sep, model_id = spec.partition(":")
    provider, model_id = provider.strip().lower(), model_id.strip()
    if provider not in PROVIDERS:
        raise ValueError(f"{MODEL_ENV}={spec!r}: unknown model provider {provider!r}; accepted: {ACCEPTED_FORMS}")
    if not sep or not model_id:
        raise ValueError(f"{MODEL_ENV}={spec!r}: missing the model id after '{provider}:'; "
                         f"accepted: {ACCEPTED_FORMS}")
    return provider, model_id


def provider_class(provider: str) -> type[Model]:
    """Import the provider's Strands model class, or say which extra to install."""
    module_name, class_name, extra = PROVIDERS[provider]
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        hint = f"pip install 'strands-agents[{extra}]'" if extra else "pip install strands-agents"
        raise ModelProviderUnavailable(
            f"{MODEL_ENV}={provider}:... needs the '{exc.name or provider}' package, which is not installed: "
            f"run `{hint}`"
        ) from exc
    return getattr(module, class_name)


def provider_kwargs(provider: str, model_id: str, env: Mapping[str, str]) -> dict[str, Any]:
    """The constructor arguments for ``provider``'s model class."""
    if provider == "bedrock":
        kwargs: dict[str, Any] = {"model_id": model_id}
        if env.get("AWS_REGION"):
            kwargs["region_name"] = env["AWS_REGION"]
        return kwargs
    if provider == "openai":
        return {"model_id": model_id, "client_args": {}}
    if provider == "anthropic":
        return {"model_id": model_id, "max_tokens": 4096}
    if provider == "ollama":
        return {"host": env.get("OLLAMA_HOST") or DEFAULT_OLLAMA_HOST, "model_id": model_id}
    raise ValueError(f"unknown model provider {provider!r}; accepted: {ACCEPTED_FORMS}")


def scripted_delay(env: Mapping[str, str]) -> float:
    raw = env.get(DELAY_ENV) or DEFAULT_DELAY
    try:
        delay = float(raw)
    except ValueError:
        raise ValueError(f"{DELAY_ENV}={raw!r} is not a number of seconds") from None
    return max(0.0, delay)


HOW_TO_PICK = (f"I am the scripted stand-in model (no key, no network). Set {MODEL_ENV}, e.g. "
               f"{MODEL_ENV}=bedrock:<model_id> or openai:<model>, to talk to a real one.")


def no_model_configured(_messages: Messages) -> Turn:
    """The scripted stand-in's answer when no scenario is given: how to pick a real model."""
    return [Text(HOW_TO_PICK)]


class StandIn:
    """The stand-in's script when no scenario is given: it calls the agent's own tools, so a keyless demo of your
    agent shows them run. A user message that names a tool (a word of its name or description) gets a call of it,
    its arguments read from the message as well as a script can (a word after the parameter's name, a capitalised
    word, a number, else the message), then the result and how to pick a real model; any other message gets how to
    pick a real model and the tools it could call. It keeps nothing between calls: every run is fresh."""

    wants_tool_specs = True

    def __call__(self, messages: Messages, tool_specs: list[Any]) -> Turn:
        last = messages[-1] if messages else {"role": "user", "content": []}
        results = [block["toolResult"] for block in last.get("content") or () if "toolResult" in block]
        if results:
            said = "; ".join(" ".join(str(c.get("text") or c.get("json") or "") for c in r.get("content") or ())
                             for r in results)
            return [Text(f"The tool answered: {said.strip() or '(nothing)'}. {HOW_TO_PICK}")]
        prompt = " ".join(str(block.get("text", "")) for block in last.get("content") or ()).strip()
        spec = _tool_for(prompt, tool_specs)
        if spec is None:
            names = ", ".join(s["name"] for s in tool_specs)
            offer = f" Ask for one of your agent's tools ({names}) and I will call it." if names else ""
            return [Text(HOW_TO_PICK + offer)]
        return [Text(f"Let me call {spec['name']}."), ToolUse(spec["name"], _arguments(prompt, spec))]


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower().replace("_", " ")) if len(w) > 2}


def _tool_for(prompt: str, tool_specs: list[Any]) -> Any:
    asked = _words(prompt)
    scored = [(len(asked & _words(f"{s['name']} {s.get('description', '')}")), i) for i, s in enumerate(tool_specs)]
    best = max(scored, default=(0, -1))
    return tool_specs[best[1]] if best[0] else None


def _arguments(prompt: str, spec: Any) -> dict[str, Any]:
    schema = (spec.get("inputSchema") or {}).get("json") or {}
    properties: dict[str, Any] = schema.get("properties") or {}
    words = re.findall(r"[\w#.-]+", prompt)
    return {name: _value(name, prop if isinstance(prop, dict) else {}, prompt, words)
            for name, prop in properties.items() if name in (schema.get("required") or properties)}


def _value(name: str, prop: dict[str, Any], prompt: str, words: list[str]) -> Any:
    kind = prop.get("type")
    if prop.get("enum"):
        return prop["enum"][0]
    if kind in ("integer", "number"):
        found = re.search(r"-?\d+(?:\.\d+)?", prompt)
        number = float(found.group()) if found else 1
        return int(number) if kind == "integer" else number
    if kind == "boolean":
        return True
    if kind == "array":
        return []
    if kind == "object":
        return {}
    lowered = [w.lower().strip(".") for w in words]
    for key in (name.lower(), *name.lower().split("_")):
        if key in lowered and lowered.index(key) + 1 < len(words):
            return words[lowered.index(key) + 1].strip(".")
    capitalised = [w.strip(".") for w in words[1:] if w[:1].isupper()]
    return capitalised[0] if capitalised else prompt


def model_from_env(scenario: Callable[[Messages], Turn] | None = None, *,
                   env: Mapping[str, str] = os.environ) -> Model:
    """The model an example runs on: ``scenario`` played by a ``ScriptedModel`` unless ``STRANDS_AGUI_MODEL``
    names a real provider (see the module docstring for the accepted forms and variables). Without a
    scenario the scripted model is the :class:`StandIn`: it calls your agent's tools and says how to configure
    a real model."""
    provider, model_id = parse_model_spec(env.get(MODEL_ENV))
    if provider == SCRIPTED:
        return ScriptedModel(scenario or StandIn(), delay=scripted_delay(env))  # type: ignore[arg-type]
    return provider_class(provider)(**provider_kwargs(provider, model_id, env))


__all__ = [
    "ModelProviderUnavailable",
    "StandIn",
    "model_from_env",
    "parse_model_spec",
    "provider_class",
    "provider_kwargs",
]
