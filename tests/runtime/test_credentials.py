"""A model without credentials ends the run with RUN_ERROR MODEL_CREDENTIALS_MISSING naming what to set.

Bedrock is a real ``BedrockModel`` (boto3 is a dependency of strands-agents): with no AWS credentials anywhere and
the instance-metadata lookup disabled, botocore raises ``NoCredentialsError`` while signing the request, before
any network. The OpenAI and Anthropic clients are optional packages; their runs fail with the class name and
message those clients raise, copied from their sources."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import RunAgentInput
from strands import Agent

from strands_agui import FileSessions, StrandsAgent
from strands_agui.tooling.scripted import Fail, ScriptedModel
from tests.oracles import assert_valid_stream
from tests.support.wire import run_input


async def run(agent: Agent, sessions: Path) -> list[Any]:
    adapter = StrandsAgent(agent, sessions=FileSessions(sessions))
    return [event async for event in adapter.run(RunAgentInput.model_validate(run_input()))]


async def test_bedrock_without_aws_credentials_says_which_variables(monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    from strands.models.bedrock import BedrockModel

    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
                 "AWS_BEARER_TOKEN_BEDROCK", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
                 "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    model = BedrockModel(model_id="us.anthropic.claude-sonnet-4-20250514-v1:0", region_name="us-east-1")
    events = await run(Agent(model=model, callback_handler=None), tmp_path / "sessions")
    error = events[-1]
    assert (error.type, error.code) == ("RUN_ERROR", "MODEL_CREDENTIALS_MISSING")
    assert "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY" in error.message
    assert "NoCredentialsError: Unable to locate credentials" in error.message
    assert_valid_stream(events)


PROVIDER_ERRORS = {
    # openai/_client.py, OpenAI.__init__ without api_key
    "OPENAI_API_KEY": ("OpenAIError", "The api_key client option must be set either by passing api_key to the "
                       "client or by setting the OPENAI_API_KEY environment variable"),
    # anthropic/_client.py, Anthropic._validate_headers without api_key or auth_token
    "ANTHROPIC_API_KEY": ("TypeError", '"Could not resolve authentication method. Expected either api_key or '
                          'auth_token to be set. Or for one of the `X-Api-Key` or `Authorization` headers to be '
                          'explicitly omitted"'),
}


@pytest.mark.parametrize("variable", sorted(PROVIDER_ERRORS))
async def test_an_api_client_without_its_key_says_which_variable(variable: str, tmp_path: Path) -> None:
    class_name, message = PROVIDER_ERRORS[variable]
    error_class = TypeError if class_name == "TypeError" else type(class_name, (Exception,), {})
    agent = Agent(model=ScriptedModel([[Fail(error_class(message))]]), callback_handler=None)
    error = (await run(agent, tmp_path))[-1]
    assert (error.type, error.code) == ("RUN_ERROR", "MODEL_CREDENTIALS_MISSING")
    assert error.message.startswith(f"The model has no credentials: set {variable} ({class_name}: ")


async def test_other_provider_errors_keep_their_code(tmp_path: Path) -> None:
    agent = Agent(model=ScriptedModel([[Fail(TypeError("unsupported content block"))]]), callback_handler=None)
    error = (await run(agent, tmp_path))[-1]
    assert (error.code, error.message) == ("STRANDS_ERROR", "TypeError: unsupported content block")
