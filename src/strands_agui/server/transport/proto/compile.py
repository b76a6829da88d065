"""Compile the vendored AG-UI schema (``agui_v1/*.proto``) into ``agui_v1/*_pb2.py`` and ``*_pb2.pyi``.

``python -m strands_agui.server.transport.proto.compile [OUT_DIR]`` (``make proto``). Needs ``grpcio-tools`` (the dev
extra); the running service never imports this module. protoc writes imports rooted at the proto path
(``from agui_v1 import types_pb2``); they are rewritten to relative imports so the package imports from
anywhere.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCHEMA = HERE / "agui_v1"
PROTOS = ("events.proto", "patch.proto", "types.proto")
_ROOTED_IMPORT = re.compile(r"^from agui_v1 import ", re.M)


def compile_schema(out: Path = SCHEMA) -> list[Path]:
    """Write the generated modules for ``agui_v1/*.proto`` into ``out`` (its ``agui_v1/`` layout flattened);
    returns the files written."""
    import tempfile

    from grpc_tools import protoc  # dev extra only

    include = Path(protoc.__file__).resolve().parent / "_proto"
    with tempfile.TemporaryDirectory() as tmp:
        args = ["protoc", f"-I{HERE}", f"-I{include}", f"--python_out={tmp}", f"--pyi_out={tmp}",
                *(f"agui_v1/{name}" for name in PROTOS)]
        if protoc.main(args) != 0:
            raise RuntimeError(f"protoc failed on {', '.join(PROTOS)}")
        written = []
        out.mkdir(parents=True, exist_ok=True)
        for generated in sorted((Path(tmp) / "agui_v1").iterdir()):
            target = out / generated.name
            target.write_text(_ROOTED_IMPORT.sub("from . import ", generated.read_text()))
            written.append(target)
    return written


if __name__ == "__main__":
    for path in compile_schema(Path(sys.argv[1]) if len(sys.argv) > 1 else SCHEMA):
        print(path)
