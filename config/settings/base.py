"""Settings for every environment; production differs only by environment variables (README.md,
"Configuration", gives each one's meaning and default)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp import constants as csp_constants
from django.core.exceptions import ImproperlyConfigured

from core.cache_control import static_file_headers
from core.env import env_bool, env_choice, env_int, env_list, env_origin, env_rate, env_str

BASE_DIR = Path(__file__).resolve().parent.parent.parent

DEBUG = env_bool("DEBUG", False)

SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
    SECRET_KEY = "django-insecure-development-only-key-never-use-in-production"  # noqa: S105

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
# Ports a Host header may name besides the scheme's default (80, 443): links and the WSDL address
# carry it, so any other is a 400 (core.middleware.BadRequestMiddleware). `*` allows any.
ALLOWED_PORTS = env_list("ALLOWED_PORTS", ["8000", *([env_str("PORT")] if env_str("PORT") else [])])

# Behind a trusted reverse proxy, links are built from X-Forwarded-Proto/-Host; otherwise those
# headers are ignored, so that a client cannot make the service hand out links to another host.
BEHIND_TRUSTED_PROXY = env_bool("BEHIND_TRUSTED_PROXY", False)
# Behind it, how many proxies of this deployment stand in front, each adding one X-Forwarded-For
# entry: 1 for nginx or Varnish alone, 2 for nginx in front of Varnish (nginx writes the client's
# address, Varnish appends nginx's). The client is the entry that many from the end.
TRUSTED_PROXY_HOPS = env_int("TRUSTED_PROXY_HOPS", 1, minimum=1)
if BEHIND_TRUSTED_PROXY:
    USE_X_FORWARDED_HOST = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "graphene_django",
    "axes",
    "csp",
    "simple_history",
    "core",
    "rest",
    "blogs",
    "articles",
    "graphapi",
    "soapcalc",
    "webhooks",
    "drafts",
]

MIDDLEWARE = [
    # First: a request's time, status, queries and cache calls include all the others' work.
    "core.metrics.middleware.MetricsMiddleware",
    # Outside every middleware that may answer by itself (whitenoise, the platform's errors):
    # whatever answered, it decides what a shared cache in front may keep (core.edge).
    "core.edge.EdgeCacheMiddleware",
    "core.middleware.RequestIdMiddleware",
    # Outside every view and the middleware that may replace a view's answer: whichever surface
    # counted the request, its response says where the client stands.
    "core.ratelimit.RateLimitHeadersMiddleware",
    "core.middleware.RefusedBodyDrainMiddleware",
    "core.middleware.BadRequestMiddleware",
    "rest.middleware.ApiProblemFallbackMiddleware",
    "core.middleware.NotImplementedMethodMiddleware",
    "rest.middleware.ApiBodySizeLimitMiddleware",
    "core.middleware.IncompleteBodyMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "core.cookie_middleware.HtmlSessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Django's own, by its exact path: `check --deploy` looks for it (W003). Every view of the
    # machine surfaces is csrf_exempt, so it costs them no more than reading the cookie.
    "django.middleware.csrf.CsrfViewMiddleware",
    "core.cookie_middleware.HtmlAuthenticationMiddleware",
    # After the session's user is known: it names the client whose reads follow its writes.
    "core.db_router.ReplicaPinMiddleware",
    "core.cookie_middleware.HtmlMessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into its 429 response.
    "axes.middleware.AxesMiddleware",
]
if DEBUG:
    # `make run` only, before django-axes: production answers every 404 through handler404
    # already (docs/decisions/development-server.md).
    MIDDLEWARE.insert(-1, "core.middleware.DebugNotFoundMiddleware")

# django-axes first: it refuses a login from a locked-out client before any password is checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
APPEND_SLASH = False

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Database: SQLite file in the project folder unless DATABASE_URL names another (PostgreSQL
# through psycopg 3: postgres://user:password@host:5432/name).
# DATABASE_POOLER=pgbouncer: the URLs name a pgbouncer in transaction mode, where each
# transaction may run on another server connection: no server-side cursors (they live across
# transactions), no prepared statements (psycopg's prepare_threshold=None, Django's default made
# explicit), and the code keeps no session state (docs/production.md, "Connection pooling").
DATABASE_POOLER = env_choice("DATABASE_POOLER", "none", ("none", "pgbouncer"))


def database_from_url(url: str) -> dict:
    database = dj_database_url.parse(
        url,
        conn_max_age=env_int("DB_CONN_MAX_AGE", 60, minimum=0),
        conn_health_checks=True,
    )
    if database["ENGINE"] == "django.db.backends.sqlite3":
        database["OPTIONS"] = {
            # IMMEDIATE takes the write lock when a transaction starts, so concurrent writers
            # queue instead of failing with "database is locked" when a read lock is upgraded.
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    elif database["ENGINE"] == "django.db.backends.postgresql":
        options = database.setdefault("OPTIONS", {})
        options.setdefault("connect_timeout", env_int("DB_CONNECT_TIMEOUT", 3, minimum=1))
        if DATABASE_POOLER == "pgbouncer":
            database["DISABLE_SERVER_SIDE_CURSORS"] = True
            options["prepare_threshold"] = None
    return database


DATABASES = {
    "default": database_from_url(env_str("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}")
}
# DATABASE_REPLICA_URL: a streaming replica of that database. Content reads go there, except a
# client's own reads for REPLICA_PIN_SECONDS after it wrote; a replica that is unreachable or
# more than REPLICA_MAX_LAG_SECONDS behind (checked every REPLICA_CHECK_SECONDS per process) is
# left out (core/db_router.py, docs/production.md "Read replica").
if env_str("DATABASE_REPLICA_URL"):
    DATABASES["replica"] = database_from_url(env_str("DATABASE_REPLICA_URL"))
DATABASE_ROUTERS = ["core.db_router.ReplicaRouter"]
# A writer's commit not replayed after REPLICA_PIN_SECONDS means the replica is more than that
# behind; with the pin at least REPLICA_MAX_LAG_SECONDS + REPLICA_CHECK_SECONDS, every process
# has found it lagging by then and reads from the primary (docs/decisions/read-replica.md).
REPLICA_PIN_SECONDS = env_int("REPLICA_PIN_SECONDS", 10, minimum=1)
REPLICA_MAX_LAG_SECONDS = env_int("REPLICA_MAX_LAG_SECONDS", 5, minimum=0)
REPLICA_CHECK_SECONDS = env_int("REPLICA_CHECK_SECONDS", 2, minimum=1)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Cache: Redis when REDIS_URL is set, otherwise the platform's store on the database (table
# core_store, created by `migrate`). Either way every server process shares one store: rate-limit
# counters, idempotency keys and the representation cache hold across gunicorn workers and hosts
# (docs/decisions/shared-cache-without-redis.md).
REDIS_URL = env_str("REDIS_URL")
if REDIS_URL:
    CACHES = {
        "default": {
            # django-redis's RedisCache (core.store.RedisStore), counting its calls for metrics.
            "BACKEND": "core.metrics.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5},
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "core.metrics.cache.DatabaseStore",
            "LOCATION": "core_store",
            # Past this, the periodic cull (core.cull_store) removes the soonest to expire.
            "OPTIONS": {"MAX_ENTRIES": env_int("CACHE_MAX_ENTRIES", 1_000_000, minimum=1000)},
        }
    }

# How long a representation stays in the cache (core.representations; a write replaces it at
# once); 0 keeps none: every read is built from the database.
REPRESENTATION_CACHE_SECONDS = env_int("REPRESENTATION_CACHE_SECONDS", 300, minimum=0)

# A shared cache in front (the edge; docs/decisions/edge-cache.md): public reads carry
# `Cache-Control: public, max-age=0, s-maxage=EDGE_SHARED_MAX_AGE, stale-while-revalidate=
# EDGE_STALE_WHILE_REVALIDATE, stale-if-error=EDGE_STALE_IF_ERROR` (seconds): the edge keeps a
# read that long (a write purges it at once), then may answer it stale while it fetches anew,
# and, while the origin fails, for as long as stale-if-error says. Browsers always revalidate.
EDGE_SHARED_MAX_AGE = env_int("EDGE_SHARED_MAX_AGE", 300, minimum=0)
EDGE_STALE_WHILE_REVALIDATE = env_int("EDGE_STALE_WHILE_REVALIDATE", 30, minimum=0)
EDGE_STALE_IF_ERROR = env_int("EDGE_STALE_IF_ERROR", 86400, minimum=0)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# The site's own stylesheet (static/site/); the apps' static files come from their folders.
STATICFILES_DIRS = [BASE_DIR / "static"]
# Files served at the site's root by whitenoise, for the clients that ask there: /favicon.ico.
WHITENOISE_ROOT = BASE_DIR / "public"
# Static files are shared by the edge as the API's reads are, under the keys `site static`.
WHITENOISE_ADD_HEADERS_FUNCTION = static_file_headers
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# --- Transport and browser security (docs/reliability.md lists the production values) ----
# Off by default so that `make run` and `make serve` work over plain HTTP on loopback; behind TLS
# the environment turns them on, and `manage.py check --deploy` then passes.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
# Load balancers probe /healthz over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
# SecurityMiddleware sends Strict-Transport-Security only on secure requests (RFC 6797 7.2).
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", False)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", False)
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
X_FRAME_OPTIONS = "DENY"

# Content-Security-Policy (django-csp) for every page: scripts only from this site or inline
# with the per-response nonce (templates: nonce="{{ request.csp_nonce }}"); GraphiQL, Swagger UI,
# the browsable API and the admin are all served from this site. Inline styles stay allowed:
# Swagger UI's page and GraphiQL's editor set them, and styles cannot run code.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'", csp_constants.NONCE],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "worker-src": ["'self'", "blob:"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# Admin login throttling (django-axes): after AXES_FAILURE_LIMIT failed logins for one username
# from one address, that pair is refused (429) for AXES_COOLOFF_MINUTES. Attempts are kept in the
# database, so every server process sees them. Keyed on username and address together, so that
# nobody can lock an editor out from elsewhere by guessing their username.
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("AXES_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
# Only the admin has a password login; the API uses access tokens.
AXES_ONLY_ADMIN_SITE = True
# The client's address as the rate limits see it (core.client_address): behind nginx, without
# this, every client would have nginx's, and five wrong passwords would lock the editor out.
AXES_CLIENT_IP_CALLABLE = "core.client_address.client_address"
# No banner on every start (management commands print one line); lockouts are still logged.
AXES_VERBOSE = False

# --- Limits and knobs named by the contract -------------------------------------------------------
MAX_BODY_BYTES = env_int("MAX_BODY_BYTES", 1024 * 1024, minimum=1)
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_BODY_BYTES
PAGE_SIZE_DEFAULT = env_int("PAGE_SIZE_DEFAULT", 10, minimum=1)
PAGE_SIZE_MAX = env_int("PAGE_SIZE_MAX", 100, minimum=1)
# A page embeds an article's content only up to this many characters (longer: left out, with
# "contentOmitted": true), so that a page of 100 stays a few MB at most.
PAGE_CONTENT_MAX_CHARS = env_int("PAGE_CONTENT_MAX_CHARS", 10_000, minimum=0)
# The CPU time one Markdown rendering may spend (articles.content): a write whose Markdown needs
# more is refused (422 content-too-complex), a read past it shows the content as text. Chosen so
# that MAX_BODY_BYTES of ordinary Markdown renders well within it and the worst content stays under
# a second in all (docs/decisions/render-budget.md, bench/render_limit.py).
MARKDOWN_RENDER_BUDGET_MS = env_int("MARKDOWN_RENDER_BUDGET_MS", 500, minimum=1)
# The revisions kept per article: a replace beyond the bound deletes the oldest (articles.services).
ARTICLE_REVISIONS_KEPT = env_int("ARTICLE_REVISIONS_KEPT", 50, minimum=1)
# Revisions are listed per article by version (a unique index): an index on their date alone
# would only cost every replace a write.
SIMPLE_HISTORY_DATE_INDEX = False
# A search on PostgreSQL ranks every match: one that matches most of a large blog would hold a
# connection for seconds. Past this budget it is refused (400, "narrow it"); docs/rest.md.
SEARCH_TIMEOUT_MS = env_int("SEARCH_TIMEOUT_MS", 2000, minimum=1)
# A page of articles is found by position from the nearest remembered boundary, walking from the
# nearer end in strides of this many index entries when none is near: the most a page skips
# (docs/decisions/deep-pages.md). Its statements are bounded like a search's: past
# PAGE_TIMEOUT_MS the answer is a 503 (retry, or a page nearer an end), never a held worker.
PAGE_BOUNDARY_STRIDE = env_int("PAGE_BOUNDARY_STRIDE", 10_000, minimum=1)
PAGE_TIMEOUT_MS = env_int("PAGE_TIMEOUT_MS", 1000, minimum=1)
# A search with at least this many matches keeps its ranking in the cache until its articles
# change (docs/decisions/search.md, "Broad searches"); fewer are ranked again, in a few ms.
SEARCH_CACHE_MIN_MATCHES = env_int("SEARCH_CACHE_MIN_MATCHES", 1000, minimum=1)
# PostgreSQL's work_mem for a search's statements only (SET LOCAL; articles.search).
SEARCH_WORK_MEM = env_str("SEARCH_WORK_MEM") or "16MB"
if PAGE_SIZE_DEFAULT > PAGE_SIZE_MAX:
    raise ImproperlyConfigured("PAGE_SIZE_DEFAULT must not exceed PAGE_SIZE_MAX")

RATE_LIMIT_ENABLED = env_bool("RATE_LIMIT_ENABLED", True)
RATE_LIMIT_READ = env_rate("RATE_LIMIT_READ", "600/min")
RATE_LIMIT_WRITE = env_rate("RATE_LIMIT_WRITE", "120/min")
# Webhook writes (create, change, delete, rotate, redeliver) count against the write limit and
# against this one too: each subscription multiplies every later write's deliveries, and a
# redelivery is an outgoing request.
RATE_LIMIT_WEBHOOK_WRITE = env_rate("RATE_LIMIT_WEBHOOK_WRITE", "30/min")

IDEMPOTENCY_KEY_TTL_SECONDS = env_int("IDEMPOTENCY_KEY_TTL_SECONDS", 24 * 3600, minimum=1)
# How long the token check remembers an active token in the shared store (blogs.tokens); any
# change to the token or its user forgets it at once. 0: every write looks its token up.
TOKEN_CACHE_SECONDS = env_int("TOKEN_CACHE_SECONDS", 60, minimum=0)
MAINTENANCE_MODE = env_bool("MAINTENANCE_MODE", False)

SOAP_NAMESPACE = env_str("SOAP_NAMESPACE") or "http://example.org/calculator"
SOAP_MAX_BODY_BYTES = env_int("SOAP_MAX_BODY_BYTES", 64 * 1024, minimum=1)
# Whether every SOAP request must carry a WS-Security UsernameToken (docs/soap.md, "WS-Security").
# Off: a request without one is served as before; a token that is sent is checked either way.
SOAP_WSSE_REQUIRED = env_bool("SOAP_WSSE_REQUIRED", False)

GRAPHQL_MAX_DEPTH = env_int("GRAPHQL_MAX_DEPTH", 10, minimum=1)
GRAPHQL_MAX_ALIASES = env_int("GRAPHQL_MAX_ALIASES", 50, minimum=0)
GRAPHQL_MAX_TOKENS = env_int("GRAPHQL_MAX_TOKENS", 5000, minimum=1)
GRAPHQL_TIME_BUDGET_MS = env_int("GRAPHQL_TIME_BUDGET_MS", 2000, minimum=1)
# A GraphQL request costs one read of the read limit, and one more per this much time it used.
GRAPHQL_READ_COST_MS = env_int("GRAPHQL_READ_COST_MS", 100, minimum=1)
GRAPHQL_INTROSPECTION = env_bool("GRAPHQL_INTROSPECTION", True)
# How stale another process's copy of the Star Wars data may be (graphapi.catalogue).
GRAPHQL_STARWARS_REVALIDATE_SECONDS = env_int("GRAPHQL_STARWARS_REVALIDATE_SECONDS", 1, minimum=0)

# --- REST (HAL) -----------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "rest.exceptions.exception_handler",
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest.authentication.AccessTokenAuthentication"],
    # ?format= would bypass content negotiation; the Accept header decides.
    "URL_FORMAT_OVERRIDE": None,
    # X-Forwarded-For names the client only behind our own proxy; otherwise anyone could pick
    # the address their reads are counted against.
    "NUM_PROXIES": TRUSTED_PROXY_HOPS if BEHIND_TRUSTED_PROXY else 0,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Blog service REST API (HAL)",
    "VERSION": "1.2",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # validatorUrl null: Swagger UI would otherwise fetch a badge from validator.swagger.io.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "DESCRIPTION": (
        "Blogs, articles and comments in HAL (`application/hal+json`; `application/json` gives the"
        " same body). Reads are public; writes need an `X-Access-Token` header. Every error is an"
        " RFC 9457 problem (`application/problem+json`), every status an operation can answer is"
        " listed with it. A deleted article answers 410 Gone. Responses carry `ETag` and"
        " `Last-Modified`: send `If-None-Match` to read cheaply (304) and `If-Match` to write"
        " without losing an update (412). The full reference is docs/rest.md in the repository."
    ),
    # Operation descriptions are written for API users (each view's `extend_schema`); the views' and
    # serializers' docstrings are written for maintainers.
    "DISABLE_DOCSTRING_DESCRIPTIONS": True,
    # Paths are described relative to the server URL, the API's root (so the root is `/`, not
    # `/api/v1.2/`); rest.openapi.servers_from_request makes it absolute when served.
    "SCHEMA_PATH_PREFIX": r"/api/v1\.2",
    "SCHEMA_PATH_PREFIX_TRIM": True,
    "SERVERS": [{"url": "/api/v1.2", "description": "This service, version 1.2"}],
    "TAGS": [
        {"name": "root", "description": "The entry point: links to everything else."},
        {"name": "blogs", "description": "Blogs, read-only (editors manage them in the admin)."},
        {"name": "articles", "description": "A blog's articles: pages, reads and token writes."},
        {"name": "comments", "description": "An article's comments."},
        {
            "name": "webhooks",
            "description": "A blog's webhooks, managed by its authors, and their deliveries.",
        },
    ],
    # Choices are listed by `enum` (named components, by postprocess_schema_enums); these names
    # say more than the field's, and the only-`true` one (a templated link, an omitted content)
    # is named once.
    "ENUM_GENERATE_CHOICE_DESCRIPTION": False,
    "ENUM_NAME_OVERRIDES": {
        "TrueEnum": [(True, True)],
        "CurieNameEnum": ["doc"],
        "HalFormsTypeEnum": ["text", "textarea"],
        "HalFormsMethodEnum": ["POST", "PUT", "DELETE"],
        "HalFormsContentTypeEnum": ["application/json"],
    },
    "PREPROCESSING_HOOKS": ["rest.openapi.only_canonical_paths"],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "articles.api.schema.add_blog_feed",
        "rest.openapi.public_operations_say_so",
        "rest.openapi.servers_from_request",
    ],
}

# The time budget is a graphql-core field middleware (graphapi.execution); naming it also keeps
# graphene-django's DjangoDebugMiddleware, added by default under DEBUG, out.
GRAPHENE = {"SCHEMA": "graphapi.schema.schema", "MIDDLEWARE": ["graphapi.execution.TimeBudget"]}

# /metrics answers 404 unless this is set; then it needs `Authorization: Bearer <token>`
# (docs/production.md, "Metrics"). PROMETHEUS_MULTIPROC_DIR is read by prometheus-client itself.
METRICS_TOKEN = env_str("METRICS_TOKEN")

# The origin clients reach the service at, for the absolute URLs that no request can give: the
# problem `type` of a request whose Host was refused (core.problems; never the refused Host),
# and the links in webhook messages. By default the first host named in ALLOWED_HOSTS, over
# https when SECURE_SSL_REDIRECT is on; a loopback host gets the dev server's port.
_PUBLIC_HOST = next((h for h in ALLOWED_HOSTS if h != "*" and not h.startswith(".")), "127.0.0.1")
_PUBLIC_SCHEME = "https" if SECURE_SSL_REDIRECT else "http"
_PUBLIC_PORT = (
    f":{env_str('PORT') or '8000'}"
    if _PUBLIC_SCHEME == "http" and _PUBLIC_HOST in ("127.0.0.1", "localhost", "[::1]")
    else ""
)
PUBLIC_URL = env_origin("PUBLIC_URL", f"{_PUBLIC_SCHEME}://{_PUBLIC_HOST}{_PUBLIC_PORT}")

# --- Drafts (docs/rest.md, "Drafts") --------------------------------------------------------------
# How long a draft's preview link (signed, no table) opens the draft without a token.
PREVIEW_LINK_HOURS = env_int("PREVIEW_LINK_HOURS", 48, minimum=1)

# --- Webhooks (docs/webhooks.md) and Celery, which delivers them ---------------------------------
# The origin integrators reach the service at: the links in a message's data start with it (its
# host must be one of ALLOWED_HOSTS). PUBLIC_URL unless set apart.
WEBHOOK_PUBLIC_URL = (env_str("WEBHOOK_PUBLIC_URL") or PUBLIC_URL).rstrip("/")
# Off in production: a target resolving to a loopback, private, link-local, multicast or reserved
# address is refused (cloud metadata addresses always are). On for development and tests.
WEBHOOK_ALLOW_PRIVATE_TARGETS = env_bool("WEBHOOK_ALLOW_PRIVATE_TARGETS", False)
WEBHOOK_TIMEOUT_SECONDS = env_int("WEBHOOK_TIMEOUT_SECONDS", 10, minimum=1)
WEBHOOK_RETRY_HOURS = env_int("WEBHOOK_RETRY_HOURS", 24, minimum=1)
WEBHOOK_RETRY_BASE_SECONDS = env_int("WEBHOOK_RETRY_BASE_SECONDS", 30, minimum=0)
WEBHOOK_RETRY_MAX_SECONDS = env_int("WEBHOOK_RETRY_MAX_SECONDS", 4 * 3600, minimum=0)
WEBHOOK_DISABLE_AFTER_HOURS = env_int("WEBHOOK_DISABLE_AFTER_HOURS", 72, minimum=1)
WEBHOOK_RELAY_SECONDS = env_int("WEBHOOK_RELAY_SECONDS", 10, minimum=1)
WEBHOOK_REQUEUE_AFTER_SECONDS = env_int("WEBHOOK_REQUEUE_AFTER_SECONDS", 300, minimum=1)
# Events, their deliveries and attempts are forgotten this long after the event (hourly, by beat),
# once no delivery of theirs is pending.
WEBHOOK_KEEP_DAYS = env_int("WEBHOOK_KEEP_DAYS", 30, minimum=1)
# Subscriptions one blog may have (active or not): every write of the blog fans out to each.
WEBHOOK_MAX_PER_BLOG = env_int("WEBHOOK_MAX_PER_BLOG", 20, minimum=1)

# --- Purges of the edge cache (Varnish with xkey; docs/decisions/edge-cache.md, "Purges") --------
# The edges' base URLs, comma-separated (e.g. http://127.0.0.1:6081). Each write records the
# surrogate keys it changed in its transaction (table core_edge_purge) and, after its commit, a
# worker sends `PURGE /` with `xkey-softpurge: <keys>` to every edge until each answered 200.
# Empty (the default): no edge, nothing recorded, not a statement more per write.
EDGE_PURGE_URLS = env_list("EDGE_PURGE_URLS", [])
# How long one purge request may take (connecting, then answering).
EDGE_PURGE_TIMEOUT_SECONDS = env_int("EDGE_PURGE_TIMEOUT_SECONDS", 2, minimum=1)
# The relay (beat) runs this often and purges, in batches, the rows still there this long after
# their write or their last failed attempt: those whose message never reached the broker, or
# whose task gave up retrying (an edge down for minutes).
EDGE_RELAY_SECONDS = env_int("EDGE_RELAY_SECONDS", 5, minimum=1)
EDGE_RELAY_AFTER_SECONDS = env_int("EDGE_RELAY_AFTER_SECONDS", 10, minimum=1)

# --- Scheduled publication of drafts (docs/decisions/publishing.md, "Publishing on time") -------
# Each schedule sends an ETA message; beat's sweep runs this often and publishes the open drafts
# whose time passed that no message published (a worker stopped across the time, a lost message):
# a draft goes out at most this long (and a worker's pick-up) after its time.
DRAFTS_SWEEP_SECONDS = env_int("DRAFTS_SWEEP_SECONDS", 30, minimum=1)
# How far ahead a draft may be scheduled (422 beyond): a year and a day, so that "the same day
# next year" is always allowed; a year 9999 is a typo or a probe, never a plan.
PUBLISH_HORIZON_DAYS = env_int("PUBLISH_HORIZON_DAYS", 366, minimum=1)

# The Celery app core.broker publishes with, imported on its first publish (config/__init__.py).
BROKER_APP = "config.celery.app"

# Redis in production (a database number of its own, not the cache's: a cache clear would empty
# the queue); without one, a broker that needs no server: messages are files in BROKER_FOLDER,
# which every process of this checkout shares (docs/decisions/webhooks-celery.md).
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL") or REDIS_URL or "filesystem://"
CELERY_BROKER_FOLDER = Path(env_str("CELERY_BROKER_FOLDER") or BASE_DIR / ".celery-broker")
# Redis: a message not acknowledged this long after a worker took it goes to another.
_VISIBILITY_TIMEOUT = env_int("CELERY_VISIBILITY_TIMEOUT_SECONDS", 3600, minimum=1)
# A scheduled draft's ETA message is sent only once its time is this close (at the schedule, or
# by the sweep when the time comes into reach): a worker holds an ETA message unacknowledged
# until its time, and one held past the visibility timeout is delivered again. Half of it leaves
# the other half for a busy worker's queue (docs/decisions/publishing.md, "Publishing on time").
DRAFTS_MESSAGE_WINDOW_SECONDS = _VISIBILITY_TIMEOUT // 2
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": _VISIBILITY_TIMEOUT,
    "socket_connect_timeout": 2,
    # filesystem://: one folder both ways.
    "data_folder_in": str(CELERY_BROKER_FOLDER),
    "data_folder_out": str(CELERY_BROKER_FOLDER),
    "control_folder": str(CELERY_BROKER_FOLDER / "control"),
}
if CELERY_BROKER_URL.startswith("filesystem://"):
    # A worker on the folder looks for new files this often (kombu's default is 1 s): a purge sent
    # after a write reaches the edge within its second (docs/decisions/edge-cache.md). Only there:
    # on Redis the option would shorten each blocking pop instead.
    CELERY_BROKER_TRANSPORT_OPTIONS["polling_interval"] = 0.1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_TASK_IGNORE_RESULT = True
# One message at a time per process: a message waiting in a busy worker's buffer is one that an
# idle worker could be sending.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Celery's soft shutdown: a worker told to stop (SIGTERM with REMAP_SIGTERM=SIGQUIT, as `make run`
# and the systemd unit start it; SIGQUIT otherwise) gives the deliveries in hand this long, then
# cuts them short and hands their messages back: a stop takes seconds, and a cut delivery is sent
# again (docs/decisions/clean-stops.md).
CELERY_WORKER_SOFT_SHUTDOWN_TIMEOUT = float(env_int("CELERY_SOFT_SHUTDOWN_SECONDS", 3, minimum=0))
# The worker's heartbeat: beat sends core.worker_heartbeat this often, and the worker that runs it
# records the time in the shared store. Where a worker is expected (make run, make serve-edge, the
# production units' environment), WORKER_UNSEEN_SECONDS says how long /readyz may go without one
# before its "worker" check fails; 0, the default, is a topology without a worker (make serve).
WORKER_HEARTBEAT_SECONDS = env_int("WORKER_HEARTBEAT_SECONDS", 10, minimum=1)
WORKER_UNSEEN_SECONDS = env_int("WORKER_UNSEEN_SECONDS", 0, minimum=0)
if 0 < WORKER_UNSEEN_SECONDS <= WORKER_HEARTBEAT_SECONDS:
    raise ImproperlyConfigured("WORKER_UNSEEN_SECONDS must exceed WORKER_HEARTBEAT_SECONDS")
CELERY_BEAT_SCHEDULE = {
    "worker-heartbeat": {
        "task": "core.worker_heartbeat",
        "schedule": float(WORKER_HEARTBEAT_SECONDS),
        # While no worker runs, beat's heartbeats expire instead of piling up in the broker.
        "options": {"expires": float(WORKER_HEARTBEAT_SECONDS)},
    },
    "webhooks-relay": {"task": "webhooks.relay", "schedule": float(WEBHOOK_RELAY_SECONDS)},
    "webhooks-purge": {"task": "webhooks.purge", "schedule": 3600.0},
    "drafts-sweep": {"task": "drafts.sweep_scheduled", "schedule": float(DRAFTS_SWEEP_SECONDS)},
    "articles-search-changes": {"task": "articles.forget_search_changes", "schedule": 600.0},
}
if not REDIS_URL:
    # Expiry of the database store, off the request path (Redis expires its keys itself).
    CELERY_BEAT_SCHEDULE["store-cull"] = {
        "task": "core.cull_store",
        "schedule": float(env_int("STORE_CULL_SECONDS", 60, minimum=1)),
    }
if EDGE_PURGE_URLS:
    CELERY_BEAT_SCHEDULE["edge-relay"] = {
        "task": "core.relay_edge_purges",
        "schedule": float(EDGE_RELAY_SECONDS),
    }
CELERY_BEAT_SCHEDULE_FILENAME = env_str("CELERY_BEAT_SCHEDULE_FILENAME") or str(
    BASE_DIR / ".celery-beat-schedule"
)

# "text" (one escaped line per record) or "json" (one JSON object per record, for log shippers).
LOG_FORMAT = env_choice("LOG_FORMAT", "text", ("text", "json"))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # One record, one line: control characters a client sent (a %0a in a path) are escaped.
    "formatters": {
        "line": {
            "()": "core.logs.OneLineFormatter",
            "format": "%(asctime)s %(levelname)s %(name)s %(message)s",
        },
        "json": {"()": "core.logs.JsonFormatter"},
    },
    "filters": {
        "soap_faults": {"()": "core.logs.FaultsLoggedBySurface"},
        # The request id (and trace) of the request a record was logged in.
        "request_context": {"()": "core.logs.RequestContextFilter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json" if LOG_FORMAT == "json" else "line",
            "filters": ["request_context"],
        }
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL") or "INFO"},
    "loggers": {
        # Requests are logged on one line each by our own middleware; Django's own request
        # logger would repeat the 4xx ones.
        "django.request": {"level": "ERROR", "filters": ["soap_faults"]},
        "django.server": {"level": "WARNING"},
    },
}
