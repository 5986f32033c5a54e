"""Settings, read from the environment (12-factor); site/env.example documents a production set.

DATABASE_URL   default: an SQLite file in the project (zero setup); postgres://... for PostgreSQL
SECRET_KEY     required unless DEBUG is on
DEBUG          "1"/"true" to enable; off by default
ALLOWED_HOSTS  comma-separated; defaults to localhost names when DEBUG is on
HTTPS behind a proxy: SECURE_SSL_REDIRECT, SECURE_PROXY_SSL_HEADER, SECURE_HSTS_SECONDS (and
_INCLUDE_SUBDOMAINS, _PRELOAD), SESSION_COOKIE_SECURE, CSRF_COOKIE_SECURE, CSRF_TRUSTED_ORIGINS.
API_RATE_ANON  requests per client address to the API, e.g. "120/minute" (default); "off"
API_RATE_USER  requests per token user to the API, e.g. "1200/minute" (default); "off"
API_RATE_CACHE where the API's request counts live, shared by every worker: "db" (default with
               DEBUG off), "redis://host:6379/0", "locmem" (default with DEBUG on)
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
import django_stubs_ext
from csp.constants import NONE
from csp.constants import SELF
from django.core.exceptions import ImproperlyConfigured

from incidents.config.caches import RATE_CACHE_ALIAS
from incidents.config.caches import rate_cache

# Lets admin and querysets be subscripted at run time, as django-stubs types them.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def env_bool(name: str, default: bool = False) -> bool:
    """Read a boolean environment variable ("1", "true", "yes", "on" are true)."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    """Read a whole-number environment variable; a non-number is a configuration error."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a whole number") from None


