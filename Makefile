# strands-agui developer entry points. `make test` is all a fresh clone needs.
#   make deps      .venv (pip install -e '.[dev]') + npm ci: the official-client oracles (1.0.0, 0.0.59), CopilotKit tests,
#                  aimock; the Dojo's Strands agents (the ag_ui_strands sdist, pip download): tests/dojo
#   make tools     system tools (graphviz `dot`, chromium, nginx; node/npm if absent) via apt-get when missing
#   make test      deps + tools + pytest, a file per worker (pytest-xdist; PYTEST_WORKERS=0 runs in one process)
#                  (PYTEST_ARGS='tests/e2e/test_oracles.py -x' to narrow; PYTEST_ARGS='-m "not slow"' skips the tests over ~5 s)
#   make test-frontends  only the CopilotKit-in-a-browser tests (tests/frontends/, part of `make test`)
#   make run       serve the examples + console   (ARGS='--port 8000' ...): pip install -e . only, no dev tools;
#                  threads kept on the server and resumable runs (RUN_FLAGS), so a reload or a restart loses nothing
#   make diagrams  render the state-machine diagrams into diagrams/ (and the console's copy)
#   make proto     regenerate server/transport/proto/agui_v1/*_pb2.py(i) from the vendored AG-UI .proto files
#   make screenshots  the console screenshots in docs/ (headless Chromium)
#   make bench     strands-agui vs ag_ui_strands==1.0.2 and the no-adapter floor: closed loop, open loop, in process,
#                  past saturation (bench/overload.py)
#   make bench-profile  py-spy on ours and the floor at 20 runs/s: where the CPU per run goes (bench/profile.py)
#   make soak      server RSS over 10,000 runs on new threads (RUNS=...)
#   make fuzz      10,000 generated Strands runs through the translator, 2,000 runs with an injected fault,
#                  schemathesis, all phases (tests/support/fuzz.py)
#   make lint      ruff + mypy + lint-imports (the layers, no import cycle)
#   make container the AgentCore Runtime image (Dockerfile) with podman or docker (PLATFORM=linux/arm64; IMAGE=...)
#   make clean     caches, stamps, node_modules (keeps .venv; `make distclean` removes it too)

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := test
MAKEFLAGS += --no-print-directory

PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PYTHON := $(BIN)/python
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run
ORACLE_DIR := tests/oracles/agui-client-check
# the same oracle on @ag-ui/client 0.0.59, the generation CopilotKit 1.74 pins (docs/protocol-versions.md)
LEGACY_ORACLE_DIR := tests/oracles/agui-client-check-0059
# CopilotKit 1.74 (react-core, react-ui, runtime) + esbuild for the browser tests in tests/frontends/
FRONTENDS_DIR := tests/frontends
# @copilotkit/aimock, the AG-UI Dojo's model server, for the Dojo suite in tests/dojo/
DOJO_DIR := tests/dojo
NODE_DIRS := $(ORACLE_DIR) $(LEGACY_ORACLE_DIR) $(FRONTENDS_DIR) $(DOJO_DIR)
# the Dojo's Strands example agents as upstream ships them: examples/ of the ag_ui_strands sdist (tests/dojo/README.md)
DOJO_SDIST := $(DOJO_DIR)/.upstream/ag_ui_strands-1.0.2.tar.gz
DOJO_SDIST_SHA256 := 61e8183a275e47ce49c5f217f91c460dde5659f3dc58d3cf5651260da96973d1
NODE_STAMPS := $(addsuffix /node_modules/.package-lock.json,$(NODE_DIRS))
PYTEST_ARGS ?=
# what `make run` serves with: a reload restores the thread (--threads, kept in the sessions directory, so also
# across a restart) and reattaches to a run in flight (--resumable); RUN_FLAGS= serves without them
RUN_FLAGS ?= --threads --resumable
# the tests wait on subprocesses, browsers and sockets more than on the CPU: three workers on two cores
# (the whole suite in 8 min 13 s on this 2-core machine, 2026-11-28: docs/reliability.md); the files are handed out longest
# first (tests/support/schedule.py), not by their number of tests (xdist's default, --loadscope-reorder)
PYTEST_WORKERS ?= 3
PYTEST_XDIST := -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder
# bytecode cached even where PYTHONDONTWRITEBYTECODE is set, under .pytest_cache (not beside the sources): without it
# every worker rewrites the asserts of ~490 modules again (collection 7.7 s -> 4 s a worker), and every served
# subprocess compiles src/ again
PYTEST_ENV := PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(CURDIR)/.pytest_cache/pycache
ARGS ?=

