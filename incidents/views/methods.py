"""The methods a page answers: the library's pages are read-only.

`read_only(view)` answers GET and HEAD and gives any other method a 405 with `Allow: GET, HEAD`.
Django's CSRF check runs before a view, so without it a POST to a page is a 403 "CSRF
verification failed", which says nothing true about the page; a view that never handles a
posted form has nothing to protect, so it is exempt from the check and refuses the method itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe


def read_only(view: Callable[..., Any]) -> Callable[..., Any]:
    """The view for GET and HEAD only (405 otherwise), with no CSRF check to answer first."""
    return csrf_exempt(require_safe(view))
