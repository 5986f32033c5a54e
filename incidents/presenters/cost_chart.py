"""Geometry of the cost view's chart: paired horizontal bars, server-rendered as SVG.

Each row is a facet value: on the left panel a bar for its number of cases, on the right panel a
bar for the cost its cases report, each panel with its own scale, so that a value that is rare by
count and heavy by cost stands out. The template draws what this module measures; no JavaScript.
"""

from __future__ import annotations

from dataclasses import dataclass

from incidents.selectors.cost import CostRow

ROW_HEIGHT = 26
BAR_HEIGHT = 16
HEADER_HEIGHT = 30
LABEL_WIDTH = 250
CASES_PANEL = 190
COST_PANEL = 250
GAP = 60
NUMBER_ROOM = 56  # room after a bar for its figure
MAX_LABEL = 34


@dataclass(frozen=True)
class Bar:
    label: str
    full_label: str
    y: int  # top of the bar
    text_y: int  # baseline of the row's text
    cases: int
    cases_width: float
    cost: float
    cost_width: float
    cost_text: str
    reported: bool


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    label_x: int
    cases_x: int
    cost_x: int
    header_y: int
    axis_top: int
    bars: list[Bar]
    metric_label: str
    shown: int
    of: int


def format_amount(value: float) -> str:
    """1234.5 -> "1,234.5"; 12.0 -> "12"."""
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


def _short(text: str) -> str:
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1].rstrip() + "…"


def paired_bars(rows: list[CostRow], metric: str, metric_label: str, *, limit: int = 15) -> Chart:
    """Measure the chart of the first `limit` rows (the caller has ordered them)."""
    shown = rows[:limit]
    max_cases = max((r.cases for r in shown), default=0) or 1
    max_cost = max((r.metric(metric).total for r in shown), default=0.0) or 1.0
    cases_x = LABEL_WIDTH
    cost_x = cases_x + CASES_PANEL + NUMBER_ROOM + GAP
    bars = []
    for index, row in enumerate(shown):
        top = HEADER_HEIGHT + index * ROW_HEIGHT + (ROW_HEIGHT - BAR_HEIGHT) // 2
        figure = row.metric(metric)
        label = " › ".join([*(a.name for a in row.path), row.value.name])
        bars.append(
            Bar(
                label=_short(label),
                full_label=label,
                y=top,
                text_y=top + BAR_HEIGHT - 3,
                cases=row.cases,
                cases_width=round(CASES_PANEL * row.cases / max_cases, 1),
                cost=figure.total,
                cost_width=round(COST_PANEL * figure.total / max_cost, 1),
                cost_text=(
                    f"{format_amount(figure.total)} ({figure.reporting} of {row.cases})"
                    if figure.reporting
                    else "not reported"
                ),
                reported=figure.reporting > 0,
            )
        )
    return Chart(
        width=cost_x + COST_PANEL + NUMBER_ROOM + 60,
        height=HEADER_HEIGHT + max(len(shown), 1) * ROW_HEIGHT + 8,
        label_x=LABEL_WIDTH - 8,
        cases_x=cases_x,
        cost_x=cost_x,
        header_y=HEADER_HEIGHT - 10,
        axis_top=HEADER_HEIGHT - 4,
        bars=bars,
        metric_label=metric_label,
        shown=len(shown),
        of=len(rows),
    )
