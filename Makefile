# telesrv: `make serve` sets everything up and runs the server; `make test` runs the suite.
PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
DEPS   := $(VENV)/.deps-installed

.PHONY: serve test lint services db venv regen clean browser

$(DEPS): requirements.txt requirements-dev.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements-dev.txt
	touch $@

venv: $(DEPS)

services:
	scripts/ensure-services.sh

db: venv services
	$(BIN)/python -m telesrv_project.database
	$(BIN)/python manage.py migrate --noinput

serve: db
	$(BIN)/python manage.py serve

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test: venv services browser lint
	$(BIN)/python -m pytest

regen: venv
	$(BIN)/python -m tl.codegen

clean:
	rm -rf $(VENV) .pytest_cache

# Headless Chromium + chromedriver for the console's browser tests (tests/e2e/test_console.py
# skips without them). Debian packages; run as root or with sudo.
browser:
	test -x /usr/bin/chromium -a -x /usr/bin/chromedriver || (apt-get update && apt-get install -y chromium chromium-driver)
