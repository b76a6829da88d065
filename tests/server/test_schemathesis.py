"""schemathesis over the app's own OpenAPI document: no generated request (valid or not) gets a 5xx, every
refusal is a 4xx with a JSON ``detail``, and every accepted request streams a run that starts with RUN_STARTED
and never ends in an adapter bug or an internal exception's text.

The fast profile (``make test``) runs schemathesis' fuzzing phase with 40 examples per operation. ``make fuzz``
sets ``STRANDS_AGUI_FUZZ_EXAMPLES`` (examples per operation) and ``STRANDS_AGUI_FUZZ_PHASES=all``, which adds the
coverage phase (every boundary and negative case the schema defines) and the schema's examples.
"""

from __future__ import annotations

import json
import os
import re

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from strands import Agent, tool

from strands_agui import StrandsAgent, create_strands_app
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse

EXAMPLES = int(os.environ.get("STRANDS_AGUI_FUZZ_EXAMPLES", "40"))
INTERNAL = ("ADAPTER_ERROR", "INVALID_TRANSITION", "ENCODING_ERROR", "Traceback", "AttributeError", "KeyError",
            "TypeError")


@tool
def get_weather(location: str) -> str:
    """Current weather for a location."""
    return f"Sunny in {location}."


def _app():  # type: ignore[no-untyped-def]
    turns = [[Text("Checking."), ToolUse("get_weather", {"location": "Paris"})], [Text("Sunny.")]] * 5_000
    agent = StrandsAgent(Agent(model=ScriptedModel(turns), tools=[get_weather], callback_handler=None), name="fuzzed")
    return create_strands_app(agent)


schema = schemathesis.openapi.from_asgi("/openapi.json", _app())
if os.environ.get("STRANDS_AGUI_FUZZ_PHASES") != "all":
    schema.config.phases.update(phases=["fuzzing"])


def _check(case: schemathesis.Case) -> None:
    response = case.call(headers={"Accept": "text/event-stream"})
    case.validate_response(response, checks=[not_a_server_error])
    if response.status_code >= 400:
        assert response.status_code < 500
        assert "detail" in response.json(), response.text
    elif case.method == "POST":
        frames = [json.loads(line[6:]) for line in response.text.split("\n") if line.startswith("data: ")]
        assert frames[0]["type"] == "RUN_STARTED", frames[:2]
        assert frames[-1]["type"] in ("RUN_FINISHED", "RUN_ERROR")
        sent = json.dumps(case.body)  # a word the request itself holds (an id "TypeError") is echoed, not leaked
        assert not any(word in response.text and word not in sent for word in INTERNAL), frames[-1]


def _operation_test(method: str, path: str):  # type: ignore[no-untyped-def]
    """One test function per operation. ``schema.parametrize()`` on a single function gives every operation the
    same node id (``test_no_server_errors`` six times), and pytest-xdist schedules by node id: under ``-n`` five of
    the six operations silently never ran. A function per operation keeps the ids apart (and names the operation)."""
    def test(case: schemathesis.Case) -> None:
        _check(case)

    operation = schema.include(method=method.upper(), path=path)
    return pytest.mark.slow(operation.parametrize()(
        settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))(test)))


for _result in schema.get_all_operations():
    _op = _result.ok()
    _slug = re.sub(r"\W+", "_", f"{_op.method} {_op.path}").strip("_").lower()
    globals()[f"test_no_server_errors_{_slug}"] = _operation_test(_op.method, _op.path)
