"""Geometry of the cost view's charts, server-rendered as SVG (the template draws what this measures).

- `share_chart`: per category of a breakdown, its share by count beside its share by cost, both on
  one 0-100% scale, so that a category rare by count and heavy by cost stands out; called-out
  categories are marked.
- `kind_chart`: one bar per case for one kind of cost; a logarithmic scale (said so on the chart)
  when the values span more than two orders of magnitude.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from incidents.amounts import amount, percent, signed
from incidents.selectors.cost import KindCosts
from incidents.selectors.cost_lesson import ShareTable

MAX_LABEL = 26


def short(text: str, limit: int = MAX_LABEL) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# --- share by count against share by cost ---------------------------------------------------

SHARE_LABEL = 210
SHARE_PLOT = 280
SHARE_NUMBERS = 120
SHARE_ROW = 36
SHARE_BAR = 12
SHARE_HEADER = 26


@dataclass(frozen=True)
class PairBars:
    label: str
    full_label: str
    y: int  # top of the row
    text_y: int
    count_y: int
    cost_y: int
    count_width: float
    cost_width: float
    count_text: str
    cost_text: str
    called_out: bool


@dataclass(frozen=True)
class ShareChart:
    width: int
    height: int
    label_x: int
    plot_x: int
    plot_width: int
    ticks: list[tuple[float, str]]  # x, label
    rows: list[PairBars]
    bar_height: int = SHARE_BAR


def share_text(share: float, bound: str) -> str:
    return signed(percent(round(share, 2)), bound)


def share_chart(table: ShareTable, called_out: set[str]) -> ShareChart:
    """Measure one table's chart; `called_out` holds the labels of the categories to mark."""
    rows = []
    for index, pair in enumerate(table.pairs):
        top = SHARE_HEADER + index * SHARE_ROW
        count_y = top + 4
        rows.append(
            PairBars(
                label=short(pair.label),
                full_label=pair.label,
                y=top,
                text_y=top + SHARE_ROW // 2 + 4,
                count_y=count_y,
                cost_y=count_y + SHARE_BAR + 2,
                count_width=round(SHARE_PLOT * min(pair.count_share, 100) / 100, 1),
                cost_width=round(SHARE_PLOT * min(pair.cost_share, 100) / 100, 1),
                count_text=share_text(pair.count_share, pair.count_bound),
                cost_text=share_text(pair.cost_share, pair.cost_bound),
                called_out=pair.label in called_out,
            )
        )
    plot_x = SHARE_LABEL
    ticks = [(plot_x + SHARE_PLOT * t / 100, f"{t}%") for t in (0, 50, 100)]
    return ShareChart(
        width=SHARE_LABEL + SHARE_PLOT + SHARE_NUMBERS,
        height=SHARE_HEADER + max(len(rows), 1) * SHARE_ROW + 6,
        label_x=SHARE_LABEL - 8,
        plot_x=plot_x,
        plot_width=SHARE_PLOT,
        ticks=ticks,
        rows=rows,
    )


# --- one kind of cost, one bar per case -----------------------------------------------------

KIND_LABEL = 250
KIND_PLOT = 300
KIND_NUMBERS = 170
KIND_ROW = 26
KIND_BAR = 16
KIND_HEADER = 26
LOG_SPAN = 100  # a max/min ratio above this gets a logarithmic scale


@dataclass(frozen=True)
class KindBar:
    label: str
    full_label: str
    y: int
    text_y: int
    width: float
    text: str


@dataclass(frozen=True)
class KindChart:
    width: int
    height: int
    label_x: int
    plot_x: int
    plot_width: int
    logarithmic: bool
    ticks: list[tuple[float, str]]
    bars: list[KindBar]
    bar_height: int = KIND_BAR


def value_text(value: float, bound: str, unit: str) -> str:
    text = percent(value) if unit == "%" else amount(value)
    return signed(text, bound)


def kind_chart(costs: KindCosts) -> KindChart:
    """Measure the bars of one kind: the case's (or cases') figure, highest first."""
    values = [c.figure.value for c in costs.charted]
    positive = [v for v in values if v > 0]
    logarithmic = (
        bool(positive)
        and len(positive) == len(values)
        and (max(positive) / min(positive) > LOG_SPAN)
    )
    if logarithmic:
        low = 10 ** math.floor(math.log10(min(positive)))
        high = 10 ** math.ceil(math.log10(max(positive)))

        def scale(v: float) -> float:
            return KIND_PLOT * math.log10(v / low) / math.log10(high / low)

        decades = range(round(math.log10(low)), round(math.log10(high)) + 1)
        ticks = [(KIND_LABEL + scale(10**d), amount(10**d)) for d in decades]
    else:
        top = max(values, default=0) or 1

        def scale(v: float) -> float:
            return KIND_PLOT * v / top

        ticks = [(KIND_LABEL + scale(t), amount(t)) for t in (0, top)]
    bars = []
    for index, entry in enumerate(costs.charted):
        y = KIND_HEADER + index * KIND_ROW + (KIND_ROW - KIND_BAR) // 2
        name = " · ".join(c.title for c in entry.cases)
        bars.append(
            KindBar(
                label=short(name, 36),
                full_label=name,
                y=y,
                text_y=y + KIND_BAR - 3,
                width=round(max(scale(entry.figure.value), 1.0), 1),
                text=value_text(entry.figure.value, entry.figure.bound, costs.unit),
            )
        )
    return KindChart(
        width=KIND_LABEL + KIND_PLOT + KIND_NUMBERS,
        height=KIND_HEADER + max(len(bars), 1) * KIND_ROW + 8,
        label_x=KIND_LABEL - 8,
        plot_x=KIND_LABEL,
        plot_width=KIND_PLOT,
        logarithmic=logarithmic,
        ticks=ticks,
        bars=bars,
    )
