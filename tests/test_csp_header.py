"""The Content Security Policy header, built once per process, is django-csp's: the site's policy
on every page, a view's own additions on its page, and a changed setting at once."""

from __future__ import annotations

import pytest
from csp.constants import NONE
from csp.constants import SELF
from csp.utils import build_policy
from django.test import Client
from django.test import override_settings


def _directives(header: str) -> set[str]:
    return {part.strip() for part in header.split(";")}


@pytest.mark.django_db
def test_every_page_carries_the_sites_policy(client: Client) -> None:
    for path in ("/", "/checks/", "/no-such-page/", "/api/"):
        response = client.get(path)
        assert _directives(response["Content-Security-Policy"]) == _directives(build_policy())
        assert "Content-Security-Policy-Report-Only" not in response


@pytest.mark.django_db
def test_a_view_with_a_policy_of_its_own_gets_it(client: Client) -> None:
    # The API docs add inline styles (csp_update in incidents/api/urls.py), and only they.
    docs = client.get("/api/docs/")["Content-Security-Policy"]
    assert "'unsafe-inline'" in docs
    assert "'unsafe-inline'" not in client.get("/checks/")["Content-Security-Policy"]


@pytest.mark.django_db
def test_a_changed_policy_is_sent_at_once(client: Client) -> None:
    client.get("/checks/")  # the policy built once
    policy = {"DIRECTIVES": {"default-src": [SELF], "img-src": [NONE]}}
    with override_settings(
        CONTENT_SECURITY_POLICY=None, CONTENT_SECURITY_POLICY_REPORT_ONLY=policy
    ):
        response = client.get("/checks/")
        assert "Content-Security-Policy" not in response
        assert "img-src 'none'" in response["Content-Security-Policy-Report-Only"]
    assert "img-src 'self' data:" in client.get("/checks/")["Content-Security-Policy"]