export PIP_DISABLE_PIP_VERSION_CHECK := 1
export PIP_NO_INPUT := 1
export DEBIAN_FRONTEND := noninteractive
export npm_config_fund := false
export npm_config_audit := false
export npm_config_update_notifier := false

# root on CI; elsewhere fall back to passwordless sudo
SUDO := $(shell [ "$$(id -u)" = 0 ] || { command -v sudo >/dev/null 2>&1 && echo "sudo -n"; })

.PHONY: all venv node-deps dojo-deps node-tool deps tools test test-frontends run diagrams proto screenshots bench bench-deps bench-instructions \
	bench-profile soak fuzz lint container clean \
	distclean help

all: test

help:
	@sed -n '1,19p' Makefile | sed 's/^# \{0,1\}//'

$(PYTHON):
	@echo ">> creating $(VENV) with $(PY)"
	@$(PY) -m venv $(VENV)

$(STAMP): pyproject.toml | $(PYTHON)
	@echo ">> pip install -e '.[dev]'"
	@$(PYTHON) -m pip install -q -e '.[dev]'
	@touch $@ $(RUN_STAMP)

# What running needs, nothing else (no dev extra, no npm, no apt); quiet: pip's progress on one line (what it
# collects, downloads, installs), its whole output in $(VENV)/pip-run.log, shown when it fails.
$(RUN_STAMP): pyproject.toml | $(PYTHON)
	@echo ">> installing what running needs (pip install -e .; a minute the first time)"
	@$(PYTHON) -m pip install -e . 2>&1 | tee $(VENV)/pip-run.log | while read -r line; do \
	  case "$$line" in Collecting*|*Downloading*|*Installing*|*Building*) printf '\r\033[K   pip: %.100s' "$$line";; esac; \
	done || { echo; tail -n 40 $(VENV)/pip-run.log; echo ">> pip failed (all of it: $(VENV)/pip-run.log)"; exit 1; }
	@printf '\r\033[K'
	@touch $@

venv: $(STAMP)

# npm ci in each node package dir (CopilotKit takes a few minutes the first time)
%/node_modules/.package-lock.json: %/package-lock.json %/package.json
	@command -v npm >/dev/null 2>&1 || $(MAKE) node-tool
	@echo ">> npm ci in $*"
	@cd $* && npm ci --no-audit --no-fund --loglevel=error >/dev/null
	@touch $@

node-deps: $(NODE_STAMPS)

$(DOJO_SDIST): | $(STAMP)
	@echo ">> pip download ag_ui_strands==1.0.2 --no-binary :all: (its examples: the Dojo's agents, tests/dojo)"
	@$(PYTHON) -m pip download -q --no-deps --no-binary :all: -d $(@D) ag_ui_strands==1.0.2
	@echo "$(DOJO_SDIST_SHA256)  $@" | sha256sum -c --quiet || { rm -f $@; exit 1; }

dojo-deps: $(DOJO_SDIST)

deps: venv node-deps dojo-deps

define apt_install
	{ $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq --no-install-recommends $(1) >/dev/null; } \
	  || { echo "!! could not apt-get install $(1): install it by hand" >&2; exit 1; }
endef

node-tool:
	@command -v npm >/dev/null 2>&1 || { echo ">> installing nodejs + npm (apt)"; $(call apt_install,nodejs npm); }

tools:
	@command -v dot >/dev/null 2>&1 || { echo ">> installing graphviz (apt)"; $(call apt_install,graphviz); }
	@test -x /usr/sbin/nginx || command -v nginx >/dev/null 2>&1 || { echo ">> installing nginx (apt)"; $(call apt_install,nginx); }
	@test -x /usr/bin/chromium || { echo ">> installing chromium (apt)"; $(call apt_install,chromium fonts-liberation); }
	@fc-list 2>/dev/null | grep -q NotoColorEmoji || { echo ">> installing fonts-noto-color-emoji (apt)"; $(call apt_install,fonts-noto-color-emoji); }
	@command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || $(MAKE) node-tool
	@test -x /usr/bin/redis-server || { echo ">> installing redis-server (apt; resumable runs' tests)"; $(call apt_install,redis-server); }
	@test -x /usr/sbin/nginx || { echo ">> installing nginx (apt; a proxy cutting streams, resumable runs' tests)"; $(call apt_install,nginx); }

test: deps tools
	@$(PYTEST_ENV) $(PYTHON) -m pytest -q $(PYTEST_XDIST) $(PYTEST_ARGS)

test-frontends: deps tools
	@$(PYTEST_ENV) $(PYTHON) -m pytest -q $(PYTEST_XDIST) $(FRONTENDS_DIR) $(PYTEST_ARGS)

