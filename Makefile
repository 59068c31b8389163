# The two commands a newcomer needs: `make run` and `make test`.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

# The first Python 3.12+ on PATH (pyenv's shims honour .python-version here).
PYTHON ?= $(shell for candidate in python3 python3.14 python3.13 python3.12; do \
	if command -v $$candidate >/dev/null 2>&1 && \
	   $$candidate -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; then \
	   command -v $$candidate; break; fi; done)

.PHONY: run test install lint format migrations-check lock load-data clean messages vendor bench
.PHONY: load bench-compare relevance

# The background worker (emails, scheduled publications) runs beside the server and stops
# with it. Ctrl-C reaches both: the worker finishes the task in hand, and the recipe waits for
# it; if the server stops on its own, the worker is told to (SIGTERM) and waited for. Emails
# (printed here) link to this server.
run: install load-data
	@echo "Serving http://$(HOST):$(PORT)/ (admin: http://$(HOST):$(PORT)/admin/) with a background worker. Ctrl-C stops both."
	@export SITE_URL="$${SITE_URL:-http://$(HOST):$(PORT)}"; \
	$(PY) manage.py run_worker & worker=$$!; \
	trap 'wait $$worker' INT; \
	trap 'kill $$worker 2>/dev/null; wait $$worker 2>/dev/null' EXIT; \
	$(PY) manage.py runserver $(HOST):$(PORT)

load-data: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_taxonomy data/taxonomy.json
	$(PY) manage.py import_cases data/cases
	$(PY) manage.py ensure_admin

test: install
	$(PY) -m pytest $(PYTEST_ARGS)

install: $(VENV)/.installed

$(VENV)/.installed: requirements.lock pyproject.toml
	@if [ -z "$(PYTHON)" ]; then \
		echo "No Python 3.12 or newer found on PATH. Install one (e.g. 'pyenv install 3.12')"; \
		echo "or name it: make PYTHON=/path/to/python3.12 $(MAKECMDGOALS)"; exit 1; fi
	@if [ ! -x $(PY) ] || ! $(PY) -c 'import sys; sys.exit(sys.version_info < (3, 12))'; then \
		rm -rf $(VENV); echo "Creating $(VENV) with $(PYTHON)"; $(PYTHON) -m venv $(VENV); fi
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.lock
	touch $@

lint: install
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

format: install
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

migrations-check: install
	$(PY) manage.py makemigrations --check --dry-run

# Re-pin every dependency from pyproject.toml into requirements.lock.
lock:
	rm -rf .lock-venv && $(PYTHON) -m venv .lock-venv
	.lock-venv/bin/python -c "import tomllib; p = tomllib.load(open('pyproject.toml', 'rb'))['project']; \
		print('\n'.join(p['dependencies'] + p['optional-dependencies']['dev']))" > .lock-venv/wanted.txt
	.lock-venv/bin/pip install --quiet --disable-pip-version-check -r .lock-venv/wanted.txt
	.lock-venv/bin/pip freeze | sort > requirements.lock
	rm -rf .lock-venv

clean:
	rm -rf $(VENV) var staticfiles

# Refresh the Korean catalogue from the code and templates, then compile it (needs gettext).
messages: install
	$(PY) manage.py makemessages -l ko --no-location -i '.venv/*' -i 'tests/*'
	$(PY) manage.py compilemessages -l ko -i .venv

# Browser libraries are vendored into static/vendor/ (no CDN); this refetches the pinned ones.
CYTOSCAPE_VERSION := 3.35.0
vendor:
	rm -rf .vendor-tmp && mkdir .vendor-tmp
	cd .vendor-tmp && npm pack --silent cytoscape@$(CYTOSCAPE_VERSION) && tar xzf cytoscape-$(CYTOSCAPE_VERSION).tgz
	cp .vendor-tmp/package/dist/cytoscape.min.js .vendor-tmp/package/LICENSE static/vendor/cytoscape/
	rm -rf .vendor-tmp

# Request times and query counts at 10,000 and 100,000 cases, and the import of 10,000 cases,
# against DATABASE_URL's server in a scratch database; writes bench/RESULTS.md.
# BENCH_SIZES=2000,10000 make bench for a quicker run.
bench: install
	$(PY) bench/run.py

# The same pages against BASE (a commit) and the working tree, in turn, each on a database its
# own code makes: a change measured on a machine whose speed drifts. COMPARE_SIZE=100000 for more.
bench-compare: install
	@if [ -z "$(BASE)" ]; then echo "Name the commit to compare with: make bench-compare BASE=main~1"; exit 1; fi
	$(PY) bench/compare.py --base $(BASE)

# The relevance set's figures for the README (hit@1, hit@5, no result; overall and by kind):
# tests/search/relevance over a scratch database (var/relevance-set.sqlite3, or DATABASE_URL's
# PostgreSQL server as for `make bench`). RELEVANCE_ARGS=--misses lists the missed queries.
relevance: install
	$(PY) scripts/relevance.py $(RELEVANCE_ARGS)

# The site under load: gunicorn on 127.0.0.1 driven by wrk at 10,000 cases, a broad mix and a
# hot set, reads alone, with one approved correction or new case a second, and during a
# 20,000-case import (30 s a row), against DATABASE_URL's PostgreSQL server in a scratch
# database (REDIS_URL: the workers share their pages); writes the Load section of
# bench/RESULTS.md and fails on any error.
load: install
	$(PY) bench/load.py $(LOAD_ARGS)
