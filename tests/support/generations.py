"""What each official client generation is sent: a run's events as the server rewrites them for a client that
declares no protocol version (``@ag-ui/client`` 0.0.59; ``server/transport/versions.py``). The one seam through
which tests below the server (``tests/core``, ``tests/runtime``, which never import it: ``tests/e2e/test_layers.py``)
check the runtime's streams with the legacy client as the server would send them."""

from __future__ import annotations

from strands_agui.server.transport.versions import legacy_event

__all__ = ["legacy_event"]
