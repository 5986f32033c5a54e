"""The facet index (bitmaps per facet value) gives the counts SQL gives, and follows every write.

The counts of the library page, the API and the suggestions come from the index; here they are
compared with the grouped SQL queries they replace over many filter combinations (OR within a
facet, AND across, NOT, parents, text search), and the index is shown to notice a write made by
another process (the version stamp moved), not only one made by its own.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from html import unescape
from pathlib import Path

import pytest
from django.db import connection
from django.http import QueryDict
from django.test import Client

from incidents.facets import FACETS
from incidents.models import Case
from incidents.models import CaseFacetLink
from incidents.models import FacetValue
from incidents.selectors import facet_index
from incidents.selectors.cases import case_list
from incidents.selectors.cases import case_queryset
from incidents.selectors.facet_counts import facet_groups
from incidents.selectors.facet_counts import sql_counter
from incidents.selectors.facet_counts import suggestions_for
from incidents.services.library_version import bump
from tests.bulk import add_cases

REPO_ROOT = Path(__file__).resolve().parent.parent
WORDS = ["gpu", "nccl", "memory", "checkpoint", "network"]


def _combinations(count: int) -> list[str]:
    """Query strings mixing includes (one or two values, parents too), exclusions and words."""
    rng = random.Random(15)
    by_facet = {
        spec: list(FacetValue.objects.filter(facet=spec.facet).values_list("slug", flat=True))
        for spec in FACETS
    }
    queries = ["", "q=gpu", "not_organisation=meta", "q=nosuchwordanywhere"]
    while len(queries) < count:
        pairs = []
        for spec in rng.sample(FACETS, rng.randint(1, 3)):
            for slug in rng.sample(by_facet[spec], rng.randint(1, 2)):
                name = spec.exclude_param if rng.random() < 0.3 else spec.param
                pairs.append(f"{name}={slug}")
        if rng.random() < 0.3:
            pairs.append(f"q={rng.choice(WORDS)}")
        queries.append("&".join(pairs))
    return queries


def _by_slug(groups: list) -> dict[tuple[str, str], int]:  # type: ignore[type-arg]
    return {(g.spec.facet, item.value.slug): item.count for g in groups for item in g.values}


@pytest.mark.django_db(transaction=True)
def test_index_counts_equal_the_sql_counts_for_many_filter_combinations(
    seeded_library: None,
) -> None:
    # Committed, as a server reads it: the index is built once and kept (inside a transaction
    # every call would rebuild it, 320 times here, to compare the same counts).
    add_cases(120)  # cases tagged with parents and leaves of every facet
    bump()
    compared = nonzero = 0
    for query in _combinations(80):
        filterset = case_queryset(params=QueryDict(query)).filterset
        from_index = _by_slug(facet_groups(filterset))
        from_sql = _by_slug(facet_groups(filterset, counter=sql_counter(filterset)))
        assert from_index == from_sql, query
        result = case_list(params=QueryDict(query))
        assert result.total == result.query.queryset.count(), query
        for number in (1, 3):  # the pages the index picks are the pages SQL sorts
            page = result if number == 1 else case_list(params=QueryDict(query), page=number)
            if page.page.number == number:
                start = (number - 1) * 20
                expected = list(result.query.queryset[start : start + 20])
                assert list(page.page.object_list) == expected, (query, number)
        compared += 1
        nonzero += any(from_index.values())
    assert compared == 80 and nonzero > 40  # most combinations select some cases


@pytest.mark.django_db
def test_suggestion_counts_equal_the_sql_counts(seeded_library: None) -> None:
    sentence = "our nccl timeouts came from a leaking data loader on gpu nodes"
    for query in ["", "organisation=meta", "not_component=network", f"q={sentence}"]:
        filterset = case_queryset(params=QueryDict(query)).filterset
        from_index = suggestions_for(filterset, sentence)
        from_sql = suggestions_for(filterset, sentence, counter=sql_counter(filterset))
        assert from_index and from_index == from_sql, query


@pytest.fixture
def committed_library(transactional_db: None, small_library: None) -> object:
    """The small library committed (not inside the test's transaction), as a server sees it."""
    facet_index.forget()
    yield
    facet_index.forget()


def _meta_count() -> int:
    filterset = case_queryset(params=QueryDict("")).filterset
    counts = _by_slug(facet_groups(filterset))
    return counts[("organisation", "meta")]


def _tag_with_meta(case: Case) -> None:
    meta = FacetValue.objects.get(facet="organisation", slug="meta")
    CaseFacetLink.objects.create(case=case, value=meta, direct=True)


def test_a_write_in_this_process_rebuilds_the_index(committed_library: None) -> None:
    before = _meta_count()
    index = facet_index.current_index()
    assert facet_index.current_index() is index  # kept while the version stays
    untagged = Case.objects.exclude(links__value__slug="meta").first()
    assert untagged is not None
    _tag_with_meta(untagged)  # the save bumps the version
    assert facet_index.current_index() is not index
    assert _meta_count() == before + 1


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="another process needs a database it can open (PostgreSQL); SQLite's is in memory",
)
def test_a_write_in_another_process_invalidates_this_process_index(
    committed_library: None,
) -> None:
    before = _meta_count()
    index = facet_index.current_index()
    untagged = Case.objects.exclude(links__value__slug="meta").order_by("id").first()
    assert untagged is not None
    settings = connection.settings_dict
    url = f"postgres://{settings['USER']}@{settings['HOST']}:{settings['PORT']}/{settings['NAME']}"
    script = (
        "import django; django.setup()\n"
        "from incidents.models import Case, CaseFacetLink, FacetValue\n"
        "meta = FacetValue.objects.get(facet='organisation', slug='meta')\n"
        f"CaseFacetLink.objects.create(case_id={untagged.id}, value=meta, direct=True)\n"
    )
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "tests.settings"}
    subprocess.run([sys.executable, "-c", script], check=True, env=env, cwd=REPO_ROOT)
    assert facet_index.current_index() is not index
    assert _meta_count() == before + 1


