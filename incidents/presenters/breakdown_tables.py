"""A breakdown table as a page prints it: every number with its bound, and what does not add up.

Used by the case card and the cost view. The checks are computed from the stored numbers, so a
source that contradicts itself (Llama 3's "Faulty GPU 148 / 30.1%" of 419) says so on the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from incidents.amounts import amount
from incidents.amounts import bounded
from incidents.amounts import percent
from incidents.models import Breakdown
from incidents.models import BreakdownRow
from incidents.models import Confirmation
from incidents.models import CostUnit
from incidents.models import CountUnit
from incidents.selectors.prefetch import prefetched

# A printed share and the share its count gives may differ by rounding; more than this is a
# disagreement worth showing.
MISMATCH_POINTS = 1.0


@dataclass(frozen=True)
class RowView:
    label: str
    group: str
    values: list[Any]
    count: str
    count_share: str
    cost: str
    cost_share: str
    derived: bool
    mismatch: str


@dataclass(frozen=True)
class TableView:
    table: Breakdown
    rows: list[RowView]
    count_unit: str
    cost_unit: str
    show: dict[str, bool]  # which columns the table has
    checks: list[str]
    secondary: bool
    source_number: int | None


def _text(value: float | None, bound: str, *, share: bool = False) -> str:
    if value is None:
        return ""
    return bounded(percent(value) if share else amount(value), bound)


def _mismatch(table: Breakdown, row: BreakdownRow) -> str:
    if row.count is None or row.count_share is None or not table.count_total:
        return ""
    computed = 100 * row.count / table.count_total
    if abs(computed - row.count_share) <= MISMATCH_POINTS:
        return ""
    return (
        f"{amount(row.count)} of {amount(table.count_total)} is {computed:.1f}%, "
        f"but the source prints {percent(row.count_share)}"
    )


def _checks(table: Breakdown, rows: list[BreakdownRow]) -> list[str]:
    """Sums that do not come to what the table says they should."""
    checks = []
    shares = [r.count_share for r in rows]
    counts = [r.count for r in rows]
    complete = (
        table.count_total is not None
        and all(c is not None for c in counts)
        and abs(sum(c or 0 for c in counts) - table.count_total) < 0.5
    )
    if complete and all(s is not None for s in shares):
        total = sum(s or 0 for s in shares)
        if abs(total - 100) > MISMATCH_POINTS:
            checks.append(
                f"The rows cover all {amount(table.count_total or 0)} "
                f"{CountUnit(table.counted).label}, yet their printed shares by count sum to "
                f"{amount(round(total, 2))}%, not 100%."
            )
    return checks


def table_view(table: Breakdown, source_number: int | None = None) -> TableView:
    """The rows of a table read by a selector (rows and values prefetched), ready to print."""
    rows = prefetched(table, "rows")
    views = [
        RowView(
            label=row.label,
            group=row.group,
            values=[link.value for link in prefetched(row, "value_links")],
            count=_text(row.count, row.count_bound if row.count_share is None else ""),
            count_share=_text(row.count_share, row.count_bound, share=True),
            cost=_text(row.cost, row.cost_bound if row.cost_share is None else ""),
            cost_share=_text(row.cost_share, row.cost_bound, share=True),
            derived=row.derived,
            mismatch=_mismatch(table, row),
        )
        for row in rows
    ]
    show = {
        "group": any(r.group for r in rows),
        "count": any(r.count is not None for r in rows),
        "count_share": any(r.count_share is not None for r in rows),
        "cost": any(r.cost is not None for r in rows),
        "cost_share": any(r.cost_share is not None for r in rows),
    }
    return TableView(
        table=table,
        rows=views,
        count_unit=CountUnit(table.counted).label if table.counted else "",
        cost_unit=CostUnit(table.cost_unit).label if table.cost_unit else "",
        show=show,
        checks=_checks(table, rows),
        secondary=table.status == Confirmation.SECONDARY,
        source_number=source_number,
    )
