"""Test settings: the real settings with DEBUG's conveniences; DATABASE_URL picks the backend."""

import os

os.environ.setdefault("SECRET_KEY", "test-only-secret-key")

from incidents.config.settings import *  # noqa: E402,F403

DEBUG = False
# The rate counts' cache as production picks it (DEBUG off), whatever DEBUG the shell exports.
CACHES = {**CACHES, RATE_CACHE_ALIAS: rate_cache(os.environ.get("API_RATE_CACHE", ""), DEBUG)}  # noqa: F405
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
ALLOWED_HOSTS = ["*"]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# No request rates unless a test sets them (tests/test_api_throttling.py): the suite and the
# benchmarks send many requests from one address.
REST_FRAMEWORK = {**REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"anon": "off", "user": "off"}}  # noqa: F405

# Read the library's version on every request: a listening connection per test process would
# hold the test database open when it is dropped. tests/test_version_listener.py turns it on
# (and stops the listener after); the benchmarks turn it on as production has it.
LIBRARY_VERSION_LISTEN = False
