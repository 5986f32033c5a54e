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

from incidents.amounts import amount
from incidents.amounts import percent
from incidents.amounts import signed
from incidents.selectors.cost import KindCosts
from incidents.selectors.cost_lesson import ShareTable

MAX_LABEL = 26


def short(text: str, limit: int = MAX_LABEL) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


@dataclass(frozen=True)
class Layout:
    """A chart's measures: widths of the label, plot and number bands; the height of a row, of a
    bar, and of the space above and below the rows."""

    label: int
    plot: int
    numbers: int
    row: int
    bar: int
    header: int
    footer: int


@dataclass(frozen=True)
class Chart:
    """What the templates of both charts read of a chart's frame; `lines` is its number of rows."""

    layout: Layout
    ticks: list[tuple[float, str]]  # x, label

    @property
    def lines(self) -> int:
        raise NotImplementedError

    @property
    def width(self) -> int:
        return self.layout.label + self.layout.plot + self.layout.numbers

    @property
    def height(self) -> int:
        return self.layout.header + max(self.lines, 1) * self.layout.row + self.layout.footer

    @property
    def label_x(self) -> int:
        return self.layout.label - 8

    @property
    def plot_x(self) -> int:
        return self.layout.label

    @property
    def plot_width(self) -> int:
        return self.layout.plot

    @property
    def bar_height(self) -> int:
        return self.layout.bar


# --- share by count against share by cost ---------------------------------------------------

SHARE = Layout(label=210, plot=280, numbers=120, row=36, bar=12, header=26, footer=6)


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
class ShareChart(Chart):
    rows: list[PairBars]

    @property
    def lines(self) -> int:
        return len(self.rows)


def share_text(share: float, bound: str) -> str:
    return signed(percent(round(share, 2)), bound)


def share_chart(table: ShareTable, called_out: set[str]) -> ShareChart:
    """Measure one table's chart; `called_out` holds the labels of the categories to mark."""
    rows = []
    for index, pair in enumerate(table.pairs):
        top = SHARE.header + index * SHARE.row
        count_y = top + 4
        rows.append(
            PairBars(
                label=short(pair.label),
                full_label=pair.label,
                y=top,
                text_y=top + SHARE.row // 2 + 4,
                count_y=count_y,
                cost_y=count_y + SHARE.bar + 2,
                count_width=round(SHARE.plot * min(pair.count_share, 100) / 100, 1),
                cost_width=round(SHARE.plot * min(pair.cost_share, 100) / 100, 1),
                count_text=share_text(pair.count_share, pair.count_bound),
                cost_text=share_text(pair.cost_share, pair.cost_bound),
                called_out=pair.label in called_out,
            )
        )
    ticks = [(SHARE.label + SHARE.plot * t / 100, f"{t}%") for t in (0, 50, 100)]
    return ShareChart(SHARE, ticks, rows)


# --- one kind of cost, one bar per case -----------------------------------------------------

KIND = Layout(label=250, plot=300, numbers=170, row=26, bar=16, header=26, footer=8)
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
class KindChart(Chart):
    logarithmic: bool
    bars: list[KindBar]

    @property
    def lines(self) -> int:
        return len(self.bars)


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
            return KIND.plot * math.log10(v / low) / math.log10(high / low)

        decades = range(round(math.log10(low)), round(math.log10(high)) + 1)
        ticks = [(KIND.label + scale(10**d), amount(10**d)) for d in decades]
    else:
        top = max(values, default=0) or 1

        def scale(v: float) -> float:
            return KIND.plot * v / top

        ticks = [(KIND.label + scale(t), amount(t)) for t in (0, top)]
    bars = []
    for index, entry in enumerate(costs.charted):
        y = KIND.header + index * KIND.row + (KIND.row - KIND.bar) // 2
        name = " · ".join(c.title for c in entry.cases)
        bars.append(
            KindBar(
                label=short(name, 36),
                full_label=name,
                y=y,
                text_y=y + KIND.bar - 3,
                width=round(max(scale(entry.figure.value), 1.0), 1),
                text=value_text(entry.figure.value, entry.figure.bound, costs.unit),
            )
        )
    return KindChart(KIND, ticks, logarithmic, bars)
