"""The lesson of the cost view, computed from breakdown tables: share by count against share by cost.

For every table that gives both sides, each category becomes a pair (its share of the count, its
share of the cost), ordered by cost share. Tables that count the same thing and cost it in the same
absolute unit are also pooled across studies (POOLING_RULE). The categories whose cost share most
exceeds their count share are called out.

Pure computation over tables read by `selectors.breakdowns` (rows and values prefetched): no query.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from incidents.facets import BY_FACET
from incidents.models import SHARE_COST_UNITS
from incidents.models import Breakdown
from incidents.models import BreakdownRow
from incidents.models import Confirmation
from incidents.models import CostUnit
from incidents.models import CountUnit
from incidents.models import FacetValue
from incidents.selectors.breakdowns import row_values
from incidents.selectors.prefetch import prefetched

CALLOUTS = 3
POOLING_RULE = (
    "Tables are pooled only when they count the same thing and give their costs in the same "
    "absolute unit (GPU-hours, node-hours or job hours), so that the shares can be recomputed "
    "over the combined totals: a category's pooled share by count is its count summed over the "
    "tables (a printed share times the table's total where only the share is given) divided by "
    "all their counts, and its pooled share by cost is its cost summed over the tables divided "
    "by all their costs; a bigger cluster therefore weighs more than a small one. Categories are "
    "matched by label and pooled only if every table has them. Shares of different wholes (a "
    "share of one study's failed jobs) are never pooled, and neither are tables known only from "
    "a secondary transcription. At least two studies are needed."
)


@dataclass(frozen=True)
class TableSource:
    """Where a table comes from: its case, the source it cites and the place in that source."""

    case_slug: str
    case_title: str
    url: str
    title: str
    locator: str


@dataclass(frozen=True)
class SharePair:
    """One category: its share of the count and its share of the cost, in percent."""

    label: str
    group: str
    values: tuple[FacetValue, ...]
    count_share: float
    cost_share: float
    count_bound: str
    cost_bound: str
    computed: bool  # a share computed from counts or costs (and totals), not printed
    failure: bool  # maps to a value of a facet about the failure (a final state such as COMPLETED does not)

    @property
    def gap(self) -> float:
        """How many points the cost share exceeds the count share (negative: cheap for its count)."""
        return self.cost_share - self.count_share


@dataclass(frozen=True)
class ShareTable:
    """A table as the lesson chart draws it: pairs ordered by cost share, highest first."""

    key: str
    title: str
    count_of: str
    cost_of: str
    pairs: tuple[SharePair, ...]
    sources: tuple[TableSource, ...]  # one, or every table pooled
    pooled: bool = False
    secondary: bool = False
    notes: str = ""

    @property
    def top_gap(self) -> float:
        """The largest gap of a failure category (of any category when none is one)."""
        failures = [p.gap for p in self.pairs if p.failure]
        return max(failures or [p.gap for p in self.pairs])


@dataclass(frozen=True)
class Callout:
    """A category rare by count and heavy by cost, with the table it comes from."""

    pair: SharePair
    table: ShareTable


@dataclass(frozen=True)
class OneSided:
    """A table that gives counts only or costs only, so it cannot show count against cost."""

    title: str
    gives: str  # "counts" or "costs"
    source: TableSource


@dataclass(frozen=True)
class Lesson:
    tables: tuple[ShareTable, ...]
    pooled: tuple[ShareTable, ...]
    callouts: tuple[Callout, ...]
    one_sided: tuple[OneSided, ...]


def lesson(tables: Iterable[Breakdown], source_titles: dict[tuple[int, str], str]) -> Lesson:
    """Pairs, pooled tables and call-outs for breakdown tables read by `breakdowns_of`.

    `source_titles` maps (case id, url) to the source's title, for citations.
    """
    drawn: list[ShareTable] = []
    one_sided: list[OneSided] = []
    tables = list(tables)
    for table in tables:
        source = _source(table, source_titles)
        pairs = share_pairs(table)
        if pairs:
            drawn.append(
                ShareTable(
                    key=f"{table.case.slug}/{table.slug}",
                    title=table.title,
                    count_of=count_of(table),
                    cost_of=cost_of(table),
                    pairs=tuple(pairs),
                    sources=(source,),
                    secondary=table.status == Confirmation.SECONDARY,
                    notes=table.notes,
                )
            )
        elif table.counted or table.cost_unit:
            gives = "counts" if table.counted and not table.cost_unit else "costs"
            one_sided.append(OneSided(table.title, gives, source))
    drawn.sort(key=lambda t: (t.secondary, -t.top_gap, t.title))
    pooled = pool(tables, source_titles)
    return Lesson(tuple(drawn), tuple(pooled), tuple(callouts(drawn)), tuple(one_sided))


def share_pairs(table: Breakdown) -> list[SharePair]:
    """The rows of a table that give both shares (printed, or computable from the totals),
    highest share of cost first."""
    pairs = []
    for row in prefetched(table, "rows"):
        count = _count_share(table, row)
        cost = _cost_share(table, row)
        if count is None or cost is None:
            continue
        values = tuple(row_values(row))
        pairs.append(
            SharePair(
                label=row.label,
                group=row.group,
                values=values,
                count_share=count,
                cost_share=cost,
                count_bound=row.count_bound,
                cost_bound=row.cost_bound,
                computed=row.count_share is None or row.cost_share is None or row.derived,
                failure=any(BY_FACET[v.facet].failure for v in values),
            )
        )
    return by_cost_share(pairs)


def by_cost_share(pairs: Iterable[SharePair]) -> list[SharePair]:
    """Highest share of cost first; among equals, the rarer by count first."""
    return sorted(pairs, key=lambda p: (-p.cost_share, p.count_share, p.label))


def callouts(tables: Iterable[ShareTable], limit: int = CALLOUTS) -> list[Callout]:
    """The failure categories whose cost share most exceeds their count share, over the tables
    read in their sources (secondary transcriptions and pooled tables are not called out)."""
    found = [
        Callout(pair, table)
        for table in tables
        if not table.secondary and not table.pooled
        for pair in table.pairs
        if pair.failure and pair.gap > 0
    ]
    found.sort(key=lambda c: (-c.pair.gap, -c.pair.cost_share, c.pair.label))
    return found[:limit]


def count_of(table: Breakdown) -> str:
    return table.count_of or (CountUnit(table.counted).label if table.counted else "")


def cost_of(table: Breakdown) -> str:
    return table.cost_of or (f"their {CostUnit(table.cost_unit).label}" if table.cost_unit else "")


def _share(printed: float | None, amount: float | None, total: float | None) -> float | None:
    """A row's share as printed, else computed from its amount and the table's total."""
    if printed is not None:
        return printed
    if amount is not None and total:
        return 100 * amount / total
    return None


def _count_share(table: Breakdown, row: BreakdownRow) -> float | None:
    return _share(row.count_share, row.count, table.count_total)


def _cost_share(table: Breakdown, row: BreakdownRow) -> float | None:
    return _share(row.cost_share, row.cost, table.cost_total)


def _source(table: Breakdown, titles: dict[tuple[int, str], str]) -> TableSource:
    title = titles.get((table.case_id, table.source_url), "")
    return TableSource(table.case.slug, table.case.title, table.source_url, title, table.locator)


# --- pooling --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Amounts:
    """One table's absolute counts and costs per category label, with its totals."""

    table: Breakdown
    counts: dict[str, float]
    costs: dict[str, float]
    labels: dict[str, BreakdownRow]
    count_total: float
    cost_total: float


