# The two commands of the README: `make run` and `make test`. Both build .venv when missing.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000

.PHONY: run test lint serve bench clean

# The service's requirements (make run, make serve), and the development set on top of them
# (make test, lint, bench): requirements.txt and requirements-dev.txt, both pinned.
$(VENV)/.installed: requirements.txt
	@test -x $(PY) || { echo "==> Creating $(VENV) with $(PYTHON)"; $(PYTHON) -m venv $(VENV); }
	@echo "==> Installing requirements.txt into $(VENV) (about a minute the first time)"
	@$(PY) -m pip install --quiet --upgrade pip
	@$(PY) -m pip install --progress-bar off -r requirements.txt
	@touch $@

$(VENV)/.installed-dev: $(VENV)/.installed requirements-dev.txt
	@echo "==> Installing requirements-dev.txt into $(VENV)"
	@$(PY) -m pip install --progress-bar off -r requirements-dev.txt
	@touch $@

# The development checkout's settings, written once and git-ignored: DEBUG on and a generated
# SECRET_KEY. manage.py reads it (the environment wins), so the documented `python manage.py ...`
# commands run as written; gunicorn never reads it (docs/decisions/development-env-file.md).
.env:
	@echo "==> Writing $@ (DEBUG on, a new SECRET_KEY) for manage.py in this checkout"
	@umask 077 && { \
		echo "# Written by make run for this development checkout; manage.py reads it, gunicorn"; \
		echo "# never does. A variable set in the environment wins. Delete it for a new key."; \
		echo "DEBUG=true"; \
		echo "SECRET_KEY=$$($(PYTHON) -c 'import secrets; print(secrets.token_urlsafe(50))')"; \
	} > $@.tmp && mv $@.tmp $@

# Repeatable: migrations and the Star Wars data are idempotent, seed_demo seeds only a database
# without blogs (what the user changed stays changed), and the demo token replaces the previous
# one named "demo" (docs/decisions/repeatable-make-run.md).
run: $(VENV)/.installed .env
	@echo "==> Migrating the database"
	@DEBUG=true $(PY) manage.py migrate --noinput
	@echo "==> Loading the Star Wars data"
	@DEBUG=true $(PY) manage.py load_starwars
	@echo "==> Seeding the demo blogs (only into a database without blogs)"
	@DEBUG=true $(PY) manage.py seed_demo
	@echo "==> Issuing alice's demo token, for X-Access-Token (it replaces the previous start's)"
	@DEBUG=true $(PY) manage.py issue_token alice --name demo --replace
	@echo "==> Serving http://127.0.0.1:$(PORT)/ with the webhook worker beside it (Ctrl-C stops both;"
	@echo "    the data stays for the next start). Its broker is a folder, .celery-broker/: no server"
	@echo "    to install (docs/webhooks.md); its log goes to .celery-worker.log."
	@DEBUG=true WEBHOOK_ALLOW_PRIVATE_TARGETS=$${WEBHOOK_ALLOW_PRIVATE_TARGETS:-true} PORT=$(PORT) \
		$(PY) manage.py webhooks_worker > .celery-worker.log 2>&1 & worker=$$!; \
	trap 'kill $$worker 2>/dev/null; wait $$worker 2>/dev/null' EXIT INT TERM; \
	DEBUG=true PORT=$(PORT) $(PY) manage.py runserver 127.0.0.1:$(PORT)

test: $(VENV)/.installed-dev
	$(PY) -m pytest $(PYTEST_ARGS)

lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	DEBUG=true $(PY) manage.py makemigrations --check --dry-run

# Production serving on loopback (another BIND needs nginx in front and BEHIND_TRUSTED_PROXY=true,
# or config/gunicorn.conf.py refuses it): DEBUG off, static files collected for whitenoise,
# migrations applied, then gunicorn with config/gunicorn.conf.py. SECRET_KEY must come from the
# environment: a generated key would change on every start and log everyone out.
serve: $(VENV)/.installed
	@test -n "$$SECRET_KEY" || { echo "make serve: set SECRET_KEY first, e.g." \
		"export SECRET_KEY=\$$(python3 -c 'import secrets; print(secrets.token_urlsafe(50))')" >&2; exit 2; }
	DEBUG=false $(PY) manage.py collectstatic --noinput -v 0
	DEBUG=false $(PY) manage.py migrate --noinput
	DEBUG=false PORT=$(PORT) $(VENV)/bin/gunicorn -c config/gunicorn.conf.py config.wsgi

# The benchmark (bench/README.md): service and baselines under gunicorn, load from wrk; about ten
# minutes. BENCH_ARGS=--quick for a smoke run.
bench: $(VENV)/.installed-dev
	$(PY) -m bench.run $(BENCH_ARGS)

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache bench/.work
