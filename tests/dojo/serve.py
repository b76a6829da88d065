"""Serve some of the Dojo's Strands example agents, each at ``/<name>``: ``python serve.py EXAMPLES PORT NAME...``.

``EXAMPLES`` is an extracted examples tree (``harness.examples_tree``): its ``server.api.<name>`` modules are
imported as they are, each builds its agent and its app (``create_strands_app``, ours or upstream's, whichever
the tree imports), and each app is mounted as the Dojo server mounts them. Run as a script, in its own process,
so each adapter gets a fresh interpreter and the agents' import-time environment (``OTEL_*``) stays theirs.
"""

from __future__ import annotations

import importlib
import sys

import uvicorn
from fastapi import FastAPI


def main(examples: str, port: int, names: list[str]) -> None:
    sys.path.insert(0, examples)
    app = FastAPI(title="tests/dojo")
    for name in names:
        app.mount(f"/{name}", importlib.import_module(f"server.api.{name}").app, name)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3:])
