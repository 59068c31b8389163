"""Settings shared by every environment, driven by environment variables.

The overlays (dev, test, production) change only what differs between them.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = BASE_DIR / "var"


def env_bool(name, default=False):
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name, default=""):
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG")
SECRET_KEY = os.environ.get("SECRET_KEY", "")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS")


def database_from_env(default_sqlite_path):
    """The `default` database from DATABASE_URL, or an embedded SQLite file."""
    url = os.environ.get("DATABASE_URL")
    if not url:
        if str(default_sqlite_path) != ":memory:":
            Path(default_sqlite_path).parent.mkdir(parents=True, exist_ok=True)
        url = f"sqlite:///{default_sqlite_path}"
    config = dj_database_url.parse(url, conn_max_age=600, conn_health_checks=True)
    if config["ENGINE"] == "django.db.backends.postgresql":
        # Set when facet counts were joined in SQL, which they no longer are (they come from
        # the facet index in memory); searches sort and keep their matches in it, but
        # whether they still need more than PostgreSQL's 4 MB has not been measured since.
        work_mem = os.environ.get("DATABASE_WORK_MEM", "64MB")
        config.setdefault("OPTIONS", {})["options"] = f"-c work_mem={work_mem}"
    elif config["ENGINE"] == "django.db.backends.sqlite3":
        # Persistent connections buy nothing for a local file; WAL lets the
        # dev server read while an import writes. A transaction takes the write lock when it
        # begins (IMMEDIATE): one that read first and wrote after another's commit would
        # otherwise fail at once with "database is locked" (an editor's save while an open
        # case page sends its heartbeat), where waiting its turn succeeds.
        config["CONN_MAX_AGE"] = 0
        options = config.setdefault("OPTIONS", {})
        options["init_command"] = "PRAGMA journal_mode=WAL;"
        options["transaction_mode"] = "IMMEDIATE"
    else:
        raise ImproperlyConfigured(f"DATABASE_URL names an unsupported engine: {config['ENGINE']}")
    return config


DATABASES = {"default": database_from_env(VAR_DIR / "db.sqlite3")}
# Anonymous public reads may go to a read replica (cases/routers.py).
if os.environ.get("REPLICA_DATABASE_URL"):
    DATABASES["replica"] = dj_database_url.parse(
        os.environ["REPLICA_DATABASE_URL"], conn_max_age=600, conn_health_checks=True
    )
READ_REPLICA_ENABLED = "replica" in DATABASES
DATABASE_ROUTERS = ["cases.routers.ReplicaRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

INSTALLED_APPS = [
    # modeltranslation patches the admin, so it comes before it.
    "modeltranslation",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.sitemaps",
    "django_filters",
    "axes",
    "django_tasks_db",
    "cases",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Outermost, with SecurityMiddleware: their headers reach even the error responses of
    # the middleware below (a forged Host header fails in CommonMiddleware).
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Before anything that reads the database: a client over its limit costs nothing more.
    "cases.api.middleware.ApiMiddleware",
    "incidentlib.middleware.StatementTimeoutMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "cases.routers.ReadReplicaMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "incidentlib.middleware.DatabaseUnavailableMiddleware",
    # Last, as axes asks: it turns a refused login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

# How long one database statement may run (PostgreSQL), in milliseconds: a public request's
# is cut past PUBLIC_STATEMENT_TIMEOUT_MS and answered 503 with Retry-After (the lesson of
# IL-1002); the admin and the importer have limits of their own (0: none).
PUBLIC_STATEMENT_TIMEOUT_MS = int(os.environ.get("PUBLIC_STATEMENT_TIMEOUT_MS", "2000"))
ADMIN_STATEMENT_TIMEOUT_MS = int(os.environ.get("ADMIN_STATEMENT_TIMEOUT_MS", "30000"))
IMPORT_STATEMENT_TIMEOUT_MS = int(os.environ.get("IMPORT_STATEMENT_TIMEOUT_MS", "600000"))
# How much lower an import's priority is than the site's (cases.exchange.priority); 0: not.
# The lowest, 19: under make load readers kept a p99 of 2.4x reads only, against 3.8x at 10
# (bench/RESULTS.md). It holds readers nowhere: its commit only renames what it staged.
IMPORT_NICENESS = int(os.environ.get("IMPORT_NICENESS", "19"))
# How much lower the editors' app server runs (incidentlib.wsgi_editors); 0: not. 10: its
# session then weighs about a tenth of a readers' server's. At 19 (a 70th), when readers took
# every core, a correction took 3.3 s and two editors kept 0.6 a second; at 10, 0.5 s, one a
# second kept, and readers lost no more (bench/RESULTS.md, "Editors' sessions at 10").
EDITORS_NICENESS = int(os.environ.get("EDITORS_NICENESS", "10"))
# How much lower the background worker runs (`manage.py run_worker`); 0: not. Its emails,
# scheduled steps and open data wait for no reader, as the editors' server does.
WORKER_NICENESS = int(os.environ.get("WORKER_NICENESS", "10"))

ROOT_URLCONF = "incidentlib.urls"
WSGI_APPLICATION = "incidentlib.wsgi.application"

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
                "django.template.context_processors.i18n",
                "django.template.context_processors.csp",
            ],
        },
    },
]

# Axes comes first: it refuses a locked-out login before any password is checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("ko", _("Korean"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# Every translated field falls back to English when its Korean text is empty.
MODELTRANSLATION_DEFAULT_LANGUAGE = "en"
MODELTRANSLATION_LANGUAGES = tuple(code for code, _name in LANGUAGES)
MODELTRANSLATION_FALLBACK_LANGUAGES = {"default": ("en",)}

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # The bulk data file (cases.open_data); every app server must reach the same one.
    "open_data": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": os.environ.get("OPEN_DATA_DIR", str(VAR_DIR / "open-data"))},
    },
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# The largest exchange file the admin's import takes (cases/admin/exchange_views.py), in
# bytes: the admin keeps it, between the dry run and the confirmation, in the database. A
# larger library goes through `manage.py import_cases`, which reads a case at a time.
CASE_IMPORT_MAX_UPLOAD_SIZE = 20 * 1024 * 1024

# How many problem reports one address may send in an hour (cases/public/reports.py); one
# more is answered 429 with Retry-After.
PROBLEM_REPORTS_PER_HOUR = int(os.environ.get("PROBLEM_REPORTS_PER_HOUR", "10"))

# Anonymous public pages are cached (cases/caching.py): in this process's memory, or in
# Redis when REDIS_URL is set, so that several app servers share one cache.
if os.environ.get("REDIS_URL"):
    CACHES = {
        "default": {
            "BACKEND": "incidentlib.cache.RedisCache",  # (one client a server kept)
            "LOCATION": os.environ["REDIS_URL"],
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "OPTIONS": {"MAX_ENTRIES": 5000},
        }
    }
# Processes that share a cache share the facet index built after a change of everything
# (cases/catalogue/sharing.py).
FACET_INDEX_SHARED = os.environ.get(
    "FACET_INDEX_SHARED", "1" if os.environ.get("REDIS_URL") else "0"
) in ("1", "true", "yes")
# A change of everything (a large import) renders the most-read pages before it commits,
# this many at most and for this long (cases/rendering_ahead.py); only where the app servers
# share the cache it puts them in.
RENDER_AHEAD_PAGES = int(
    os.environ.get("RENDER_AHEAD_PAGES", "500" if os.environ.get("REDIS_URL") else "0")
)
RENDER_AHEAD_SECONDS = float(os.environ.get("RENDER_AHEAD_SECONDS", "60"))
# A process freezes its heap after this many requests, and again every so many after, so
# that full garbage collections walk only what came since (incidentlib/heap.py); 0: never.
HEAP_FREEZE_AFTER = int(os.environ.get("HEAP_FREEZE_AFTER", "200"))
HEAP_FREEZE_EVERY = int(os.environ.get("HEAP_FREEZE_EVERY", "20000"))

# --- Security headers (every environment; HTTPS-only ones are in production.py) ---------

# Scripts and styles only from our own files: no inline code, no other origins. The admin's
# templates give their <script> tags the request's nonce (the context processor supplies
# it); page-cached public pages must not use one, since the cache would replay a stale one.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    # Cytoscape (the graph page) injects one fixed <style> rule unless the page already has
    # it; its hash allows exactly that rule. A new vendored version may change it.
    "style-src": [CSP.SELF, "'sha256-pgvDUBa4IjFA2yuSJ2cqcyxmNYJMborsd0ORcRv9vw8='"],
    "img-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
# No script of ours reads the CSRF token from the cookie; forms carry it.
CSRF_COOKIE_HTTPONLY = True
CSRF_FAILURE_VIEW = "incidentlib.errors.csrf_failure"

# --- Login throttling (django-axes) -----------------------------------------------------

# Five failed logins for one username from one address lock that username from that address
# for a quarter of an hour; any attempt while locked out starts the quarter hour again. Never
# a username alone: anyone could then lock an editor out from anywhere, for good, by failing
# five times every quarter hour. (A guesser gets five tries an address and a quarter hour
# for each account; the password validators below keep those from mattering.)
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_LOCKOUT_CALLABLE = "incidentlib.errors.login_locked_out"
AXES_CLIENT_IP_CALLABLE = "incidentlib.security.client_ip"
# Not reset on success: one good login from an address would wipe the failures that other
# accounts collected from that address, letting a guesser with an account of their own go on.
AXES_RESET_ON_SUCCESS = False
AXES_VERBOSE = False  # no banner on every manage.py command; failures are still logged
# Reverse proxies in front of the app that append to X-Forwarded-For (0: none, direct), and
# the networks they connect from: a request from anywhere else came around them, and its
# X-Forwarded-For is the client's own writing (incidentlib.security.client_ip).
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "0"))
TRUSTED_PROXY_NETWORKS = env_list(
    "TRUSTED_PROXY_NETWORKS", "10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,127.0.0.0/8,::1/128,fc00::/7"
)

# --- Readers' forms -----------------------------------------------------------------------

# How many suggested cases one address may send in an hour (mistakes included); more are
# answered 429 with Retry-After (cases/public/suggest.py, incidentlib/ratelimit.py).
SUGGESTIONS_PER_HOUR = int(os.environ.get("SUGGESTIONS_PER_HOUR", "5"))

# --- Background work and email ------------------------------------------------------------

# Tasks (cases/tasks.py: notifications, scheduled publications) wait in the database, in
# the same transaction discipline as everything else, until a `manage.py db_worker` process
# runs them: no broker to run, and a deferred task (`run_after`) survives restarts.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
# The bulk data and the change feed are rebuilt by the worker this many seconds after a
# change (the changes in between wait for the same build).
OPEN_DATA_REBUILD = True
OPEN_DATA_REBUILD_DELAY = int(os.environ.get("OPEN_DATA_REBUILD_DELAY", "60"))
# Requests to /api/ from one address in a minute (429 with Retry-After past it).
API_REQUESTS_PER_MINUTE = int(os.environ.get("API_REQUESTS_PER_MINUTE", "120"))

# The address emails link to (the admin's pages): the site as its editors reach it.
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Incident Library <noreply@localhost>")


def smtp_mailer_from_env():
    """The SMTP server that sends the editors' notifications (Django 6.1's MAILERS)."""
    options = {
        "host": os.environ.get("EMAIL_HOST", "localhost"),
        "port": int(os.environ.get("EMAIL_PORT", "25")),
        "use_tls": env_bool("EMAIL_USE_TLS"),
        "use_ssl": env_bool("EMAIL_USE_SSL"),
        # A stalled server must not hold a worker for ever: the send is retried later.
        "timeout": float(os.environ.get("EMAIL_TIMEOUT", "30")),
    }
    if os.environ.get("EMAIL_HOST_USER"):
        options["username"] = os.environ["EMAIL_HOST_USER"]
        options["password"] = os.environ.get("EMAIL_HOST_PASSWORD", "")
    return {"BACKEND": "django.core.mail.backends.smtp.EmailBackend", "OPTIONS": options}


MAILERS = {"default": smtp_mailer_from_env()}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