def env_list(name: str, default: list[str]) -> list[str]:
    """Read a comma-separated environment variable."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


DEBUG = env_bool("DEBUG", default=False)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. Set SECRET_KEY in the environment, or DEBUG=1 for local use."
        )
    SECRET_KEY = "insecure-local-development-key-do-not-use-in-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

# HTTPS. All off by default so that `make serve` answers on plain http://127.0.0.1; a deployment
# behind a TLS proxy turns them on (site/env.example), and `check --deploy` is then silent.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT")
# "HTTP_X_FORWARDED_PROTO,https": the header the proxy sets and the value that means https.
_proxy_header = env_list("SECURE_PROXY_SSL_HEADER", [])
if _proxy_header and len(_proxy_header) != 2:
    raise ImproperlyConfigured(
        "SECURE_PROXY_SSL_HEADER must be 'HEADER,value', e.g. HTTP_X_FORWARDED_PROTO,https"
    )
SECURE_PROXY_SSL_HEADER = (_proxy_header[0], _proxy_header[1]) if _proxy_header else None
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS")
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD")
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE")
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE")
# /healthz is probed over plain HTTP by the kubelet; it must not be redirected to https.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]

# Content Security Policy (django-csp): scripts and styles from this site only, no inline script or
# style, nothing framed. CSP_REPORT_ONLY=1 reports violations without enforcing them.
_CSP = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
if env_bool("CSP_REPORT_ONLY"):
    CONTENT_SECURITY_POLICY_REPORT_ONLY = _CSP
else:
    CONTENT_SECURITY_POLICY = _CSP

# The error page under DEBUG masks secrets in settings, request headers and local variables.
DEFAULT_EXCEPTION_REPORTER_FILTER = "incidents.config.errors.SecretMaskingFilter"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "django_filters",
    "django_htmx",
    "template_partials",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "csp",
    "incidents",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "incidents.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Before anything reads the query: more than 1,000 parameters is a 400 here, DEBUG or not.
    "incidents.middleware.QueryLimitMiddleware",
    # Before CommonMiddleware's APPEND_SLASH, whose 301 loses a POST's body (a 500 under DEBUG).
    "incidents.middleware.ApiSlashMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "incidents.middleware.MethodNotAllowedMiddleware",
    "incidents.middleware.DatabaseUnavailableMiddleware",
    # The API's RateLimit-* headers, from the count its throttles made.
    "incidents.api.throttles.RateLimitHeadersMiddleware",
    # Last, as django-axes asks: it answers a locked-out login attempt.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "incidents.config.urls"
WSGI_APPLICATION = "incidents.config.wsgi.application"

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
    }
]

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=env_int("DB_CONN_MAX_AGE", 60),
        # A connection kept open is checked before reuse, so a restarted database is picked up.
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # An unreachable database fails a request in seconds (a 503) rather than hanging a worker.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
        "connect_timeout", env_int("DB_CONNECT_TIMEOUT", 5)
    )
elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several workers writing one SQLite file (the shared rate counts, editors' saves): a
    # transaction takes the write lock when it begins, and waits for it, rather than failing at
    # once with "database is locked" when a read inside it turns into a write (SQLite's deferred
    # default; Django's "transaction_mode" option).
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"transaction_mode": "IMMEDIATE", "timeout": 20}
    )
# PostgreSQL: each process keeps the library's version in memory, kept fresh by LISTEN/NOTIFY
# (one listening connection per process), instead of reading it on every request
# (incidents.selectors.version_listener says what that guarantees). Off: read every time.
LIBRARY_VERSION_LISTEN = env_bool("LIBRARY_VERSION_LISTEN", default=True)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Rendered pages, fragments and API answers: per process (each is keyed by the library's version,
# so a copy per process is only memory). The API's request counts: shared by every process.
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    RATE_CACHE_ALIAS: rate_cache(os.environ.get("API_RATE_CACHE", ""), DEBUG),
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "site" / "static"]
# kubegap.pyz, the one-file kubegap the /kubegap/ page offers, is built by its finder when
# collectstatic runs (incidents/staticfinders.py), so it always matches the code served.
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "incidents.staticfinders.KubegapFinder",
]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
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

# In development the files are served from their source folders, without collectstatic.
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG

# Editors (the "Editors" group) log in at /accounts/login/; only staff reach /admin/.
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "incidents:case-list"
LOGOUT_REDIRECT_URL = "incidents:case-list"
AUTHENTICATION_BACKENDS = [
    # django-axes first: it refuses a locked-out account or address before a password is checked.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Login attempts: after AXES_FAILURE_LIMIT failures for one account, or from one address, further
# attempts are refused (429) for AXES_COOLOFF_MINUTES, the right password included.
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("AXES_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
# Behind N reverse proxies, the client address is the Nth from the right of X-Forwarded-For.
AXES_IPWARE_PROXY_COUNT = env_int("AXES_PROXY_COUNT", 0) or None
AXES_IPWARE_META_PRECEDENCE_ORDER = (
    ["HTTP_X_FORWARDED_FOR", "REMOTE_ADDR"] if AXES_IPWARE_PROXY_COUNT else ["REMOTE_ADDR"]
)

# Where the seeded library lives; `manage.py load_cases` reads it by default.
FIXTURES_DIR = BASE_DIR / "fixtures"

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Token first: a request without credentials is told how to authenticate (401 with
    # WWW-Authenticate: Token), not refused as if logging in could not help (403).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "incidents.api.pagination.PageNumberPagination",
    # DRF's two, the JSON one writing plain bodies (the case list's rows) with orjson.
    "DEFAULT_RENDERER_CLASSES": [
        "incidents.api.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_THROTTLE_CLASSES": [
        "incidents.api.throttles.AnonThrottle",
        "incidents.api.throttles.UserThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("API_RATE_ANON", "120/minute"),
        "user": os.environ.get("API_RATE_USER", "1200/minute"),
    },
    "PAGE_SIZE": 20,
    # The client address the rates count by: the connection's, or behind AXES_PROXY_COUNT proxies
    # the one they put in X-Forwarded-For (DRF's default trusts the whole header a client sends).
    "NUM_PROXIES": env_int("AXES_PROXY_COUNT", 0),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Incident Library API",
    "DESCRIPTION": "Public AI-infrastructure failure cases, filterable by the library's facets.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "incidents.api.schema.add_common_responses",
        "incidents.api.schema.add_vocabulary_enums",
    ],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Choice sets shared by several fields get one name each in the schema.
    "ENUM_NAME_OVERRIDES": {
        "CaseKindEnum": "incidents.models.CaseKind",
        "CostKindEnum": "incidents.models.CostKind",
        "BoundEnum": "incidents.models.Bound",
        "ConfirmationEnum": "incidents.models.Confirmation",
        "CountUnitEnum": "incidents.models.CountUnit",
        "CostUnitEnum": "incidents.models.CostUnit",
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
