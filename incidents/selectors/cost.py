"""Reads for the cost view: per facet value, how many cases, and what the cases report they cost.

The seed article's lesson is that a failure count is not a failure cost: 11% of failed jobs by
count took 82% of the GPU time of failed jobs. So next to the number of cases, each value gets the
sum of each cost metric and how many of its cases report that metric at all; cases whose sources
give no cost are counted as cases and add nothing to the sums.

The cases are the ones the request's filters select, through `case_queryset`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Q, Sum

from incidents.facets import FacetSpec
from incidents.models import CaseFacetLink, CostFigure, CostMetric, FacetValue
from incidents.selectors.cases import CaseQuery, Params, case_queryset

METRICS: list[str] = list(CostMetric.values)
LEVELS = ("top", "all")  # top-level values only, or every value of the tree


@dataclass(frozen=True)
class MetricTotal:
    """The sum of one cost metric over some cases, and how many of them report it."""

    metric: str
    total: float
    reporting: int

    @property
    def label(self) -> str:
        return CostMetric(self.metric).label


@dataclass
class CostRow:
    """One facet value: its cases under the filters and the cost they report."""

    value: FacetValue
    path: list[FacetValue]  # ancestors, root first
    cases: int
    metrics: dict[str, MetricTotal]

    def metric(self, metric: str) -> MetricTotal:
        return self.metrics[metric]


@dataclass
class CostView:
    """The cost of the filtered cases, per value of one facet."""

    query: CaseQuery
    spec: FacetSpec
    metric: str
    level: str
    total_cases: int
    totals: dict[str, MetricTotal]
    rows: list[CostRow]


def _metric_sums(prefix: str) -> dict[str, Any]:
    """Aggregates per metric over a join to CostFigure: the sum and the number of cases reporting.

    A case has at most one figure per metric, so each (row, figure) pair is counted once.
    """
    aggregates: dict[str, Any] = {}
    for metric in METRICS:
        only = Q(**{f"{prefix}metric": metric})
        aggregates[f"{metric}__sum"] = Sum(f"{prefix}value", filter=only)
        aggregates[f"{metric}__n"] = Count(f"{prefix}id", filter=only)
    return aggregates


def _totals(row: dict[str, Any]) -> dict[str, MetricTotal]:
    return {
        m: MetricTotal(m, float(row.get(f"{m}__sum") or 0.0), int(row.get(f"{m}__n") or 0))
        for m in METRICS
    }


def cost_by_facet(
    *, params: Params, spec: FacetSpec, metric: str | None = None, level: str = "top"
) -> CostView:
    """Cases and reported cost per value of a facet, over the cases the filters select.

    A value counts the distinct cases tagged with it or a descendant. Rows are the values with at
    least one case, most costly (in `metric`) first, then most cases. Without a `metric`, the one
    that most of the selected cases report is used. Four queries, whatever the number of cases:
    the vocabulary, the totals, the case count and one grouped query for the facet.
    """
    query = case_queryset(params=params)
    vocabulary = query.vocabulary
    case_ids = query.queryset.order_by().values("id")

    totals = _totals(
        CostFigure.objects.filter(case__in=case_ids).aggregate(**_metric_sums(prefix=""))
    )
    if metric is None:
        metric = max(METRICS, key=lambda m: (totals[m].reporting, -METRICS.index(m)))
    grouped = (
        CaseFacetLink.objects.filter(case__in=case_ids, value__facet=spec.facet)
        .values("value_id")
        .annotate(n_cases=Count("case_id", distinct=True), **_metric_sums(prefix="case__costs__"))
        .order_by()
    )
    rows = []
    for row in grouped:
        value = vocabulary.values[row["value_id"]]
        if level == "top" and value.parent_id is not None:
            continue
        rows.append(CostRow(value, vocabulary.path(value)[:-1], row["n_cases"], _totals(dict(row))))
    rows.sort(key=lambda r: (-r.metrics[metric].total, -r.cases, r.value.name.lower()))
    return CostView(
        query=query,
        spec=spec,
        metric=metric,
        level=level,
        total_cases=query.queryset.count(),
        totals=totals,
        rows=rows,
    )
