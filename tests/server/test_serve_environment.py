"""What ``strands-agui serve`` tells its workers is read once, by one parser (issue 27, item 5): ``ServeEnvironment``.

An on/off variable means the same whichever feature reads it (``true`` was off for ``--resumable`` and ``--metrics``,
which compared with ``"1"``, and on for ``--threads``); a wrong one is refused when the app is built, naming the
variable; the environment is read when the app (or the agent) is built, never again during a request; the CLI's
flags are written into it and read back the same; an endpoint's own store beats the environment's, an operator's
flag is never turned off by a default.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from strands_agui.environment import (
    _VARIABLES,
    ATTEMPTS_ENV,
    CONNECT_TIMEOUT_ENV,
    COOLDOWN_ENV,
    DETACH_ENV,
    LEASE_ENV,
    LIVE_RUNS_ENV,
    MAX_RUNS_ENV,
    METRICS_ENV,
    REDIS_CONNECTIONS_ENV,
    RESUMABLE_ENV,
    RETENTION_ENV,
    SESSIONS_ENV,
    THREADS_ENV,
    ServeEnvironment,
    env_flag,
)
from strands_agui.runtime.storage.default import default_store
from strands_agui.runtime.storage.sessions import FileSessions
from strands_agui.server.app import create_strands_app
from strands_agui.server.endpoint import add_strands_fastapi_endpoint
from strands_agui.server.request.admission import AdmissionPolicy, serve_policy
from strands_agui.server.resumable.event_store import MemoryEvents
from strands_agui.server.resumable.redis_store import RedisEvents
from strands_agui.server.resumable.run_routes import Resumable, resumable_runs
from strands_agui.tooling.cli import parser, serve_environment
from tests.support.agents import echo_model, strands_agent

SERVE_VARIABLES = tuple(_VARIABLES.values())


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """None of serve's variables set (each restored after the test, including those the CLI writes)."""
    for name in SERVE_VARIABLES:
        monkeypatch.setenv(name, "")  # recorded, so that what the CLI writes is undone after the test
        monkeypatch.delenv(name)


@pytest.mark.parametrize("text", ["1", "true", "TRUE", "yes", "on", " On "])
def test_every_on_spelling_is_on(text: str) -> None:
    assert env_flag("X", text) is True


@pytest.mark.parametrize("text", [None, "", "0", "false", "no", "off", " OFF "])
def test_every_off_spelling_is_off(text: str | None) -> None:
    assert env_flag("X", text) is False


@pytest.mark.parametrize("text", ["2", "enabled", "y", "maybe"])
def test_any_other_value_is_refused_naming_the_variable(text: str) -> None:
    with pytest.raises(ValueError, match=f"STRANDS_AGUI_THREADS={text!r}"):
        env_flag("STRANDS_AGUI_THREADS", text)


def test_the_three_flags_read_true_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """``true`` turned --threads on but left --resumable and --metrics off (they compared with "1")."""
    for name in (THREADS_ENV, RESUMABLE_ENV, METRICS_ENV):
        monkeypatch.setenv(name, "true")
    app = create_strands_app(strands_agent(echo_model()))
    with TestClient(app) as client:
        capabilities = client.get("/capabilities").json()
        assert capabilities["transport"]["resumable"] is True
        assert capabilities["state"]["persistentState"] is True
        assert client.get("/metrics").status_code == 200


def test_a_wrong_flag_fails_when_the_app_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(RESUMABLE_ENV, "enabled")
    with pytest.raises(ValueError, match="STRANDS_AGUI_RESUMABLE='enabled'"):
        create_strands_app(strands_agent(echo_model()))


def test_the_environment_is_read_when_the_app_is_built_not_per_request(monkeypatch: pytest.MonkeyPatch) -> None:
    app = create_strands_app(strands_agent(echo_model()))
    monkeypatch.setenv(THREADS_ENV, "1")  # too late: the app was built without it
    with TestClient(app) as client:
        assert client.get("/capabilities").json()["state"]["persistentState"] is False