def _amounts(table: Breakdown) -> _Amounts | None:
    """Absolute counts and costs per label, or None when the table cannot be pooled."""
    if (
        table.status != Confirmation.CONFIRMED
        or not table.counted
        or not table.cost_unit
        or table.cost_unit in SHARE_COST_UNITS
        or not table.count_total
    ):
        return None
    rows = prefetched(table, "rows")
    counts: dict[str, float] = {}
    costs: dict[str, float] = {}
    labels: dict[str, BreakdownRow] = {}
    for row in rows:
        key = row.label.casefold().strip()
        count = row.count if row.count is not None else _times(row.count_share, table.count_total)
        cost = row.cost if row.cost is not None else _times(row.cost_share, table.cost_total)
        if count is None or cost is None:
            return None
        counts[key], costs[key], labels[key] = count, cost, row
    cost_total = table.cost_total or sum(costs.values())
    if not cost_total:
        return None
    return _Amounts(table, counts, costs, labels, table.count_total, cost_total)


def _times(share: float | None, total: float | None) -> float | None:
    return None if share is None or not total else share * total / 100


def pool(tables: Iterable[Breakdown], titles: dict[tuple[int, str], str]) -> list[ShareTable]:
    """One pooled table per (count unit, cost unit) shared by tables of at least two cases."""
    groups: dict[tuple[str, str], list[_Amounts]] = defaultdict(list)
    for table in tables:
        amounts = _amounts(table)
        if amounts is not None:
            groups[(table.counted, table.cost_unit)].append(amounts)
    pooled = []
    for (counted, cost_unit), members in sorted(groups.items()):
        if len({m.table.case_id for m in members}) < 2:
            continue
        shared = set.intersection(*(set(m.counts) for m in members))
        count_total = sum(m.count_total for m in members)
        cost_total = sum(m.cost_total for m in members)
        pairs = []
        for key in shared:
            rows = [m.labels[key] for m in members]
            values = {v.id: v for row in rows for v in row_values(row)}
            pairs.append(
                SharePair(
                    label=rows[0].label,
                    group=rows[0].group,
                    values=tuple(values.values()),
                    count_share=100 * sum(m.counts[key] for m in members) / count_total,
                    cost_share=100 * sum(m.costs[key] for m in members) / cost_total,
                    count_bound="about" if any(r.count_bound for r in rows) else "",
                    cost_bound="about" if any(r.cost_bound for r in rows) else "",
                    computed=True,
                    failure=any(BY_FACET[v.facet].failure for v in values.values()),
                )
            )
        studies = sorted({m.table.case.title for m in members})
        pooled.append(
            ShareTable(
                key=f"pooled/{counted}/{cost_unit}",
                title=(
                    f"{CountUnit(counted).label.capitalize()} by category, pooled over "
                    f"{len(members)} tables from {len(studies)} studies"
                ),
                count_of=f"all {CountUnit(counted).label} of these tables",
                cost_of=f"all their {CostUnit(cost_unit).label}",
                pairs=tuple(by_cost_share(pairs)),
                sources=tuple(_source(m.table, titles) for m in members),
                pooled=True,
            )
        )
    return pooled
