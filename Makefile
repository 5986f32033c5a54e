# Two commands for a newcomer (see README.md):
#   make run    install, migrate, load the seeded library, serve on http://127.0.0.1:8000 (SQLite)
#   make test   install test tools (and, as root on Debian, headless chromium and a real kube-apiserver),
#               then run the whole test suite; DATABASE_URL=postgres://... runs it on PostgreSQL
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The suite runs in TEST_WORKERS processes (pytest-xdist), each with its own test database and live
# server; a test module stays on one process (its module fixtures are made once), the kubeapi
# modules all go to one process, first, sharing one API server, and the browser modules to the
# other, sharing one chromium (tests/scheduling.py). Two processes on the two cores: a third
# repeated its start, collection and first loads (about 10 s more CPU) and, now that the API
# server and the browser are each started once, was slower (59-62 against 56-57 s, alternated
# runs). TEST_WORKERS=0 runs it in this one process; PYTEST_ARGS, when given, replaces these.
TEST_WORKERS ?= 2
PYTEST_ARGS ?= -n $(TEST_WORKERS) --dist loadscope

.PHONY: run serve test install install-dev provision lint bench kubegap.pyz bench-kubegap bench-graph

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

run: install
	DEBUG=1 $(BIN)/python manage.py migrate --no-input
	DEBUG=1 $(BIN)/python manage.py load_cases
	DEBUG=1 $(BIN)/python manage.py runserver 127.0.0.1:8000

# The production start (README "Deploy"): the environment of site/env.example checked first (one
# line and exit 2 when a required setting is missing), then migrations, the table of the API's
# request counts, static files, gunicorn. It installs nothing (no package index at start time):
# `make install` is the deploy's step before it, run again when pyproject.toml changes.
serve:
	@test -x $(BIN)/gunicorn || { echo "make serve: refusing to start: $(BIN)/gunicorn is missing; run make install first (README, Deploy)" >&2; exit 2; }
	$(BIN)/python -m incidents.config.preflight
	$(BIN)/python manage.py migrate --no-input
	$(BIN)/python manage.py createcachetable
	$(BIN)/python manage.py collectstatic --no-input --verbosity 0
	exec $(BIN)/gunicorn --config python:incidents.config.gunicorn

# System packages for the browser and API-server tests; needs root and apt (Debian). Elsewhere
# those tests skip with a message saying what is missing, unless CI asks for them to be required.
provision:
	@if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
		bash tests/provision/chromium.sh && bash tests/kubeapi/provision.sh; \
	else \
		echo "provision: not root or no apt-get; browser and kube-apiserver tests will be skipped"; \
	fi

# Bytecode is cached even where the environment says not to (PYTHONDONTWRITEBYTECODE): each
# process of the suite, and each Python it starts, would otherwise compile the app and rewrite the
# test modules' asserts again (__pycache__/ is git-ignored).
test: install-dev provision
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest $(PYTEST_ARGS)

lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/djlint templates --lint
	$(BIN)/mypy incidents
	SECRET_KEY=lint $(BIN)/python manage.py makemigrations --check --dry-run
	SECRET_KEY=lint $(BIN)/python manage.py spectacular --validate --fail-on-warn --file /dev/null

# The figures of BENCHMARKS.md: synthetic libraries in throwaway PostgreSQL databases
# (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/); quick: make bench BENCH_SIZES=1000
BENCH_SIZES ?= 1000 10000 100000
BENCH_ARGS ?=
bench: install-dev
	$(BIN)/python -m tests.bench.run $(BENCH_SIZES) $(BENCH_ARGS)

# kubegap in one file (kubegap and its pure-Python dependencies, no Django): python3 kubegap.pyz
kubegap.pyz: install
	$(BIN)/python -m incidents.audit.zipapp kubegap.pyz

# kubegap at 5,000 nodes / 100,000 pods from a snapshot, against the json.load floor (BENCH_ARGS:
# --quick, --repeat N, --json, --gzip)
BENCH_ARGS ?=
bench-kubegap: install
	$(BIN)/python tests/audit/bench_scale.py $(BENCH_ARGS)

# The graph views at 1,000 and 10,000 cases (p50, p95, queries, SQL time); DATABASE_URL picks the
# database (default: SQLite in memory). Prints figures, asserts nothing.
bench-graph: install-dev
	$(BIN)/python -m tests.bench_graph $(BENCH_ARGS)