def test_a_pages_cases_read_in_sql_are_the_orms(small_library: None) -> None:
    """page_rows reads a page's cases with SQL written once: the same instances, field for field,
    and the same own facet values, as the ORM's queryset of them."""
    from django.db import connection

    from incidents.models import Case
    from incidents.models import CaseFacetLink
    from incidents.selectors import page_rows

    if connection.vendor != "postgresql":
        pytest.skip("the SQL is PostgreSQL's")
    ids = list(Case.objects.order_by("-id").values_list("id", flat=True)[:5]) + [10**9]
    found = page_rows.cases_by_id("default", ids)
    assert sorted(found) == sorted(ids[:-1])
    fields = [f.attname for f in Case._meta.concrete_fields]
    for case in Case.objects.filter(id__in=ids):
        read = found[case.id]
        assert [getattr(read, f) for f in fields] == [getattr(case, f) for f in fields]
        assert read._state.db == "default" and not read._state.adding
        own = CaseFacetLink.objects.filter(case=case, direct=True).values_list(
            "value_id", flat=True
        )
        assert sorted(read.direct_value_ids or []) == sorted(own)  # type: ignore[attr-defined]


# Filters under which a facet has chosen or excluded values (the review's, and a NOT), and a
# search whose suggestions join a facet that has a chosen value.
CLICK_BASES = [
    "symptom=nccl-timeout",
    "component=gpu&not_root_cause=gpu-hardware-fault",
    "not_symptom=nccl-timeout&not_symptom=out-of-memory&kind=incident",
    "q=our nccl timeouts came from a leaking data loader&symptom=out-of-memory",
]


def _followed(href: str) -> int:
    """The cases a link of the page gives, counted in SQL."""
    return case_queryset(params=QueryDict(unescape(href).lstrip("?"))).queryset.count()


@pytest.mark.django_db(transaction=True)
def test_every_count_on_the_page_is_what_following_its_link_gives(
    client: Client, seeded_library: None
) -> None:
    # OR within a facet: under symptom=nccl-timeout (7 cases), "Slow checkpoint" links to
    # nccl-timeout OR slow-checkpoint, and its count must be that link's 9, not slow-checkpoint's
    # own 2. An applied value counts its cases among the results (its link takes it out).
    followed = 0
    for base in CLICK_BASES:
        html = client.get(f"/?{QueryDict(base).urlencode()}").content.decode()
        links = re.findall(
            r'<a class="facet-link" id="[^"]+" href="([^"]+)"[^>]*?( aria-current="true")?>'
            r'.*?<span class="count">(\d+)</span>',
            html,
            re.S,
        )
        links += [
            (href, "", count)
            for href, count in re.findall(
                r'class="chip chip-suggested" id="[^"]+" href="([^"]+)".*?'
                r'<span class="count">(\d+)</span>',
                html,
                re.S,
            )
        ]
        for href, applied, count in links:
            if not applied:
                assert _followed(href) == int(count), (base, href)
                followed += 1
    assert followed > 300
    html = client.get("/?symptom=nccl-timeout").content.decode()
    assert re.search(r'id="f-symptom-slow-checkpoint".*?<span class="count">9</span>', html, re.S)
