"""The AgentCore container recipe (``Dockerfile``, ``make container``; docs/deployment.md):

* the Dockerfile read as a builder reads it: a multi-arch base, the package with its extras installed from the
  checkout, a non-root ``USER``, ``EXPOSE 8080``, a ``HEALTHCHECK`` on ``/ping``, a build context of the package
  alone (``.dockerignore``);
* its command (``ENTRYPOINT`` + ``CMD``), run from a fresh virtual environment holding a wheel of this tree, serves the
  contract (``/ping``, ``/invocations`` without ``Accept``, ``/ws``), and its ``HEALTHCHECK`` command passes on it;
* the image built and run, where podman or docker runs here and the base image can be had (skipped with the reason
  otherwise: a machine that reaches no container registry cannot build it).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.oracles import assert_valid_sse, assert_valid_stream
from tests.support.agentcore import agentcore_headers, ping, socket_to
from tests.support.install import clean_env, free_port, installed_venv
from tests.support.paths import REPO
from tests.support.wire import run_input
from tests.support.workers import serving

pytestmark = pytest.mark.slow  # a wheel, a fresh environment, a server process


def instructions(path: Path = REPO / "Dockerfile") -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order: comments dropped, continuation lines joined."""
    out: list[tuple[str, str]] = []
    pending = ""
    for line in path.read_text().splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        pending += line.rstrip().removesuffix("\\") + " " if line.rstrip().endswith("\\") else line.strip()
        if not line.rstrip().endswith("\\"):
            word, _, rest = pending.strip().partition(" ")
            out.append((word.upper(), rest.strip()))
            pending = ""
    return out


def last(name: str) -> str:
    return [args for word, args in instructions() if word == name][-1]


def command() -> list[str]:
    """What the image runs: its ENTRYPOINT then its CMD (both JSON arrays, no shell)."""
    return json.loads(last("ENTRYPOINT")) + json.loads(last("CMD"))


def healthcheck() -> list[str]:
    return json.loads(last("HEALTHCHECK").partition(" CMD ")[2])


def base_image() -> str:
    """The first ``ARG``, ``BASE``: the image both stages start from."""
    return next(args for word, args in instructions() if word == "ARG").partition("=")[2]


def test_the_dockerfile_is_the_contracts_container() -> None:
    steps = instructions()
    words = [word for word, _ in steps]
    assert words.count("FROM") == 2 and base_image().endswith("python:3.11-slim-bookworm")  # a multi-arch manifest
    user = last("USER")
    assert user not in ("root", "0") and words.index("USER") < words.index("ENTRYPOINT")
    assert last("EXPOSE") == "8080"
    assert "http://127.0.0.1:8080/ping" in " ".join(healthcheck()) and "HealthyBusy" in " ".join(healthcheck())
    assert "agentcore" in last("ARG").partition("=")[2].split(",")  # /ws's WebSocket library
    install = next(args for word, args in steps if word == "RUN" and "pip install" in args)
    assert "/wheels/strands_agui-" in install and "[${EXTRAS}]" in install  # the checkout's own wheel
    assert command()[:3] == ["strands-agui", "serve", "--agentcore"] and "--host" not in command()  # 0.0.0.0:8080
    ignored = [line.strip() for line in (REPO / ".dockerignore").read_text().splitlines()
               if line.strip() and not line.startswith("#")]
    assert ignored[0] == "*" and {"!pyproject.toml", "!README.md", "!src/"} <= set(ignored)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return installed_venv(tmp_path_factory.mktemp("container-install"))


@pytest.fixture(scope="module")
def served(installed: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """The image's command from the fresh environment, in an empty directory (the image's WORKDIR), on loopback."""
    cwd, port = tmp_path_factory.mktemp("workdir"), free_port()
    argv = [str(installed / "bin" / command()[0]), *command()[1:], "--host", "127.0.0.1", "--port", str(port)]
    env = {**clean_env(cwd), "PATH": f"{installed / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    with serving(argv, port, env, cwd) as (base, _):
        yield base, port


def test_the_images_command_serves_the_contract_from_a_fresh_install(served: tuple[str, int]) -> None:
    base, _ = served
    assert ping(base)["status"] == "Healthy"
    body = run_input("what is the weather in Paris?", "thread-container")
    response = httpx.post(f"{base}/invocations", json=body, headers=agentcore_headers("session-container"),
                          timeout=60)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    assert_valid_sse(response.content, input=body)
    with socket_to(base) as socket:
        events = socket.run(run_input("hello", "thread-container-ws"))
        assert socket.closed() == (1000, "")
    assert_valid_stream(events)


def test_the_healthcheck_passes_on_it(served: tuple[str, int], installed: Path) -> None:
    _, port = served
    check = [arg.replace("127.0.0.1:8080", f"127.0.0.1:{port}") for arg in healthcheck()]
    done = subprocess.run([str(installed / "bin" / check[0]), *check[1:]], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr


def container_tool() -> list[str]:
    """podman (or docker) when it runs here and the base image can be had; else skip, saying why."""
    tool = shutil.which("podman") or shutil.which("docker")
    if tool is None:
        pytest.skip("no podman or docker on this machine: the image is not built here (make container)")
    info = subprocess.run([tool, "info"], capture_output=True, text=True, timeout=60)
    if info.returncode != 0:
        pytest.skip(f"{Path(tool).name} does not run here: {(info.stderr.strip().splitlines() or [''])[-1][:200]}")
    pulled = subprocess.run([tool, "pull", base_image()], capture_output=True, text=True, timeout=300)
    if pulled.returncode != 0:
        pytest.skip(f"the base image {base_image()} cannot be pulled here: "
                    f"{(pulled.stderr.strip().splitlines() or [''])[-1][:200]}")
    return [tool]


def test_the_image_builds_and_serves_the_contract() -> None:
    tool = container_tool()
    image, port = "strands-agui-agentcore-test", free_port()
    isolation = ["--isolation", "chroot"] if Path(tool[0]).name == "podman" else []  # RUN steps inside a sandbox too
    subprocess.run([*tool, "build", *isolation, "-t", image, str(REPO)], check=True, capture_output=True, timeout=1200)
    started = subprocess.run([*tool, "run", "-d", "-p", f"127.0.0.1:{port}:8080", image], capture_output=True,
                             text=True, timeout=120)
    if started.returncode != 0:
        pytest.skip(f"the image built, but no container runs here: {started.stderr.strip()[-200:]}")
    container = started.stdout.strip()
    try:
        user = subprocess.run([*tool, "exec", container, "id", "-u"], capture_output=True, text=True, timeout=30)
        assert user.stdout.strip() not in ("", "0"), user
        deadline = time.monotonic() + 120
        while True:
            try:
                assert ping(f"http://127.0.0.1:{port}")["status"] == "Healthy"
                break
            except (httpx.TransportError, AssertionError):
                assert time.monotonic() < deadline, shlex.join([*tool, "logs", container])
                time.sleep(0.5)
        body = run_input("hello", "thread-image")
        response = httpx.post(f"http://127.0.0.1:{port}/invocations", json=body, timeout=60,
                              headers=agentcore_headers("session-image"))
        assert_valid_sse(response.content, input=body)
    finally:
        subprocess.run([*tool, "rm", "-f", container], capture_output=True, timeout=60)
