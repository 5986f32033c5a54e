"""The cost view /cost/: share by count against share by cost, then each case's costs by kind.

The small library's two breakdown tables are built so that count order and cost order differ:
in hbm-failures, script errors are 70% of failed jobs but 5% of their GPU-hours, HBM errors 10%
of the jobs and 80% of the GPU-hours. A view that sorted by count would put them the other way.
"""

from __future__ import annotations

import re

import pytest
from django.http import QueryDict
from django.test import Client

from incidents.models import Case
from incidents.models import CostFigure
from incidents.models import CostKind
from incidents.selectors.cost import cost_view
from incidents.selectors.cost_lesson import ShareTable
from tests.bulk import add_cases
from tests.queries import assert_max_queries

pytestmark = pytest.mark.django_db


def _view(query: str = "") -> object:
    return cost_view(params=QueryDict(query))


def _table(query: str, key: str) -> ShareTable:
    view = cost_view(params=QueryDict(query))
    return next(t for t in (*view.lesson.tables, *view.lesson.pooled) if t.key == key)


def _page(client: Client, query: str = "") -> str:
    response = client.get(f"/cost/{query}")
    assert response.status_code == 200
    return re.sub(r"\s+", " ", response.content.decode())


def test_categories_are_sorted_by_share_of_cost_not_by_count(small_library: None) -> None:
    table = _table("", "hbm-failures/failed-jobs-by-cause")
    shares = [(p.label, round(p.count_share, 1), round(p.cost_share, 1)) for p in table.pairs]
    assert shares == [
        ("HBM errors", 10.0, 80.0),
        ("Network flaps", 20.0, 15.0),
        ("Script errors", 70.0, 5.0),
    ]
    by_count = sorted(table.pairs, key=lambda p: -p.count_share)
    assert [p.label for p in by_count] != [p.label for p in table.pairs]  # the data tell them apart


def test_the_page_draws_and_tabulates_them_in_cost_order(
    client: Client, small_library: None
) -> None:
    page = _page(client)
    panel = page[page.index("Failed jobs by cause, count against GPU-hours") :]
    panel = panel[: panel.index("</article>")]
    chart = panel[panel.index("<svg") : panel.index("</svg>")]
    table = panel[panel.index("<table") :]
    for part in (chart, table):
        order = [part.index(label) for label in ("HBM errors", "Network flaps", "Script errors")]
        assert order == sorted(order), part
    # the table carries the chart's numbers
    assert re.search(r"HBM errors.*?<td>10%</td> <td>80%</td> <td>70.0</td>", table)


def test_the_headline_is_the_category_rare_by_count_and_dominant_by_cost(
    client: Client, small_library: None
) -> None:
    page = _page(client)
    start = page.index('id="cost-headline"')
    headline = page[start : page.index("</div>", start)]
    assert "HBM errors" in headline
    assert (
        '<span class="hl-count">10%</span> <span class="hl-of">of the failed jobs of the study'
        in (headline)
    )
    assert (
        '<span class="hl-cost">80%</span> <span class="hl-of">of the GPU-hours those jobs used'
        in (headline)
    )
    assert 'href="https://example.org/report"' in headline and "Table 3" in headline
    # The introduction quotes no figure of its own: Acme's 11% / 82% are data, absent here.
    assert "82%" not in page and "11%" not in page
    # Script errors (70% of jobs, 5% of GPU-hours) map to no failure value: never called out.
    calls = page[page.index('class="callouts"') : page.index("Per study")]
    assert "HBM errors: 10% of failed jobs, 30% of their GPU-hours." in calls  # flaky-network
    assert "Script errors" not in calls


def test_pooled_shares_are_recomputed_over_the_combined_totals(small_library: None) -> None:
    pooled = _table("", "pooled/failed_jobs/gpu_hours")
    shares = {p.label: (round(p.count_share, 2), round(p.cost_share, 2)) for p in pooled.pairs}
    # HBM errors: (10 + 5) of (100 + 50) jobs, (800 + 300) of (1000 + 1000) GPU-hours
    assert shares == {
        "HBM errors": (10.0, 55.0),
        "Network flaps": (36.67, 37.5),
        "Script errors": (53.33, 7.5),
    }
    assert [p.label for p in pooled.pairs] == ["HBM errors", "Network flaps", "Script errors"]
    assert len(pooled.sources) == 2


