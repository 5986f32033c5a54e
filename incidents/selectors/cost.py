"""Reads for the cost view: the lesson from breakdown tables, and each case's costs by kind.

The seed's lesson is that a failure count is not a failure cost: at Acme, infrastructure failures
were 11% of failed jobs by count and over 82% of their GPU time. The view first shows that from
the breakdown tables of the selected cases (`cost_lesson`), then what each case reports, one chart
per kind of cost. Kinds are never added together, and no chart adds up costs at all: a case is
one bar per chart (its first figure of that kind), and a figure two cases share (same kind,
number, source and scope) is one bar naming both.

The cases are the ones the request's filters select, through `case_queryset`; seven queries
whatever the number of cases.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from dataclasses import field
from typing import Any

from django.db.models import QuerySet

from incidents.models import KIND_UNITS
from incidents.models import Case
from incidents.models import CostFigure
from incidents.models import CostKind
from incidents.models import Source
from incidents.selectors.breakdowns import breakdowns_of
from incidents.selectors.cases import CaseQuery
from incidents.selectors.cases import Params
from incidents.selectors.cases import case_queryset
from incidents.selectors.cost_lesson import Lesson
from incidents.selectors.cost_lesson import lesson


@dataclass(frozen=True)
class CaseCost:
    """One bar: a figure, the case (or cases) it belongs to, and the case's other figures."""

    figure: CostFigure
    cases: tuple[Case, ...]
    others: tuple[CostFigure, ...] = ()
    source_title: str = ""


@dataclass
class KindCosts:
    """The selected cases' figures of one kind: one per case, highest first."""

    kind: str
    charted: list[CaseCost] = field(default_factory=list)
    per_occurrence: list[CaseCost] = field(default_factory=list)

    @property
    def label(self) -> str:
        return CostKind(self.kind).label

    @property
    def unit(self) -> str:
        return KIND_UNITS[self.kind]

    @property
    def cases(self) -> int:
        """How many selected cases report this kind (a shared figure counts each of its cases)."""
        return sum(len(c.cases) for c in [*self.charted, *self.per_occurrence])


@dataclass
class CostView:
    """The cost of the filtered cases: the lesson first, then their costs kind by kind."""

    query: CaseQuery
    total_cases: int
    lesson: Lesson
    kinds: list[KindCosts]

    def kind(self, kind: str) -> KindCosts:
        return next(k for k in self.kinds if k.kind == kind)


def cost_view(*, params: Params) -> CostView:
    """The lesson and the per-kind costs of the cases the filters select."""
    query = case_queryset(params=params)
    ids = query.queryset.order_by().values("id")
    titles = {(case, url): title for case, url, title in _source_rows(ids)}
    tables = list(breakdowns_of(query.queryset))
    figures = list(
        CostFigure.objects.filter(case__in=ids)
        .select_related("case")
        .order_by("case__slug", "position")
    )
    return CostView(
        query=query,
        total_cases=query.queryset.count(),
        lesson=lesson(tables, titles),
        kinds=costs_by_kind(figures, titles),
    )


def _source_rows(ids: QuerySet[Case, Any]) -> list[tuple[int, str, str]]:
    return list(Source.objects.filter(case__in=ids).values_list("case_id", "url", "title"))


def _same_figure(figure: CostFigure) -> tuple[object, ...]:
    """What makes two cases' figures one: the same number from the same place of one source."""
    return (
        figure.kind,
        figure.value,
        figure.bound,
        figure.source_url,
        figure.locator,
        figure.of,
        figure.scope,
        figure.per_occurrence,
    )


def costs_by_kind(
    figures: list[CostFigure], titles: dict[tuple[int, str], str] | None = None
) -> list[KindCosts]:
    """Per kind, one entry per case: its first figure of the kind (file order), the others kept
    beside it; identical figures of several cases merged into one entry. Highest value first."""
    titles = titles or {}
    kinds = {kind: KindCosts(kind) for kind in CostKind.values}
    first: dict[tuple[str, int], CostFigure] = {}
    others: dict[tuple[str, int], list[CostFigure]] = defaultdict(list)
    for figure in figures:
        key = (figure.kind, figure.case_id)
        if key not in first and not figure.per_occurrence:
            first[key] = figure
        else:
            others[key].append(figure)
    merged: dict[tuple[object, ...], list[CostFigure]] = defaultdict(list)
    for figure in first.values():
        merged[_same_figure(figure)].append(figure)
    for group in merged.values():
        head = group[0]
        cases = tuple(f.case for f in group)
        rest = tuple(o for f in group for o in others.pop((f.kind, f.case_id), []))
        kinds[head.kind].charted.append(
            CaseCost(head, cases, rest, titles.get((head.case_id, head.source_url), ""))
        )
    for (kind, _case_id), remaining in others.items():  # cases with per-occurrence figures only
        for figure in remaining:
            title = titles.get((figure.case_id, figure.source_url), "")
            kinds[kind].per_occurrence.append(CaseCost(figure, (figure.case,), (), title))
    for entry in kinds.values():
        entry.charted.sort(key=lambda c: (-c.figure.value, c.cases[0].title))
    return list(kinds.values())
