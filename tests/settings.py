"""Test settings: the real settings with DEBUG's conveniences; DATABASE_URL picks the backend."""

import os

os.environ.setdefault("SECRET_KEY", "test-only-secret-key")

from incidents.config.settings import *  # noqa: E402,F403

DEBUG = False
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
ALLOWED_HOSTS = ["*"]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
