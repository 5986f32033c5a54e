"""What the cost view shows: its chips, the links between its breakdowns, and the chart."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from incidents.facets import FACETS
from incidents.models import CostMetric
from incidents.presenters import cost_chart
from incidents.presenters.query_state import QueryState
from incidents.selectors.cost import METRICS, CostView

VIEW = "incidents:cost"


def context(
    view: CostView,
    params: Mapping[str, Any],
    options: Mapping[str, str],
    defaults: Mapping[str, str],
    problems: list[str],
) -> dict[str, Any]:
    """Everything the cost page's template shows; links keep the filters and the options."""
    state = QueryState.of(view.query.filterset, params).on(VIEW)
    for name, value in options.items():
        state = state.with_option(name, value, default=defaults[name])
    metric_label = CostMetric(view.metric).label
    return {
        "view": view,
        "state": state,
        "chart": cost_chart.paired_bars(view.rows, view.metric, metric_label),
        "metric_label": metric_label,
        "chips": state.chips(view.query.vocabulary.by_slug),
        "problems": problems,
        "facet_choices": [(spec.facet, spec.plural) for spec in FACETS],
        "metrics": [(m, CostMetric(m).label) for m in METRICS],
        "clear_url": state.replace(q="", selected=()).href(),
        "options": options,
    }
