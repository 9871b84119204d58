# The two commands of the README: `make run` and `make test`. Both build .venv when missing.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000

.PHONY: run test lint serve serve-edge bench clean

# The service's requirements (make run, make serve), and the development set on top of them
# (make test, lint, bench): requirements.txt and requirements-dev.txt, both pinned; the second
# includes requirements-traces.txt (OpenTelemetry, an optional install in production).
$(VENV)/.installed: requirements.txt
	@test -x $(PY) || { echo "==> Creating $(VENV) with $(PYTHON)"; $(PYTHON) -m venv $(VENV); }
	@echo "==> Installing requirements.txt into $(VENV) (about a minute the first time)"
	@$(PY) -m pip install --quiet --upgrade pip
	@$(PY) -m pip install --progress-bar off -r requirements.txt
	@touch $@

$(VENV)/.installed-traces: $(VENV)/.installed requirements-traces.txt
	@echo "==> Installing requirements-traces.txt into $(VENV)"
	@$(PY) -m pip install --progress-bar off -r requirements-traces.txt
	@touch $@

$(VENV)/.installed-dev: $(VENV)/.installed-traces requirements-dev.txt
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
# The worker runs in a loop that starts it again whenever it exits, after a line on the console
# (its exit status; the cause is in its log, kept across restarts) and a pause that doubles, up to
# 32 s, while it keeps exiting within a minute. /readyz expects its heartbeat (core/health.py).
# Stopping (docs/decisions/clean-stops.md): Ctrl-C, or SIGTERM/SIGINT to make's process group,
# ends everything in 4 to 7 s. The trap passes the stop on to the loop, whose own trap stops the
# worker and ends the loop (also when the dev server exits by itself); REMAP_SIGTERM=SIGQUIT makes
# SIGTERM Celery's cold shutdown and keeps its pool deaf to the group's SIGTERM (which hung the
# warm shutdown): a delivery in hand is cut at once (no soft window: the trap's signal would cut
# it anyway) and sent at the next start.
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
	@export DEBUG=true PORT=$(PORT) WORKER_UNSEEN_SECONDS=$${WORKER_UNSEEN_SECONDS:-60}; \
	( trap 'kill $$worker $$pause 2>/dev/null; wait $$worker 2>/dev/null; exit' TERM; \
		: > .celery-worker.log; delay=1; \
		while :; do \
			started=$$(date +%s); \
			WEBHOOK_ALLOW_PRIVATE_TARGETS=$${WEBHOOK_ALLOW_PRIVATE_TARGETS:-true} \
			REMAP_SIGTERM=SIGQUIT CELERY_SOFT_SHUTDOWN_SECONDS=$${CELERY_SOFT_SHUTDOWN_SECONDS:-0} \
				$(PY) manage.py webhooks_worker >> .celery-worker.log 2>&1 & worker=$$!; \
			wait $$worker; status=$$?; \
			test $$(($$(date +%s) - started)) -lt 60 || delay=1; \
			echo "==> The webhook worker exited with status $$status (its log: .celery-worker.log);" \
				"starting it again in $$delay s"; \
			sleep $$delay & pause=$$!; wait $$pause; \
			test $$delay -ge 32 || delay=$$((delay * 2)); \
		done ) & keeper=$$!; \
	trap 'kill $$keeper 2>/dev/null; wait $$keeper 2>/dev/null' EXIT INT TERM; \
	$(PY) manage.py runserver 127.0.0.1:$(PORT)

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