run: $(RUN_STAMP)
	@$(BIN)/strands-agui serve $(RUN_FLAGS) $(ARGS)

diagrams: deps tools
	$(BIN)/strands-agui diagram --out diagrams --readme docs/run-machine.md --console src/strands_agui/server/console/static/run_machine.svg

proto: deps
	$(PYTHON) -m strands_agui.server.transport.proto.compile

screenshots: deps tools
	$(PYTHON) -m tests.console.screenshots docs

# the bench extra (ag_ui_strands==1.0.2) only adds packages to .venv: `pip install --dry-run` changes no version
BENCH_STAMP := $(VENV)/.bench-installed

$(BENCH_STAMP): pyproject.toml | $(STAMP)
	@echo ">> pip install -e '.[dev,bench]'"
	@$(PYTHON) -m pip install -q -e '.[dev,bench]'
	@touch $@

bench-deps: $(BENCH_STAMP)
	@command -v valgrind >/dev/null 2>&1 || { echo ">> installing valgrind (apt; bench.instructions)"; $(call apt_install,valgrind); }

# ARGS: the closed loop's knobs; OPEN_ARGS: the open loop's (--rates 50,100,150 --seconds 20); SERVER_ARGS: our
# server's settings for all parts, e.g. SERVER_ARGS='--endpoint coalesce_seconds=0' (bench/http.py: keywords)
OPEN_ARGS ?=
SERVER_ARGS ?=
THREADS_ARGS ?=
# WORKERS_ARGS: the workers part (`serve --workers 1` and `2`, threads in files, resumable runs in Redis); after
# the rates, 3 bisection probes per server around the rate it holds (--refine): 5.6-6.3 min in all
WORKERS_ARGS ?= --rates 50,75,100,125,150,200 --seconds 10 --refine 3
# OVERLOAD_ARGS: the overload part (bench/overload.py: each server's held rate over 8 s probes refined by 4
# bisections, then 2x and 4x of it for 15 s; `serve x1`, `serve x2`, upstream, the floor; then the serve ones
# stateful): about 10 + 4 min
OVERLOAD_ARGS ?=
bench: deps bench-deps
	$(PYTHON) -m bench.http $(SERVER_ARGS) $(ARGS)
	$(PYTHON) -m bench.openloop $(SERVER_ARGS) $(OPEN_ARGS)
	$(PYTHON) -m bench.overhead
	$(PYTHON) -m bench.instructions
	$(PYTHON) -m bench.resumable
	$(PYTHON) -m bench.threads --s3 $(THREADS_ARGS)
	$(PYTHON) -m bench.openloop --servers floor --serve-workers 1,2 --stateful $(WORKERS_ARGS)
	$(PYTHON) -m bench.overload $(OVERLOAD_ARGS)
	$(PYTHON) -m bench.overload --stateful --servers 'serve x1,serve x2' $(OVERLOAD_ARGS)
	$(PYTHON) -m bench.refusals

# instructions per run (valgrind): an A/B of one change on a shared machine, e.g. ARGS='--servers ours --runs 10'
bench-instructions: deps bench-deps
	$(PYTHON) -m bench.instructions $(ARGS)

bench-profile: deps bench-deps
	$(PYTHON) -m bench.profile $(SERVER_ARGS) $(ARGS)

RUNS ?= 10000
soak: deps
	$(PYTHON) -m tests.support.soak --runs $(RUNS)

fuzz: deps
	$(PYTHON) -m tests.support.fuzz $(ARGS)

lint: deps
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy src
	$(BIN)/lint-imports --no-cache

# the image AgentCore Runtime runs (docs/deployment.md): arm64 by default, PLATFORM=linux/amd64 for x86; building
# one platform on a machine of the other needs QEMU's binfmt handlers (qemu-user-static)
CONTAINER ?= $(shell command -v podman 2>/dev/null || command -v docker 2>/dev/null)
PLATFORM ?= linux/arm64
IMAGE ?= strands-agui-agentcore
container:
	@test -n "$(CONTAINER)" || { echo "!! make container needs podman or docker (apt-get install podman)" >&2; exit 1; }
	$(CONTAINER) build --platform $(PLATFORM) -t $(IMAGE) .

clean:
	@rm -rf .pytest_cache .mypy_cache .ruff_cache build dist src/*.egg-info $(addsuffix /node_modules,$(NODE_DIRS)) \
	  $(FRONTENDS_DIR)/dist $(DOJO_DIR)/.upstream $(STAMP) \
	  $(BENCH_STAMP)
	@find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	@rm -rf $(VENV)
