"""The graph views over HTTP: the overview's budget, focus content, the library's filters and
chips, the tables, the library page's panel, bad input, and pinned query counts."""

from __future__ import annotations

import re
from collections import Counter
from html import unescape

import pytest
from django.test import Client

from incidents.models import Case
from incidents.models import CaseFacetLink
from incidents.models import CaseRemediation
from incidents.models import FacetValue
from tests.bulk import add_cases
from tests.queries import assert_max_queries

pytestmark = pytest.mark.django_db
ACME = "acme-seren-kalos-pretraining-failures"


def _html(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.content[:400]
    return unescape(response.content.decode())


def _node_links(html: str) -> dict[str, str]:
    """data-id -> href of every node drawn in the SVG."""
    return {
        m.group(2): m.group(1)
        for m in re.finditer(r'<a href="([^"]+)" class="node[^"]*" data-id="([^"]+)"', html)
    }


def test_overview_json_draws_top_level_values_sized_by_cases(
    client: Client, small_library: None
) -> None:
    body = client.get("/graph/data.json").json()
    assert body["view"] == "overview" and body["cases"] == 3
    nodes = {n["id"]: n for n in body["nodes"]}
    # hbm-failures is tagged GPU memory: drawn under its top-level value, GPU hardware.
    assert "component:gpu-memory" not in nodes
    assert nodes["component:gpu-hardware"]["cases"] == 1
    assert nodes["root_cause:hardware-fault"]["cases"] == 2
    assert nodes["symptom:nccl-timeout"]["focus_url"] == "/graph/?focus=symptom%3Anccl-timeout"
    assert nodes["root_cause:hardware-fault"]["url"] == "/?root_cause=hardware-fault"
    assert nodes["remediation:restart-from-last-checkpoint"]["drawn_label"] == (
        "Restart from last checkpoint"
    )
    edges = {(e["source"], e["target"]): e["weight"] for e in body["edges"]}
    assert edges[("root_cause:hardware-fault", "component:network")] == 1
    assert edges[("root_cause:hardware-fault", "symptom:nccl-timeout")] == 1


def test_overview_is_the_same_picture_for_the_same_data(
    client: Client, seeded_library: None
) -> None:
    first = client.get("/graph/data.json").json()
    assert client.get("/graph/data.json").json() == first


def test_overview_draws_at_most_60_nodes_with_1000_cases(
    client: Client, seeded_library: None
) -> None:
    add_cases(1000 - Case.objects.count())
    body = client.get("/graph/data.json").json()
    assert body["cases"] == 1000
    assert 40 <= len(body["nodes"]) <= 60
    page = _html(client, "/graph/")
    assert len(_node_links(page)) == len(body["nodes"])


def test_expanding_a_value_draws_its_narrower_values(client: Client, seeded_library: None) -> None:
    hardware = FacetValue.objects.get(facet="root_cause", slug="hardware-fault")
    children = {v.slug for v in hardware.children.all() if v.links.exists()}
    assert children
    overview = {n["id"]: n for n in client.get("/graph/data.json").json()["nodes"]}
    hardware = overview["root_cause:hardware-fault"]
    assert hardware["expand_url"] == "/graph/?expand=root_cause%3Ahardware-fault"
    body = client.get(hardware["expand_url"].replace("/graph/", "/graph/data.json")).json()
    drawn = {n["id"] for n in body["nodes"]}
    assert (
        next(n for n in body["nodes"] if n["id"] == "root_cause:hardware-fault")["collapse_url"]
        == "/graph/"
    )
    assert "root_cause:hardware-fault" in drawn
    assert {f"root_cause:{slug}" for slug in children} <= drawn
    page = _html(client, "/graph/")
    assert 'href="/graph/?expand=root_cause%3Ahardware-fault">expand' in page
    expanded = _html(client, "/graph/?expand=root_cause:hardware-fault")
    assert 'href="/graph/">collapse' in expanded


def test_value_focus_ranks_remediations_by_cases_with_it_elsewhere(
    client: Client, seeded_library: None
) -> None:
    """The focus counts, for each remediation, the cases with NCCL timeout (or a narrower
    symptom) other than Acme's that used it; checked against the database directly."""
    acme = Case.objects.get(slug=ACME)
    timeout = FacetValue.objects.get(facet="symptom", slug="nccl-timeout")
    others = set(
        CaseFacetLink.objects.filter(value=timeout)
        .exclude(case=acme)
        .values_list("case", flat=True)
    )
    expected = Counter(
        CaseRemediation.objects.filter(case__in=others).values_list("item__slug", flat=True)
    )
    url = f"/graph/data.json?focus=symptom:nccl-timeout&from=case:{ACME}"
    body = client.get(url).json()
    assert body["view"] == "focus" and body["focus"] == "symptom:nccl-timeout"
    assert body["cases"] == len(others)
    drawn = {
        n["id"].split(":", 1)[1]: n["cases"] for n in body["nodes"] if n["kind"] == "remediation"
    }
    assert drawn == dict(expected.most_common(len(drawn)))
    ranked = [n["cases"] for n in body["nodes"] if n["kind"] == "remediation"]
    assert ranked == sorted(ranked, reverse=True)
    page = _html(client, url.replace("data.json", ""))
    assert "What fixed NCCL timeout elsewhere" in page
    assert f"{len(others)} cases other than {acme.title} have this symptom" in page


def test_from_the_acme_case_two_clicks_reach_what_fixed_nccl_timeouts_elsewhere(
    client: Client, seeded_library: None
) -> None:
    case_page = _html(client, f"/cases/{ACME}/")
    first = re.search(r'<a id="case-graph-link" href="([^"]+)"', case_page)
    assert first, "the case page links to its graph"
    focus = _html(client, first.group(1))
    assert "what it shares with other cases" in focus
    second = _node_links(focus)["symptom:nccl-timeout"]
    assert "from=case%3A" + ACME in second
    answer = _html(client, second)
    assert '<h1 id="graph-heading">What fixed NCCL timeout elsewhere</h1>' in answer
    assert "Remediations" in answer and "Cordon and replace faulty nodes" in answer


def test_case_focus_lists_its_items_and_the_cases_sharing_them(
    client: Client, small_library: None
) -> None:
    body = client.get("/graph/data.json?focus=case:flaky-network").json()
    nodes = {n["id"]: n for n in body["nodes"]}
    # Flaky network shares hardware fault with hbm-failures and NCCL timeout with leaky-loader.
    assert nodes["root_cause:hardware-fault"]["cases"] == 2
    assert nodes["symptom:nccl-timeout"]["cases"] == 2
    # hbm-failures was tagged ECC error, a narrower job crash: it shares job crash too.
    assert nodes["symptom:job-crash"]["cases"] == 2
    assert nodes["case:hbm-failures"]["cases"] == 2
    assert nodes["case:leaky-loader"]["cases"] == 1
    assert nodes["case:flaky-network"]["url"] == "/cases/flaky-network/"


def test_remediation_focus_names_the_failures_it_was_used_against(
    client: Client, small_library: None
) -> None:
    page = _html(client, "/graph/?focus=remediation:restart-from-last-checkpoint")
    assert "What “Restart from last checkpoint” was used against" in page
    nodes = _node_links(page)
    assert {"root_cause:software-bug", "symptom:nccl-timeout", "case:leaky-loader"} <= set(nodes)
    assert "case:flaky-network" not in nodes
    assert '<a href="/cases/leaky-loader/">A leaking data loader stalls pretraining</a>' in page


def test_filters_and_words_apply_and_show_as_chips(client: Client, small_library: None) -> None:
    body = client.get("/graph/data.json?organisation=meta").json()
    assert body["cases"] == 2
    assert "remediation:restart-from-last-checkpoint" not in {n["id"] for n in body["nodes"]}
    assert client.get("/graph/data.json?q=leaked").json()["cases"] == 1
    page = _html(client, "/graph/?organisation=meta&focus=symptom:nccl-timeout")
    chip = re.search(
        r'<a class="chip" href="([^"]+)">\s*<span class="chip-facet">Organisation', page
    )
    assert chip and chip.group(1) == "?focus=symptom%3Anccl-timeout"  # the focus stays
    assert '<a class="clear-all" id="clear-all" href="?focus=symptom%3Anccl-timeout">' in page
    assert "1 case has this symptom" in page


def test_tables_carry_the_overview_with_the_registry_labels(
    client: Client, seeded_library: None
) -> None:
    page = _html(client, "/graph/?show=root_cause&show=contributing_factor&show=remediation")
    assert "Rootcause" not in page and "Contributingfactor" not in page
    assert "<td>Contributing factor</td>" in page and "<td>Root cause</td>" in page
    assert "Lessons shared by the most cases" in page and "Values that bridge the most" in page
    # Remediations by root cause: each cell counts the cases with both (or a narrower cause).
    matrix = page.split('<table class="matrix">')[1].split("</table>")[0]
    header = re.findall(r'<th scope="col"><a href="[^"]+">([^<]+)</a></th>', matrix)
    row = next(r for r in matrix.split("<tr>") if "Rolled back or disabled the change" in r)
    cells = [int(n) for n in re.findall(r"<td[^>]*>(\d+)</td>", row)]
    cause = FacetValue.objects.get(facet="root_cause", slug="configuration-error")
    with_cause = CaseFacetLink.objects.filter(value=cause).values("case")
    expected = CaseRemediation.objects.filter(
        item__slug="roll-back-change", case__in=with_cause
    ).count()
    assert expected and cells[header.index(cause.name)] == expected


def test_bad_options_are_named_and_the_rest_applies(client: Client, small_library: None) -> None:
    response = client.get("/graph/data.json?focus=nope&show=organisation&component=zzz")
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert "not of the form kind:slug" in errors["focus"][0]
    assert "not a kind the graph draws" in errors["show"][0]
    assert "zzz" in errors["component"][0]
    cases = client.get("/graph/data.json?expand=case:leaky-loader").json()["errors"]
    assert "only a cause, component, symptom or contributing factor expands" in cases["expand"][0]
    missing = client.get("/graph/data.json?focus=remediation:no-such-thing")
    assert "There is no remediation 'no-such-thing'" in missing.json()["errors"]["focus"][0]
    page = _html(client, "/graph/?focus=symptom:no-such-symptom")
    assert "There is no symptom 'no-such-symptom'" in page
    assert "What 3 cases share" in page  # the overview instead


def test_the_page_works_without_javascript(client: Client, small_library: None) -> None:
    page = _html(client, "/graph/")
    assert '<svg class="graph-svg"' in page
    assert "cytoscape" not in page and "http://" not in page.split("<main")[1]
    links = _node_links(page)
    assert links["symptom:nccl-timeout"] == "/graph/?focus=symptom%3Anccl-timeout"


def test_the_library_page_loads_its_graph_panel_lazily(client: Client, small_library: None) -> None:
    page = _html(client, "/?organisation=meta")
    assert 'hx-get="/graph/panel/?organisation=meta"' in page
    assert "<svg" not in page  # the list never waits for the graph
    panel = _html(client, "/graph/panel/?organisation=meta")
    assert panel.lstrip().startswith('<section id="graph-panel"')
    assert "What 2 cases share" in panel
    assert 'href="/graph/?organisation=meta"' in panel


# vocabulary, case ids, facet links, remediation links, lesson links, up to two lookups (focus,
# from), labels of listed cases, remediations and lessons; the page adds one count per facet.
PAGE_QUERIES = 10 + 5


@pytest.mark.parametrize(
    ("url", "most"),
    [
        ("/graph/", PAGE_QUERIES),
        ("/graph/data.json", 10),
        ("/graph/panel/", 10),
        # a text search also reads the rarity of its words
        ("/graph/?expand=root_cause:hardware-fault&q=faults", PAGE_QUERIES + 1),
        ("/graph/?focus=symptom:nccl-timeout&from=case:leaky-loader", PAGE_QUERIES),
        ("/graph/?focus=case:leaky-loader", PAGE_QUERIES),
        ("/graph/?focus=remediation:restart-from-last-checkpoint", PAGE_QUERIES),
        ("/graph/data.json?focus=lesson:weight-failures-by-gpu-time", 10),
    ],
)
def test_graph_query_count_is_pinned_whatever_the_number_of_cases(
    client: Client, small_library: None, url: str, most: int
) -> None:
    add_cases(60)
    with assert_max_queries(most):
        assert client.get(url).status_code == 200


def test_the_page_offers_the_librarys_facet_controls(client: Client, small_library: None) -> None:
    page = _html(client, "/graph/?focus=symptom:nccl-timeout")
    # Each toggles a filter, counts what it would give, and keeps the focus.
    link = re.search(r'id="f-organisation-meta" href="([^"]+)"[^>]*>(.*?)</a>', page, re.S)
    assert link and link.group(1) == "?organisation=meta&focus=symptom%3Anccl-timeout"
    assert re.search(r'<span class="count">2</span>', link.group(2))


def test_no_case_is_said_not_drawn(client: Client, small_library: None) -> None:
    page = _html(client, "/graph/?q=zzzqqq")
    assert "No case matches these filters, so there is nothing to draw." in page
    assert "<svg" not in page
    assert client.get("/graph/data.json?q=zzzqqq").json()["nodes"] == []


def _lede_links(page: str) -> dict[str, str]:
    lede = re.search(r'<p class="lede">(.*?)</p>', page, re.S)
    assert lede is not None
    found = re.findall(r'<a href="([^"]*)">([^<]*)</a>', lede.group(1))
    return {unescape(text): unescape(href) for href, text in found}


def test_a_focus_lists_the_cases_it_counts(client: Client, small_library: None) -> None:
    """A value's focus links "See these cases as a list" to the cases its sentence counts: the
    value's under the page's filters, not every case with the value; a remediation's focus,
    which no list filter can select, offers no such link (its cases are on the page)."""
    page = _html(client, "/graph/?focus=symptom:nccl-timeout&organisation=meta")
    assert "1 case has this symptom" in page
    listed = _lede_links(page)["See these cases as a list"]
    assert listed == "/?organisation=meta&symptom=nccl-timeout"
    assert "/cases/flaky-network/" in _html(client, listed)
    assert "/cases/leaky-loader/" not in _html(client, listed)
    page = _html(client, "/graph/?focus=symptom:nccl-timeout")
    assert _lede_links(page)["See these cases as a list"] == "/?symptom=nccl-timeout"
    page = _html(client, "/graph/?focus=remediation:restart-from-last-checkpoint")
    assert "See these cases as a list" not in _lede_links(page)
    assert _lede_links(page)["back to the overview"] == "/graph/"
    assert _lede_links(_html(client, "/graph/?organisation=meta"))["See these cases as a list"] == (
        "/?organisation=meta"
    )
