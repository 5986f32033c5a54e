"""The library side of kubegap: the /checks/ page, /api/checks/, and the case page's check box."""

from __future__ import annotations

import pytest
from django.test import Client

from incidents.api.pagination import MAX_PAGE_SIZE
from incidents.audit.checks import ALL_CHECKS

pytestmark = pytest.mark.django_db


def test_checks_page_lists_every_check_with_links_to_its_cases(
    client: Client, seeded_library: None
) -> None:
    page = client.get("/checks/").content.decode()
    for check in ALL_CHECKS:
        assert f'id="{check.id}"' in page
        for slug in check.cases:
            assert f'href="/cases/{slug}/"' in page


def test_api_lists_checks_with_cited_case_urls(client: Client, seeded_library: None) -> None:
    first = client.get("/api/checks/").json()
    assert first["count"] == len(ALL_CHECKS) and len(first["results"]) == 20  # paged like the rest
    body = client.get(f"/api/checks/?page_size={MAX_PAGE_SIZE}").json()["results"]
    assert [c["id"] for c in body] == [c.id for c in ALL_CHECKS]
    assert len(body) >= 20
    for check in body:
        assert check["cases"], check["id"]
        assert all(c["url"] == f"http://testserver/cases/{c['slug']}/" for c in check["cases"])


def test_api_check_detail_and_unknown_id(client: Client, seeded_library: None) -> None:
    first = ALL_CHECKS[0]
    body = client.get(f"/api/checks/{first.id.lower()}/").json()
    assert body["id"] == first.id
    response = client.get("/api/checks/NOPE-999/")
    assert response.status_code == 404
    assert "NOPE-999" in response.json()["detail"]


def test_case_page_lists_the_checks_that_cite_it(client: Client, seeded_library: None) -> None:
    slug = "acme-seren-kalos-pretraining-failures"
    citing = [c for c in ALL_CHECKS if slug in c.cases]
    assert citing, "kubegap should cite the seed case"
    page = client.get(f"/cases/{slug}/").content.decode()
    assert "Check your cluster for this" in page
    for check in citing:
        assert f"#{check.id}" in page
    assert (
        "kubegap audit --checks "
        + ",".join(
            c.id
            for c in sorted(
                citing,
                key=lambda c: (
                    ["critical", "high", "medium", "low", "info"].index(c.severity),
                    c.id,
                ),
            )
        )
        in page
    )