def test_pooling_needs_two_studies_and_the_page_states_its_rule(
    client: Client, small_library: None
) -> None:
    view = cost_view(params=QueryDict("component=gpu-memory"))
    assert [t.key for t in view.lesson.tables] == ["hbm-failures/failed-jobs-by-cause"]
    assert view.lesson.pooled == ()
    page = _page(client, "?component=gpu-memory")
    assert "<strong>Pooling rule.</strong> Tables are pooled only when" in page
    assert "No two studies under these filters" in page


def test_the_librarys_filters_apply_and_show_as_chips(client: Client, small_library: None) -> None:
    page = _page(client, "?organisation=shanghai-ai-laboratory")
    assert "Organisation: <strong>Shanghai AI Laboratory</strong>" in page
    assert 'id="cost-headline"' not in page  # its only table gives counts, no costs
    assert "Restarts by cause (counts only)</a> (counts only)" in page
    assert 'href="/?organisation=shanghai-ai-laboratory"' in page  # the same cases in the library


def test_kinds_are_never_added_together(client: Client, small_library: None) -> None:
    view = cost_view(params=QueryDict(""))
    for kind in view.kinds:
        figures = [c.figure for c in (*kind.charted, *kind.per_occurrence)]
        assert {f.kind for f in figures} <= {kind.kind}
    page = _page(client)
    section = page[page.index('id="kinds-heading"') :]
    # leaky-loader reports 12 interruptions and about 5.5 hours of training downtime.
    interruptions = section[section.index('id="kind-interruptions"') :]
    interruptions = interruptions[: interruptions.index("</article>")]
    downtime = section[section.index('id="kind-training_downtime_hours"') :]
    downtime = downtime[: downtime.index("</article>")]
    assert "12 interruptions" in interruptions and "5.5" not in interruptions
    assert "about 5.5 hours" in downtime and "12 interruptions" not in downtime
    assert "17.5" not in page  # 12 + 5.5: no chart or table adds the two kinds
    assert "112" not in section  # nor 12 interruptions to flaky-network's 100 GPU-hours


def test_a_case_is_one_bar_per_chart(small_library: None) -> None:
    case = Case.objects.get(slug="flaky-network")
    url = case.sources.first().url  # type: ignore[union-attr]
    CostFigure.objects.create(
        case=case, position=5, kind=CostKind.GPU_HOURS_LOST, value=50, locator="x", source_url=url
    )
    hbm = Case.objects.get(slug="hbm-failures")
    hbm_url = hbm.sources.first().url  # type: ignore[union-attr]
    CostFigure.objects.create(
        case=hbm,
        kind=CostKind.GPU_HOURS_LOST,
        value=20,
        locator="x",
        source_url=hbm_url,
        per_occurrence=True,
    )
    kind = cost_view(params=QueryDict("")).kind(CostKind.GPU_HOURS_LOST)
    [bar] = kind.charted  # the first figure its file lists; the second is kept beside it
    assert (bar.figure.value, [c.slug for c in bar.cases]) == (100, ["flaky-network"])
    assert [o.value for o in bar.others] == [50]
    [per_start] = kind.per_occurrence  # listed, never drawn next to totals
    assert per_start.figure.value == 20


def test_a_figure_two_cases_share_is_one_bar_naming_both(small_library: None) -> None:
    for slug in ("hbm-failures", "leaky-loader"):
        case = Case.objects.get(slug=slug)
        CostFigure.objects.create(
            case=case,
            kind=CostKind.GPU_TIME_SHARE,
            value=82,
            bound="more_than",
            of="the GPU time of failed jobs",
            locator="Section 5",
            source_url="https://example.org/shared-study",
        )
    [bar] = cost_view(params=QueryDict("")).kind(CostKind.GPU_TIME_SHARE).charted
    assert sorted(c.slug for c in bar.cases) == ["hbm-failures", "leaky-loader"]


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("?component=warp-drive", "warp-drive"),
        ("?not_symptom=nope", "nope"),
    ],
)
def test_bad_parameters_get_a_clear_message(
    client: Client, small_library: None, query: str, message: str
) -> None:
    response = client.get(f"/cost/{query}")
    assert response.status_code == 200  # a page: the message, and the rest of the page
    page = response.content.decode()
    assert 'role="alert"' in page and message in page
    assert 'id="cost-headline"' in page  # the rest of the page still works


def test_query_count_is_pinned_whatever_the_number_of_cases(
    client: Client, small_library: None
) -> None:
    add_cases(60)  # each with a cost figure and a breakdown table of two rows
    # vocabulary, sources, tables (with their case), rows, rows' values, costs, the case count
    with assert_max_queries(7):
        assert client.get("/cost/?not_organisation=shanghai-ai-laboratory").status_code == 200