def test_an_agent_takes_its_default_store_when_it_is_built(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(SESSIONS_ENV, str(tmp_path / "first"))
    adapter = strands_agent(echo_model())
    monkeypatch.setenv(SESSIONS_ENV, str(tmp_path / "second"))
    assert isinstance(adapter.sessions, FileSessions) and adapter.sessions.directory == tmp_path / "first"


def test_an_endpoints_own_store_beats_the_environment_and_the_environment_beats_a_plain_true() -> None:
    served = ServeEnvironment(resumable=True, events="redis://127.0.0.1:1/0", detach_seconds=3.0)
    own = Resumable(MemoryEvents())
    assert resumable_runs(own, served) is own
    from_env = resumable_runs(True, served)
    assert from_env is not None and isinstance(from_env.store, RedisEvents) and from_env.detach == 3.0
    assert resumable_runs(False, served) is not None  # the operator's --resumable: every endpoint
    assert resumable_runs(False, ServeEnvironment()) is None
    in_memory = resumable_runs(True, ServeEnvironment())
    assert in_memory is not None and isinstance(in_memory.store, MemoryEvents)


def test_the_cli_writes_what_every_worker_reads_back(tmp_path: Path) -> None:
    args = parser().parse_args(["serve", "--sessions", str(tmp_path), "--pause-retention", "90", "--threads",
                                "--resumable", "--events", "redis://127.0.0.1:6379/0", "--detach-seconds", "5",
                                "--metrics"])
    made = serve_environment(args)
    assert made is None  # one worker: no multiprocess directory
    assert ServeEnvironment.from_env() == ServeEnvironment(
        sessions=str(tmp_path.resolve()), pause_retention=90.0, threads=True, resumable=True,
        events="redis://127.0.0.1:6379/0", detach_seconds=5.0, metrics=True)
    assert os.environ[THREADS_ENV] == "1"


def test_to_env_and_from_env_are_inverse() -> None:
    environment = ServeEnvironment(sessions="s3://bucket/prefix", lease_seconds=30.0, threads=True, metrics=True,
                                   max_live_runs_per_principal=7, redis_max_connections=12,
                                   metrics_directory="/tmp/m", max_runs=3)
    assert ServeEnvironment.from_env(environment.to_env()) == environment
    assert ServeEnvironment.from_env({}) == ServeEnvironment()
    assert ServeEnvironment.from_env(ServeEnvironment(no_admission=True).to_env()).no_admission


def test_the_operators_admission_flags_beat_the_endpoints_policy() -> None:
    """``--no-admission`` turns admission control off for every endpoint; ``--max-runs N`` is the ceiling of every
    endpoint's policy (its own lags kept), on even where the code turned it off."""
    own = AdmissionPolicy(target_lag=0.02, max_runs=50)
    assert serve_policy(own, max_runs=None, off=False) is own
    assert serve_policy(own, max_runs=None, off=True) is None
    assert serve_policy(own, max_runs=4, off=False) == AdmissionPolicy(target_lag=0.02, max_runs=4)
    assert serve_policy(None, max_runs=4, off=False) == AdmissionPolicy(max_runs=4)
    args = parser().parse_args(["serve", "--max-runs", "7"])
    serve_environment(args)
    assert ServeEnvironment.from_env().max_runs == 7


@pytest.mark.parametrize(("name", "bad", "rule"), [
    (RETENTION_ENV, "soon", "a number of seconds > 0"), (RETENTION_ENV, "0", "a number of seconds > 0"),
    (LEASE_ENV, "-5", "a number of seconds > 0"), (CONNECT_TIMEOUT_ENV, "nan", "a number of seconds > 0"),
    (ATTEMPTS_ENV, "2.5", "a whole number >= 1"), (COOLDOWN_ENV, "-1", "a number of seconds >= 0"),
    (DETACH_ENV, "later", "a number of seconds >= 0"), (LIVE_RUNS_ENV, "0", "a whole number >= 1"),
    (REDIS_CONNECTIONS_ENV, "many", "a whole number >= 1"), (MAX_RUNS_ENV, "0", "a whole number >= 1"),
])
def test_a_bad_number_is_the_same_clear_error_everywhere(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                         name: str, bad: str, rule: str) -> None:
    """One parser (``environment.env_number``): an app, an endpoint and an agent taking its default store all
    refuse the value when they are built, with the same message naming the variable and what it must be."""
    own_store = strands_agent(echo_model(), sessions=FileSessions(tmp_path))  # built before: reads nothing
    monkeypatch.setenv(name, bad)
    expected = f"{name}={bad!r}: give {rule}"
    for build in (lambda: create_strands_app(own_store), lambda: add_strands_fastapi_endpoint(FastAPI(), own_store),
                  lambda: strands_agent(echo_model()), default_store, ServeEnvironment.from_env):
        with pytest.raises(ValueError) as refused:
            build()
        assert str(refused.value) == expected


def test_the_default_store_takes_the_parsed_values(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(SESSIONS_ENV, str(tmp_path / "numbers"))
    monkeypatch.setenv(RETENTION_ENV, "90")
    assert default_store().retention_seconds == 90.0
    monkeypatch.setenv(RETENTION_ENV, " inf ")
    assert default_store().retention_seconds == float("inf")
