"""The configuration a log was recorded with, as an importable reference (``"module:attr"``).

A log replays to the live run's events only with the live run's ``StrandsAgentConfig`` (tool behaviours decide
PredictState, STATE_DELTAs, halts). The recorder writes the config's reference into the header's metadata
(``CONFIG_KEY``) whenever it can be named:

* the default config (``StrandsAgentConfig()``, nothing set) is ``strands_agui.config:StrandsAgentConfig``
  (the class is a factory returning one);
* a config that is a module-level attribute of an imported module (``CONFIG = StrandsAgentConfig(...)``) is
  that attribute, e.g. ``strands_agui.examples.shared_state:CONFIG``;
* a config given a name with :func:`name_config` (e.g. one a factory builds) is that name.

``strands-agui replay`` resolves the reference (``tooling/cli_checks.load_config``: an attribute that is a
config, or a factory returning one) unless ``--config`` overrides it.
"""

from __future__ import annotations

import sys
import weakref
from typing import Any

from ...config import StrandsAgentConfig

CONFIG_KEY = "config"
DEFAULT_REFERENCE = "strands_agui.config:StrandsAgentConfig"
_NAMED: dict[int, tuple[weakref.ref[Any], str]] = {}


def name_config(config: StrandsAgentConfig, reference: str) -> StrandsAgentConfig:
    """Record that ``reference`` (``"module:attr"``, a config or a factory returning an equivalent one)
    names ``config``; returns ``config``, so ``StrandsAgent(agent, config=name_config(build(), "app:build"))``."""
    if ":" not in reference:
        raise ValueError(f"{reference!r} is not MODULE:ATTRIBUTE")
    key = id(config)
    _NAMED[key] = (weakref.ref(config, lambda _: _NAMED.pop(key, None)), reference)
    return config


def config_reference(config: StrandsAgentConfig) -> str | None:
    """``"module:attr"`` naming ``config``, or None when it cannot be named (see the module docstring)."""
    named = _NAMED.get(id(config))
    if named is not None and named[0]() is config:
        return named[1]
    if config == StrandsAgentConfig():
        return DEFAULT_REFERENCE
    for module_name, module in list(sys.modules.items()):
        if module_name == "__main__":  # not importable under that name by `replay`
            continue
        for attr, value in list(getattr(module, "__dict__", {}).items()):
            if value is config and not attr.startswith("__"):
                name_config(config, f"{module_name}:{attr}")
                return f"{module_name}:{attr}"
    return None
