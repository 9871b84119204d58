# The two commands of the README: `make run` and `make test`. Both build .venv when missing.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000

.PHONY: run test lint serve bench clean

$(VENV)/.installed: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

run: $(VENV)/.installed
	DEBUG=true $(PY) manage.py migrate --noinput
	DEBUG=true $(PY) manage.py seed_demo
	DEBUG=true $(PY) manage.py load_starwars
	@echo "Demo token for alice (X-Access-Token):"
	@DEBUG=true $(PY) manage.py issue_token alice --name "make run $$(date +%Y-%m-%dT%H:%M:%S)" | tail -n 1
	DEBUG=true $(PY) manage.py runserver 127.0.0.1:$(PORT)

test: $(VENV)/.installed
	$(PY) -m pytest $(PYTEST_ARGS)

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	DEBUG=true $(PY) manage.py makemigrations --check --dry-run

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache
