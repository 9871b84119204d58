"""Settings for the test suite: the same as production but fast and self-contained."""

from __future__ import annotations

import os

os.environ.setdefault("SECRET_KEY", "test-only-secret-key-not-for-production-use-0123456789")

from config.settings.base import *  # noqa: F403
from config.settings.base import DATABASES
from core.env import env_str

ALLOWED_HOSTS = ["testserver", "127.0.0.1", "localhost"]
# A test's writes to the Star Wars data roll back with its transaction: every request compares
# the catalogue's revision with the database's, so no test answers from another's data.
GRAPHQL_STARWARS_REVALIDATE_SECONDS = 0
# The live test servers listen on ports of the system's choosing.
ALLOWED_PORTS = ["*"]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_AUTOREFRESH = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["TEST"] = {"NAME": None}
if "replica" in DATABASES:
    # No test database of its own: the replica alias reads the test database (Django's mirror).
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}
# No broker server in the unit tests: what the services hand over after a commit stays in this
# process (the tests call the delivery task's function themselves); the worker and broker are
# tested as real processes in tests/reliability.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL") or "memory://"
# The receivers of the tests listen on 127.0.0.1; the refusal is tested with this off.
WEBHOOK_ALLOW_PRIVATE_TARGETS = True
# Problem types of refused hosts and the links of a message are the test client's
# ("http://testserver/...").
PUBLIC_URL = "http://testserver"
WEBHOOK_PUBLIC_URL = "http://testserver"
