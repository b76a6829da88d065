# strands-agui for Amazon Bedrock AgentCore Runtime's AG-UI contract (docs/deployment.md, "Amazon Bedrock AgentCore
# Runtime"): POST /invocations, /ws and GET /ping on 0.0.0.0:8080, as a non-root user.
#
#   make container                                   # linux/arm64, AgentCore's platform (PLATFORM=linux/amd64 too)
#   podman run -p 8080:8080 strands-agui-agentcore   # the keyless example agent; --app MODULE:ATTR for another
#
# Both platforms build from this one file: the base image is a multi-arch manifest and every dependency has a
# wheel (or is pure Python) for linux/arm64 and linux/amd64. Building arm64 on an amd64 machine needs QEMU's binfmt
# handlers (qemu-user-static), or an arm64 builder. Your own agent: an image FROM this one that copies your module
# into /home/agui/app (the working directory, importable) and sets CMD ["--app", "your_module:agent"].

# python:3.11-slim from Docker's official images, through the public ECR mirror (no Docker Hub rate limit)
ARG BASE=public.ecr.aws/docker/library/python:3.11-slim-bookworm

FROM ${BASE} AS wheel
WORKDIR /src
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM ${BASE}
# the extras: agentcore (/ws's WebSocket library), redis (--resumable --events redis://), observability
# (--metrics, an OpenTelemetry SDK), proto (Accept: application/vnd.ag-ui.event+proto); S3 sessions need boto3,
# which strands-agents brings
ARG EXTRAS=agentcore,redis,observability,proto
ENV PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1
COPY --from=wheel /wheels /wheels
RUN pip install --no-cache-dir "$(ls /wheels/strands_agui-*.whl)[${EXTRAS}]" && rm -rf /wheels \
    && useradd --create-home --uid 10001 --user-group agui
USER agui
WORKDIR /home/agui/app
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import json, sys, urllib.request; r = urllib.request.urlopen('http://127.0.0.1:8080/ping', timeout=4); sys.exit(json.load(r)['status'] not in ('Healthy', 'HealthyBusy'))"]
ENTRYPOINT ["strands-agui", "serve", "--agentcore"]
CMD ["--app", "strands_agui.examples.backend_tool_rendering:agent"]
