"""The DEBUG error page without secrets: settings, request headers and local variables masked.

Django masks settings whose name looks secret (PASSWORD, KEY, TOKEN, ...). This filter also masks
environment-style names that hold credentials (DATABASE_URL, *_DSN, *_CREDENTIALS), a password in a
URL (`scheme://user:password@host`) or a libpq connection string (`password=...`) wherever it
appears, and every frame's local variables by the same rules, so a database error under DEBUG never
shows the database password.
"""

from __future__ import annotations

import re
from typing import Any

from django.http import HttpRequest
from django.views.debug import SafeExceptionReporterFilter

_URL_PASSWORD = re.compile(
    r"(?P<head>[a-z][a-z0-9+.-]*://[^:/@\s]*:)(?P<secret>[^@\s]+)(?=@)", re.I
)
_CONNINFO_PASSWORD = re.compile(r"(?P<head>\bpassword\s*=\s*)(?P<secret>'[^']*'|\S+)", re.I)


def mask_text(text: str, substitute: str) -> str:
    """`text` with any password in a URL or a connection string replaced."""
    text = _URL_PASSWORD.sub(lambda m: m["head"] + substitute, text)
    return _CONNINFO_PASSWORD.sub(lambda m: m["head"] + substitute, text)


class SecretMaskingFilter(SafeExceptionReporterFilter):
    """Masks what Django masks, plus credential URLs and connection strings anywhere."""

    hidden_settings = re.compile(
        "API|TOKEN|KEY|SECRET|PASS|SIGNATURE|HTTP_COOKIE|DATABASE_URL|DSN|CREDENTIAL|AUTHORIZATION",
        flags=re.I,
    )

    def cleanse_setting(self, key: Any, value: Any) -> Any:
        cleansed = super().cleanse_setting(key, value)
        if type(cleansed) is str:  # not a lazy object posing as one
            return mask_text(cleansed, self.cleansed_substitute)
        return cleansed

    def get_traceback_frame_variables(self, request: HttpRequest | None, tb_frame: Any) -> Any:
        variables = super().get_traceback_frame_variables(request, tb_frame)
        return [(name, self._cleanse_variable(name, value)) for name, value in variables]

    def _cleanse_variable(self, name: str, value: Any) -> Any:
        if type(value) in (dict, list, tuple, str):
            return self.cleanse_setting(name, value)
        if self.hidden_settings.search(name):
            return self.cleansed_substitute
        # Other objects are shown by their repr, which may embed a connection string.
        try:
            text = repr(value)
        except Exception:  # a repr that fails is shown as Django shows it
            return value
        masked = mask_text(text, self.cleansed_substitute)
        return value if masked == text else masked
