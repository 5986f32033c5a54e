"""The cost view /cost/: number of cases next to the cost they report, for the library's filters."""

from __future__ import annotations

import re

import pytest
from django.http import QueryDict
from django.test import Client

from incidents.facets import spec
from incidents.models import Case, CostFigure, CostMetric
from incidents.selectors import cost as selectors_cost
from tests.bulk import add_cases
from tests.queries import assert_max_queries

pytestmark = pytest.mark.django_db


@pytest.fixture
def costed(small_library: None) -> None:
    """flaky-network and hbm-failures report GPU-hours lost; leaky-loader reports interruptions."""
    for slug, metric, value in [
        ("flaky-network", CostMetric.GPU_HOURS_LOST, 100.0),
        ("hbm-failures", CostMetric.GPU_HOURS_LOST, 900.0),
        ("hbm-failures", CostMetric.DOWNTIME_HOURS, 5.5),
    ]:
        case = Case.objects.get(slug=slug)
        CostFigure.objects.create(
            case=case, metric=metric, value=value, source_url=case.sources.first().url
        )


def _rows(query: str, facet: str, level: str = "top") -> dict[str, tuple[int, float, int]]:
    view = selectors_cost.cost_by_facet(params=QueryDict(query), spec=spec(facet), level=level)
    return {
        r.value.slug: (
            r.cases,
            r.metric(CostMetric.GPU_HOURS_LOST).total,
            r.metric(CostMetric.GPU_HOURS_LOST).reporting,
        )
        for r in view.rows
    }


def test_cases_and_reported_cost_per_value(costed: None) -> None:
    assert _rows("", "root_cause") == {
        "hardware-fault": (2, 1000.0, 2),
        "software-bug": (1, 0.0, 0),  # reports interruptions only
    }
    view = selectors_cost.cost_by_facet(params=QueryDict(""), spec=spec("root_cause"))
    bug = next(r for r in view.rows if r.value.slug == "software-bug")
    assert bug.metric(CostMetric.INTERRUPTIONS).total == 12.0
    assert view.total_cases == 3
    assert view.totals[CostMetric.GPU_HOURS_LOST].total == 1000.0
    assert view.totals[CostMetric.GPU_HOURS_LOST].reporting == 2
    assert view.totals[CostMetric.DOWNTIME_HOURS].reporting == 1


def test_the_same_filters_as_the_library(costed: None) -> None:
    assert _rows("organisation=shanghai-ai-laboratory", "root_cause") == {
        "software-bug": (1, 0.0, 0)
    }
    assert _rows("not_component=network", "root_cause") == {
        "hardware-fault": (1, 900.0, 1),
        "software-bug": (1, 0.0, 0),
    }


def test_parent_values_count_their_subtree_and_level_all_shows_children(costed: None) -> None:
    assert _rows("", "component") == {
        "gpu-hardware": (1, 900.0, 1),  # hbm-failures is tagged GPU memory, a child
        "network": (1, 100.0, 1),
        "training-data-loader": (1, 0.0, 0),
    }
    assert _rows("", "component", level="all")["gpu-memory"] == (1, 900.0, 1)


def test_without_a_metric_the_most_reported_one_is_charted(costed: None) -> None:
    view = selectors_cost.cost_by_facet(params=QueryDict(""), spec=spec("root_cause"))
    assert (
        view.metric == CostMetric.GPU_HOURS_LOST
    )  # 2 cases report it, 1 downtime, 1 interruptions
    view = selectors_cost.cost_by_facet(
        params=QueryDict("organisation=shanghai-ai-laboratory"), spec=spec("root_cause")
    )
    assert view.metric == CostMetric.INTERRUPTIONS  # the only cost leaky-loader reports


def test_most_costly_first_not_most_frequent(costed: None) -> None:
    view = selectors_cost.cost_by_facet(
        params=QueryDict(""), spec=spec("symptom"), metric=CostMetric.GPU_HOURS_LOST, level="all"
    )
    rows = {r.value.slug: (r.cases, r.metric(CostMetric.GPU_HOURS_LOST).total) for r in view.rows}
    # By count NCCL timeout (2 cases) would come before ECC error (1); by cost it comes last.
    assert rows == {"job-crash": (2, 1000.0), "ecc-error": (1, 900.0), "nccl-timeout": (2, 100.0)}
    assert [r.value.slug for r in view.rows] == ["job-crash", "ecc-error", "nccl-timeout"]


def test_page_renders_chart_and_table_and_says_what_is_counted(
    client: Client, costed: None
) -> None:
    response = client.get("/cost/?organisation=meta")
    assert response.status_code == 200
    page = re.sub(r"\s+", " ", response.content.decode())
    assert "Only cases whose sources give a cost are counted in the cost columns." in page
    assert '<svg viewBox="0 0' in page and 'role="img"' in page
    assert '<title id="cost-chart-title">Cases and GPU-hours lost per root cause</title>' in page
    assert "1,000 (2 of 2)" in page  # the chart's figure for Hardware fault
    assert '<table class="cost-table">' in page
    assert re.search(
        r'href="/\?organisation=meta&amp;root_cause=hardware-fault">Hardware fault</a></th> '
        r"<td>2</td> <td>1,000 <span[^>]*>\(2\)</span></td><td>5.5 <span[^>]*>\(1\)</span></td>"
        r'<td><span class="not-reported">not reported</span></td>',
        page,
    )
    # The active filter is shown, removable, and the breakdown keeps it.
    assert "Organisation: <strong>Meta</strong>" in page
    assert '<input type="hidden" name="organisation" value="meta">' in page


def test_metric_and_breakdown_are_chosen_by_parameters(client: Client, costed: None) -> None:
    page = client.get("/cost/?by=component&metric=downtime_hours&level=all").content.decode()
    assert "Cases and Downtime (hours) per component" in page
    assert "GPU memory" in page
    assert "5.5 (1 of 1)" in page


def test_unreported_cost_is_not_drawn_as_zero(client: Client, costed: None) -> None:
    page = client.get("/cost/?metric=gpu_hours_lost").content.decode()
    chart = page[page.index("<svg") : page.index("</svg>")]
    assert "not reported" in chart  # software-bug: its case gives no GPU-hours
    assert chart.count('class="bar-cost"') == 1  # only hardware-fault has a cost bar


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("by=warp", "by: &#x27;warp&#x27; is not one of root_cause, component"),
        ("metric=dollars", "metric: &#x27;dollars&#x27; is not one of gpu_hours_lost"),
        ("component=warp-drive", "warp-drive"),
    ],
)
def test_bad_parameters_get_a_clear_message(
    client: Client, costed: None, query: str, message: str
) -> None:
    response = client.get(f"/cost/?{query}")
    assert response.status_code == 400
    page = response.content.decode()
    assert 'role="alert"' in page
    assert message in page
    assert '<table class="cost-table">' in page  # the rest of the page still works


def test_query_count_is_pinned_whatever_the_number_of_cases(client: Client, costed: None) -> None:
    add_cases(60)
    # the vocabulary, the totals, the case count and one grouped query for the facet
    with assert_max_queries(4):
        assert client.get("/cost/?by=symptom&level=all&not_organisation=meta").status_code == 200
