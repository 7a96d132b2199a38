# Two commands: `make run` sets everything up and serves the site; `make test` runs every test.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PORT   ?= 8000
LTI_PORT ?= 8001
STUDENTS ?= 30
MANAGE := $(BIN)/python manage.py

# Development defaults: a locally generated secret, plain HTTP on loopback. Production sets its own.
export DJANGO_SECRET_KEY ?= $(shell cat .secret-key 2>/dev/null)
export DJANGO_INSECURE_HTTP ?= 1

.PHONY: run setup test check bench loadtest venv lock clean-db help lti-demo

help:
	@echo "make run    set up everything and serve http://127.0.0.1:$(PORT) (PORT=8123 for another port)"
	@echo "make test   set up and run the whole test suite"
	@echo "make lti-demo  a small demo LMS on http://127.0.0.1:$(LTI_PORT) beside make run (README)"
	@echo "make check  lint, format check, migrations check, layer check"
	@echo "make bench  benchmarks, load and fault runs (writes docs/BENCHMARKS.md)"
	@echo "make loadtest  an exam class on Locust, headless, with its checks (STUDENTS=30, LOADTEST_ARGS=...)"
	@echo "make lock   after editing requirements*.txt: pin every package, with hashes, in requirements*.lock"

venv: $(VENV)/.installed

# The lock pins every installed package, transitive ones included, to a version and its hashes:
# a package that does not match (or is missing from the lock) stops the install.
$(VENV)/.installed: requirements.lock requirements-dev.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check --require-hashes -r requirements-dev.lock
	touch $@

# requirements.txt and requirements-dev.txt stay the human lists (why each package is there);
# pip-tools, in a venv of its own, resolves them into the locks. The runtime lock is what a server
# installs (docs/deploy.md); the dev lock is constrained by it, so both pin the same versions.
PIP_TOOLS := pip-tools==7.7.0
LOCK_VENV := .venv-lock
PIP_COMPILE := CUSTOM_COMPILE_COMMAND="make lock" $(LOCK_VENV)/bin/pip-compile --quiet \
  --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links
lock:
	test -x $(LOCK_VENV)/bin/pip-compile || \
	  ($(PYTHON) -m venv $(LOCK_VENV) && $(LOCK_VENV)/bin/pip install --quiet "$(PIP_TOOLS)")
	$(PIP_COMPILE) -o requirements.lock requirements.txt
	$(PIP_COMPILE) -c requirements.lock -o requirements-dev.lock requirements-dev.txt

.secret-key:
	$(PYTHON) -c "import secrets; print(secrets.token_urlsafe(64))" > $@
	chmod 600 $@

setup: venv .secret-key
	DJANGO_SECRET_KEY=$$(cat .secret-key) $(MANAGE) migrate --noinput
	DJANGO_SECRET_KEY=$$(cat .secret-key) $(MANAGE) collectstatic --noinput --verbosity 0
	DJANGO_SECRET_KEY=$$(cat .secret-key) $(MANAGE) setup_site --port $(PORT) --students $(STUDENTS)

# The web server and, beside it, the task worker (regrades, long validations, expiry), which its
# supervisor starts again if it dies; Ctrl-C stops the server, and the trap then stops both.
# Password-reset e-mails are printed in this terminal instead of sent (settings: EMAIL_*).
run: setup
	@echo "Serving on http://127.0.0.1:$(PORT)/ with a task worker beside it (Ctrl-C stops both)"
	export DJANGO_SECRET_KEY=$$(cat .secret-key); \
	export DJANGO_EMAIL_BACKEND=$${DJANGO_EMAIL_BACKEND:-django.core.mail.backends.console.EmailBackend}; \
	$(MANAGE) worker --supervise --verbosity 0 & worker=$$!; \
	trap 'kill $$worker 2>/dev/null; wait $$worker 2>/dev/null' EXIT INT TERM; \
	$(MANAGE) runserver 127.0.0.1:$(PORT) --noreload

# A small LTI 1.3 platform (lti/demo_platform.py, on lti1p3platform) beside `make run`: it is
# registered with the tool, then serves its course page until Ctrl-C (README "Try the LMS").
lti-demo: venv .secret-key
	export DJANGO_SECRET_KEY=$$(cat .secret-key); \
	lms=http://127.0.0.1:$(LTI_PORT); \
	$(MANAGE) migrate --noinput --verbosity 0 && \
	$(MANAGE) lti_add_platform --name "Demo LMS" --issuer $$lms --client-id hardware-reality \
	  --deployment-id deployment-1 --auth-login-url $$lms/auth --token-url $$lms/token \
	  --jwks-url $$lms/jwks --allow-local-network && \
	echo "Demo LMS on $$lms/ (the tool: make run on http://127.0.0.1:$(PORT)/; Ctrl-C stops)" && \
	$(BIN)/python -m lti.demo_platform --tool http://127.0.0.1:$(PORT) --port $(LTI_PORT)

test: venv .secret-key
	DJANGO_SECRET_KEY=$$(cat .secret-key) $(BIN)/pytest -n 2 -q $(PYTEST_ARGS)

check: venv .secret-key
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	DJANGO_SECRET_KEY=$$(cat .secret-key) $(MANAGE) makemigrations --check --dry-run
	$(BIN)/lint-imports

bench: venv .secret-key
	DJANGO_SECRET_KEY=$$(cat .secret-key) $(BIN)/python -m bench

# An exam class on Locust (bench/loadtest.py): a throwaway PostgreSQL, the site on gunicorn and
# the task worker, Locust headless (CSV and HTML report in bench/results/locust/), then the checks
# (every step ran, no failure, every student finished, the database holds what was acknowledged);
# exit status 1 when one fails. `make loadtest STUDENTS=300 LOADTEST_ARGS="--servers 2"`;
# `LOADTEST_ARGS="--record"` writes the run into docs/BENCHMARKS.md (bench/locustreport.py).
loadtest: venv .secret-key
	DJANGO_SECRET_KEY=$$(cat .secret-key) $(BIN)/python -m bench.loadtest --students $(STUDENTS) $(LOADTEST_ARGS)

clean-db:
	rm -f db.sqlite3 db.sqlite3-wal db.sqlite3-shm
