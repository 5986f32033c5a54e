"""The case page /cases/<slug>/: the whole card, sources, cost, similar cases, the check box."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.core.cache import cache
from django.test import Client

from incidents.models import BreakdownRow
from incidents.models import Case
from incidents.models import CaseFacetLink
from incidents.models import Source
from incidents.selectors import facet_index
from incidents.services import load_library
from incidents.services.library_version import bump
from tests.bulk import add_cases
from tests.conftest import SMALL_LIBRARY
from tests.queries import assert_max_queries

pytestmark = pytest.mark.django_db


def _page(client: Client, slug: str) -> str:
    response = client.get(f"/cases/{slug}/")
    assert response.status_code == 200
    return response.content.decode()


def test_card_shows_every_part_of_the_case(client: Client, small_library: None) -> None:
    page = _page(client, "leaky-loader")
    headings = ["Symptoms", "Root cause", "Component", "Symptom", "Contributing factor"]
    headings += ["Detection", "Remediation", "Action items", "Lessons", "Key figures", "Cost"]
    for heading in [*headings, "Sources"]:
        assert f">{heading}<" in page, heading
    assert "Pretraining jobs failed with NCCL timeouts" in page
    assert "Runtime logs." in page
    # The case's own wording of a shared remediation, the shared text of the others.
    assert "Restarted by hand from the last checkpoint." in page
    assert "Detect failures and restart jobs automatically." in page
    assert "Weigh failures by the GPU time they cost" in page
    assert "<strong>4,704 GPUs</strong> A100 GPUs in the two clusters" in page
    assert "<strong>12 interruptions</strong>" in page
    assert "<strong>about 5.5 hours</strong>" in page


def test_card_links_its_kind_and_setting_to_the_cases_of_each(
    client: Client, small_library: None
) -> None:
    """Kind and setting are filters of the library that no facet tree offers: the card links
    them, as it links its organisations."""
    page = _page(client, "hbm-failures")
    assert '<a href="/?kind=study">Study</a>' in page
    assert '<a href="/?setting=training">Training</a>' in page
    listed = client.get("/?kind=study").content.decode()
    assert "/cases/hbm-failures/" in listed and "/cases/leaky-loader/" not in listed


def test_card_shows_its_breakdown_tables(client: Client, small_library: None) -> None:
    page = re.sub(r"\s+", " ", _page(client, "leaky-loader"))
    assert ">Failure breakdowns<" in page
    assert "<h3>Restarts by cause (counts only)</h3>" in page
    assert "Table 2" in page and 'href="#source-1"' in page
    assert re.search(
        r'<th scope="row">Loader leak</th>.*?Training data loader</a></td> '
        r'<td class="num">9</td><td class="num">75%</td>',
        page,
    )


def test_a_count_that_disagrees_with_its_printed_share_is_pointed_out(
    client: Client, small_library: None
) -> None:
    # Like Llama 3's Table 5: a row's count and its printed share do not agree.
    BreakdownRow.objects.filter(label="Loader leak").update(count_share=60)
    page = _page(client, "leaky-loader")
    assert "9 of 12 is 75.0%, but the source prints 60%" in page
    assert "yet their printed shares by count sum to 85%, not 100%" in page


def test_facet_values_link_to_the_filtered_library(client: Client, small_library: None) -> None:
    page = _page(client, "leaky-loader")
    assert 'href="/?symptom=nccl-timeout"' in page
    assert 'href="/?component=training-data-loader"' in page
    assert 'href="/?root_cause=software-bug"' in page
    assert 'href="/?contributing_factor=no-memory-limits"' in page
    assert 'href="/?organisation=shanghai-ai-laboratory"' in page


def test_sources_offer_the_archived_copy_or_an_internet_archive_lookup(
    client: Client, small_library: None
) -> None:
    Source.objects.filter(url="https://example.org/paper").update(
        archived_url="https://web.archive.org/web/2024/https://example.org/paper"
    )
    page = _page(client, "leaky-loader")
    assert 'href="https://web.archive.org/web/2024/https://example.org/paper">archived copy' in page
    assert "An archived copy is recorded for every source." in page
    assert "no archived copy recorded" not in page

    page = _page(client, "flaky-network")
    assert 'href="https://web.archive.org/web/*/https://example.org/net"' in page
    assert "No archived copy is recorded for this source: linked as published" in page
    assert (
        '<span class="meta">no archived copy recorded</span> · '
        '<a href="https://web.archive.org/web/*/https://example.org/net" rel="nofollow">'
        "search the Internet Archive</a>"
    ) in page


def test_the_card_says_which_sources_have_no_archived_copy(
    client: Client, small_library: None
) -> None:
    # Most of the library's sources have none (README): the card must not suggest otherwise.
    case = Case.objects.get(slug="leaky-loader")
    Source.objects.filter(case=case).update(
        archived_url="https://web.archive.org/web/2024/https://example.org/paper"
    )
    Source.objects.create(case=case, url="https://example.org/blog", kind="secondary")
    page = _page(client, "leaky-loader")
    assert "An archived copy is recorded for 1 of these 2 sources;" in page
    second = page[page.index('id="source-2"') :]
    assert second.index("no archived copy recorded") < second.index("</li>")


def test_figures_cite_their_source_by_number(client: Client, small_library: None) -> None:
    page = _page(client, "leaky-loader")
    assert 'id="source-1"' in page
    assert re.search(r'A100 GPUs in the two clusters <a href="#source-1"', page)


def test_case_without_cost_says_so(client: Client, small_library: None) -> None:
    page = _page(client, "hbm-failures")
    assert "The sources give no cost" in page


def _similar_section(page: str) -> str:
    start = page.index('id="similar-heading"')
    return page[start : page.index("</section>", start)]


def test_similar_cases_share_the_most_values_and_say_which(
    client: Client, small_library: None
) -> None:
    # flaky-network shares hardware-fault with hbm-failures and nccl-timeout with leaky-loader;
    # a tie goes to the newer case.
    section = _similar_section(_page(client, "flaky-network"))
    assert section.index("HBM failures interrupt") < section.index("A leaking data loader")
    assert "shares 1 value:" in section
    assert "Root cause <em>Hardware fault</em>" in section
    assert "Symptom <em>NCCL timeout</em>" in section


def test_same_organisation_alone_does_not_make_cases_similar(
    client: Client, small_library: None
) -> None:
    # hbm-failures and leaky-loader share nothing; hbm and flaky-network share Meta and a cause.
    section = _similar_section(_page(client, "hbm-failures"))
    assert "Flapping links slow a job" in section
    assert "A leaking data loader" not in section
    assert "Meta" not in section


def test_check_box_is_kept(client: Client, small_library: None) -> None:
    page = _page(client, "leaky-loader")
    assert "Check your cluster for this" in page
    assert "kubegap audit" in page


def test_check_box_names_the_checks_citing_a_seeded_case(client: Client) -> None:
    from incidents.selectors.checks import checks_citing

    Case.objects.create(
        slug="acme-seren-kalos-pretraining-failures", title="Acme", summary="Seed page case."
    )
    checks = checks_citing("acme-seren-kalos-pretraining-failures")
    page = _page(client, "acme-seren-kalos-pretraining-failures")
    assert checks  # kubegap cites the seed page's case
    assert "kubegap audit --checks " + ",".join(c.id for c in checks) in page
    for check in checks:
        assert f'href="/checks/#{check.id}"' in page


def test_unknown_slug_is_a_404_page(client: Client, small_library: None) -> None:
    response = client.get("/cases/no-such-case/")
    assert response.status_code == 404
    page = response.content.decode()
    assert "No case with slug &#x27;no-such-case&#x27;" in page
    assert 'href="/browse/"' in page  # a way on, inside the site's own layout


@pytest.mark.parametrize("slug", ["leaky-loader", "bulk-3"])
def test_query_count_is_pinned_whatever_the_number_of_cases(
    client: Client, small_library: None, slug: str
) -> None:
    add_cases(50)  # each shares values with many others
    # The first request of a process (inside a transaction every request is one): the version,
    # the facet index's build (vocabulary, the cases in order, each value's cases) and its
    # implied links; the case, its 6 prefetched relations with its breakdowns' rows and values,
    # its shared items (3 kinds, one query); the similar cases shown. Its own values, the
    # ranking of the similar cases and its broad areas come from the index.
    with assert_max_queries(14):
        assert client.get(f"/cases/{slug}/").status_code == 200


@pytest.fixture
def committed_library(transactional_db: None) -> Iterator[None]:
    """The small library and 50 more cases, committed as a server's writes are (the facet
    index is then kept between requests)."""
    load_library([SMALL_LIBRARY])
    add_cases(50)
    bump()
    try:
        yield
    finally:
        facet_index.forget()


def test_a_card_rendered_again_reads_the_case_and_the_similar_cases_only(
    client: Client, committed_library: None
) -> None:
    assert client.get("/cases/leaky-loader/").status_code == 200  # builds the index
    cache.clear()  # as after a write elsewhere, or for a logged-in reader: the card rendered
    # the version, the case, its 6 relations (breakdown rows and values included), its shared
    # items (one query) and the similar cases shown: 10, whatever the number of cases
    with assert_max_queries(10):
        assert client.get("/cases/leaky-loader/").status_code == 200


def test_similar_cases_follow_a_write(client: Client, committed_library: None) -> None:
    before = _similar_section(_page(client, "flaky-network"))
    assert "A twin of the flaky network" not in before
    twin = Case.objects.create(
        slug="twin", title="A twin of the flaky network", summary="Shares every value."
    )
    for link in CaseFacetLink.objects.filter(case__slug="flaky-network", direct=True):
        CaseFacetLink.objects.create(case=twin, value=link.value)
    section = _similar_section(_page(client, "flaky-network"))
    assert re.findall(r'<a href="/cases/([a-z0-9-]+)/">', section)[0] == "twin"


def test_similar_cases_tie_goes_to_the_newer_by_period_or_publication(
    client: Client, small_library: None
) -> None:
    import datetime as dt

    from incidents.models import FacetValue

    newer = Case.objects.create(
        slug="published-only",
        title="A study without a stated period",
        summary="Published in 2025.",
        published=dt.date(2025, 1, 1),
    )
    CaseFacetLink.objects.create(
        case=newer, value=FacetValue.objects.get(facet="symptom", slug="nccl-timeout")
    )
    section = _similar_section(_page(client, "flaky-network"))
    titles = re.findall(r'<a href="/cases/([a-z-]+)/">', section)
    assert titles == ["published-only", "hbm-failures", "leaky-loader"]