# The edge cache in front (docs/production.md, "Edge cache (Varnish)"): Varnish on PORT with the
# shipped deploy/varnish/blog-service.vcl, `make serve` behind it on ORIGIN_PORT (PORT + 1), and
# a Celery worker with the beat embedded that sends the purges (and the webhooks). VCL reads no
# environment, so the origin's port is written into a copy of the file in EDGE_DIR, beside
# varnishd's work folder, the worker's log and, without CELERY_BROKER_URL or REDIS_URL, the
# broker's folder; /readyz expects the worker's heartbeat (WORKER_UNSEEN_SECONDS). Ctrl-C, or
# SIGTERM/SIGINT to make's process group, stops all of them; the trap also stops the rest when
# one exits by itself (docs/decisions/clean-stops.md). The inner `make serve` takes
# $(VENV)/.installed as made: this target made it first.
ORIGIN_PORT ?= $(shell expr $(PORT) + 1)
EDGE_DIR ?= .edge/$(PORT)
VARNISHD ?= $(shell command -v varnishd || echo /usr/sbin/varnishd)
# VARNISHD_PARAMS: the limits of what Varnish reads, the same file as the systemd unit's (found
# beside this Makefile, also when make runs it from another folder with -f).
include $(dir $(abspath $(lastword $(MAKEFILE_LIST))))deploy/varnish/varnishd.params
serve-edge: $(VENV)/.installed
	@test -n "$$SECRET_KEY" || { echo "make serve-edge: set SECRET_KEY first, e.g." \
		"export SECRET_KEY=\$$(python3 -c 'import secrets; print(secrets.token_urlsafe(50))')" >&2; exit 2; }
	@test -x "$(VARNISHD)" || { echo "make serve-edge: varnishd is missing: apt-get install" \
		"varnish varnish-modules (Debian; .ci/install-varnish does it as root)" >&2; exit 2; }
	@mkdir -p $(EDGE_DIR)
	@sed 's/\.port = "8000";/.port = "$(ORIGIN_PORT)";/' deploy/varnish/blog-service.vcl \
		> $(EDGE_DIR)/blog-service.vcl
	@test "$$(grep -c '\.port = "$(ORIGIN_PORT)";' $(EDGE_DIR)/blog-service.vcl)" = 2 || { echo \
		"make serve-edge: deploy/varnish/blog-service.vcl no longer has two .port lines" >&2; exit 2; }
	@echo "==> Migrating the database"
	@DEBUG=false $(PY) manage.py migrate --noinput
	@echo "==> Serving http://127.0.0.1:$(PORT)/ through Varnish, the origin on 127.0.0.1:$(ORIGIN_PORT);"
	@echo "    the purge worker's log: $(EDGE_DIR)/worker.log"
	@export DEBUG=false BEHIND_TRUSTED_PROXY=true \
		EDGE_PURGE_URLS=$${EDGE_PURGE_URLS:-http://127.0.0.1:$(PORT)} \
		ALLOWED_PORTS=$${ALLOWED_PORTS:-$(PORT),$(ORIGIN_PORT)} \
		WORKER_UNSEEN_SECONDS=$${WORKER_UNSEEN_SECONDS:-60} \
		CELERY_BROKER_FOLDER=$${CELERY_BROKER_FOLDER:-$(abspath $(EDGE_DIR))/broker} \
		CELERY_BEAT_SCHEDULE_FILENAME=$${CELERY_BEAT_SCHEDULE_FILENAME:-$(abspath $(EDGE_DIR))/beat-schedule}; \
	$(MAKE) --no-print-directory -o $(VENV)/.installed serve PORT=$(ORIGIN_PORT) & origin=$$!; \
	REMAP_SIGTERM=SIGQUIT CELERY_SOFT_SHUTDOWN_SECONDS=$${CELERY_SOFT_SHUTDOWN_SECONDS:-0} \
		$(VENV)/bin/celery -A config worker --loglevel=INFO --concurrency=2 \
		--hostname=serve-edge-$(PORT)@%h --without-gossip --without-mingle \
		> $(EDGE_DIR)/worker.log 2>&1 & worker=$$!; \
	$(VENV)/bin/celery -A config beat --loglevel=INFO --schedule=$$CELERY_BEAT_SCHEDULE_FILENAME \
		--pidfile= > $(EDGE_DIR)/beat.log 2>&1 & beat=$$!; \
	trap 'kill $$origin $$worker $$beat 2>/dev/null; wait $$origin $$worker $$beat 2>/dev/null' \
		EXIT INT TERM; \
	$(VARNISHD) -F -a 127.0.0.1:$(PORT) -f $(abspath $(EDGE_DIR))/blog-service.vcl \
		-n $(abspath $(EDGE_DIR))/varnish -s malloc,256m -T none $(VARNISHD_PARAMS)

# The benchmark (bench/README.md): service and baselines under gunicorn, load from wrk; about ten
# minutes. BENCH_ARGS=--quick for a smoke run.
bench: $(VENV)/.installed-dev
	$(PY) -m bench.run $(BENCH_ARGS)

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache bench/.work .edge
