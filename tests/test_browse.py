"""Browsing by facet: trees with counts at every level, and a page per facet value."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from incidents.models import Case
from tests.bulk import add_cases
from tests.queries import assert_max_queries

pytestmark = pytest.mark.django_db


def _get(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def _squash(html: str) -> str:
    return re.sub(r"\s+", " ", html)


def test_index_lists_the_five_facets(client: Client, small_library: None) -> None:
    page = _get(client, "/browse/")
    for url in ("/root-causes/", "/components/", "/symptoms/", "/contributing-factors/"):
        assert f'href="{url}"' in page
    assert 'href="/organisations/"' in page
    # Three cases are tagged with a symptom; ecc-error, job-crash, nccl-timeout are its values.
    assert "3 values · 3 cases tagged" in _squash(page)


def test_tree_counts_distinct_cases_of_each_subtree(client: Client, small_library: None) -> None:
    page = _squash(_get(client, "/symptoms/"))
    # Job crash: flaky-network directly, hbm-failures through its child ECC error.
    assert re.search(
        r'href="/symptoms/job-crash/">Job crash</a> <a class="count" href="/\?symptom=job-crash"[^>]*>2 cases</a>',
        page,
    )
    # The child is nested inside its parent's item, with its own count.
    job_crash = page.index('href="/symptoms/job-crash/"')
    ecc = page.index('href="/symptoms/ecc-error/"')
    assert job_crash < ecc < page.index("</li>", ecc) < page.index("</ul> </li>", job_crash)
    assert re.search(r'ECC error</a> <a class="count"[^>]*>1 case</a>', page)
    assert re.search(r'NCCL timeout</a> <a class="count"[^>]*>2 cases</a>', page)


def test_value_without_cases_is_shown_as_empty(client: Client, small_library: None) -> None:
    Case.objects.filter(slug="leaky-loader").delete()
    page = _squash(_get(client, "/contributing-factors/"))
    assert '<li class="is-empty"><a href="/contributing-factors/no-memory-limits/">' in page
    assert "no cases" in page


def test_value_page_has_description_aliases_children_cases_and_co_occurring_values(
    client: Client, small_library: None
) -> None:
    page = _squash(_get(client, "/components/gpu-hardware/"))
    assert "The accelerators themselves." in page
    assert "<dt>Also called</dt><dd>accelerator, GPU</dd>" in page
    assert 'href="/components/gpu-memory/">GPU memory <span class="count">1</span>' in page
    # Its cases include those tagged with a child value only.
    assert 'href="/cases/hbm-failures/"' in page
    assert 'href="/cases/leaky-loader/"' not in page
    # Each case says who reported it.
    assert (
        '<a href="/cases/hbm-failures/">HBM failures interrupt a large run</a> <span class="meta">2024 · Meta</span>'
        in page
    )
    assert 'href="/?component=gpu-hardware"' in page
    # Values of other facets its cases carry, with the library filtered by both.
    assert 'href="/symptoms/ecc-error/">ECC error</a>' in page
    assert 'href="/?component=gpu-hardware&amp;symptom=ecc-error"' in page
    assert 'href="/root-causes/hardware-fault/">Hardware fault</a>' in page
    assert 'href="/organisations/meta/">Meta</a>' in page


def test_co_occurring_values_are_ordered_by_number_of_cases(
    client: Client, small_library: None
) -> None:
    page = _squash(_get(client, "/root-causes/hardware-fault/"))
    section = page[page.index('id="co-heading"') :]
    symptoms = section[section.index("<h3>Symptoms</h3>") :]
    # flaky-network (nccl-timeout, job-crash) and hbm-failures (ecc-error) are hardware faults:
    # each symptom once, so alphabetical; Meta twice.
    assert (
        symptoms.index("ECC error") < symptoms.index("Job crash") < symptoms.index("NCCL timeout")
    )
    assert re.search(r'Meta</a> <a class="count"[^>]*>2 cases</a>', section)


def test_child_value_names_its_parent(client: Client, small_library: None) -> None:
    page = _squash(_get(client, "/components/gpu-memory/"))
    assert '<dt>Part of</dt><dd><a href="/components/gpu-hardware/">GPU hardware</a>' in page
    assert '<a href="/components/">Components</a> › <a href="/components/gpu-hardware/">' in page


def test_unknown_value_or_facet_is_a_404(client: Client, small_library: None) -> None:
    response = client.get("/components/warp-drive/")
    assert response.status_code == 404
    assert (
        "There is no value &#x27;warp-drive&#x27; among the components."
        in response.content.decode()
    )
    assert client.get("/symptoms/gpu-memory/").status_code == 404  # a value of another facet
    assert client.get("/widgets/").status_code == 404


@pytest.mark.parametrize(
    ("url", "pin"),
    [
        ("/browse/", 2),  # vocabulary, cases tagged per facet
        ("/symptoms/", 2),  # vocabulary, counts
        # vocabulary, child counts, aliases, count, the page of cases, their values, co-occurring
        ("/components/gpu-hardware/", 7),
        ("/organisations/meta/", 6),  # no children to count
    ],
)
def test_query_count_is_pinned_whatever_the_number_of_cases(
    client: Client, small_library: None, url: str, pin: int
) -> None:
    add_cases(60)  # more than a page of 25 under every value: one query per case breaks the pin
    with assert_max_queries(pin):
        response = client.get(url)
    assert response.status_code == 200


def test_a_facet_that_is_not_a_tree_is_not_described_as_one(
    client: Client, small_library: None
) -> None:
    assert "or with a value under it" in _squash(_get(client, "/components/"))
    page = _squash(_get(client, "/organisations/"))
    assert "Every value with the number of cases tagged with it." in page
    assert "or with a value under it" not in page


def test_a_value_page_says_when_it_has_no_such_page(client: Client, small_library: None) -> None:
    for page, said in (("abc", "“abc” is not a page number"), ("7", "There is no page 7")):
        html = _squash(_get(client, f"/symptoms/nccl-timeout/?page={page}"))
        assert f"{said} (parameter page)" in html
        assert "leaky-loader" in html or "A leaking data loader" in html  # the one page, shown
