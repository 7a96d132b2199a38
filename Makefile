# Two commands: `make run` sets everything up and serves the site; `make test` runs every test.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PORT   ?= 8000
STUDENTS ?= 30
MANAGE := $(BIN)/python manage.py

# Development defaults: a locally generated secret, plain HTTP on loopback. Production sets its own.
export DJANGO_SECRET_KEY ?= $(shell cat .secret-key 2>/dev/null)
export DJANGO_INSECURE_HTTP ?= 1

.PHONY: run setup test check bench venv clean-db help

help:
	@echo "make run    set up everything and serve http://127.0.0.1:$(PORT) (PORT=8123 for another port)"
	@echo "make test   set up and run the whole test suite"
	@echo "make check  lint, format check, migrations check, layer check"
	@echo "make bench  benchmarks, load and fault runs (writes docs/BENCHMARKS.md)"

venv: $(VENV)/.installed

$(VENV)/.installed: requirements.txt requirements-dev.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

.secret-key:
	$(PYTHON) -c "import secrets; print(secrets.token_urlsafe(64))" > $@
	chmod 600 $@

setup: venv .secret-key
	DJANGO_SECRET_KEY=$$(cat .secret-key) $(MANAGE) migrate --noinput
	DJANGO_SECRET_KEY=$$(cat .secret-key) $(MANAGE) collectstatic --noinput --verbosity 0
	DJANGO_SECRET_KEY=$$(cat .secret-key) $(MANAGE) setup_site --port $(PORT) --students $(STUDENTS)

# The web server and, beside it, the task worker (regrades, long validations, expiry); Ctrl-C
# stops the server, and the trap then stops the worker.
run: setup
	@echo "Serving on http://127.0.0.1:$(PORT)/ with a task worker beside it (Ctrl-C stops both)"
	export DJANGO_SECRET_KEY=$$(cat .secret-key); \
	$(MANAGE) worker --verbosity 0 & worker=$$!; \
	trap 'kill $$worker 2>/dev/null; wait $$worker 2>/dev/null' EXIT INT TERM; \
	$(MANAGE) runserver 127.0.0.1:$(PORT) --noreload

test: venv .secret-key
	DJANGO_SECRET_KEY=$$(cat .secret-key) $(BIN)/pytest -n 2 -q $(PYTEST_ARGS)

check: venv .secret-key
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	DJANGO_SECRET_KEY=$$(cat .secret-key) $(MANAGE) makemigrations --check --dry-run
	$(BIN)/lint-imports

bench: venv .secret-key
	DJANGO_SECRET_KEY=$$(cat .secret-key) $(BIN)/python -m bench

clean-db:
	rm -f db.sqlite3 db.sqlite3-wal db.sqlite3-shm
