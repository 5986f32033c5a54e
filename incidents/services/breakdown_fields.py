"""Reading a case's failure breakdowns (`breakdowns:`) with the rules of a case file.

A breakdown is a table as its source prints it: what one count is (`counted`), what its costs are
measured in (`cost_unit`), the source and where in it (`locator`), and rows with the source's own
labels. The rules: units from the known lists, every row with at least one number, shares within
0-100 whose sum is at most 100 within SHARE_TOLERANCE (printed shares are rounded), counts and costs
within the table's totals, and a row's numbers only on the sides the table has. That facet values
exist is checked against the database when the library is loaded (`library_load`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

from incidents.facets import FACETS
from incidents.models import SHARE_COST_UNITS
from incidents.models import Bound
from incidents.models import CostUnit
from incidents.models import CountUnit
from incidents.models.breakdowns import BREAKDOWN_FIELDS
from incidents.models.breakdowns import ROW_FIELDS
from incidents.services.cost_fields import flag
from incidents.services.cost_fields import optional_choice
from incidents.services.cost_fields import share
from incidents.services.cost_fields import status_and_note
from incidents.services.field_lists import ListOf
from incidents.services.field_lists import case_file_keys
from incidents.services.library_entries import BreakdownEntry
from incidents.services.library_entries import BreakdownRowEntry

if TYPE_CHECKING:
    from incidents.services.case_fields import FieldReader

# Printed shares are rounded: a column may sum to a little over 100 (49.7 + 7.5 + 42.9 = 100.1).
SHARE_TOLERANCE = 0.5  # percentage points
BREAKDOWN_KEYS = case_file_keys(BREAKDOWN_FIELDS, "rows")
ROW_KEYS = case_file_keys(ROW_FIELDS, "maps_to")
BREAKDOWNS = ListOf(
    "breakdowns",
    BREAKDOWN_KEYS,
    "tables (slug, title, source, locator, rows)",
    "slug, title, source, locator and rows",
)
MAPS_TO_KEYS = {spec.fixture_key: spec.facet for spec in FACETS}


def read_breakdowns(c: FieldReader, value: Any, source_urls: set[str]) -> list[BreakdownEntry]:
    """The case's `breakdowns:` list; every problem names its table, row and field."""
    tables: list[BreakdownEntry] = []
    for where, item in BREAKDOWNS.items(c, value):
        table = _table(c, item, where, source_urls)
        if table is None:
            continue
        if any(t.slug == table.slug for t in tables):
            c.add(f"{where}.slug", f"{table.slug!r} is used by another table of this case")
            continue
        tables.append(table)
    return tables


def _optional_total(c: FieldReader, item: dict[str, Any], key: str, where: str) -> float | None:
    if item.get(key) is None:
        return None
    number = c.number(item.get(key), f"{where}.{key}")
    if number == 0:
        c.add(f"{where}.{key}", "must be more than 0")
        return None
    return number


def _table(
    c: FieldReader, item: dict[str, Any], where: str, source_urls: set[str]
) -> BreakdownEntry | None:
    before = len(c.problems)
    slug = c.slug(item.get("slug"), f"{where}.slug")
    counted = optional_choice(c, item, "counted", CountUnit.values, where)
    cost_unit = optional_choice(c, item, "cost_unit", CostUnit.values, where)
    if item.get("counted") is None and item.get("cost_unit") is None:
        c.add(where, "needs `counted` (what one count is), `cost_unit`, or both")
    derived = flag(c, item, "derived", where)
    notes = c.text(item, "notes", where=where, required=False)
    table = BreakdownEntry(
        slug=slug,
        title=c.text(item, "title", where=where, required=True, max_len=250),
        counted=counted,
        count_of=c.text(item, "count_of", where=where, required=False, max_len=300),
        count_total=_optional_total(c, item, "count_total", where),
        cost_unit=cost_unit,
        cost_of=c.text(item, "cost_of", where=where, required=False, max_len=300),
        cost_total=_optional_total(c, item, "cost_total", where),
        source_url=c.cited_source(item.get("source"), f"{where}.source", source_urls),
        locator=c.text(item, "locator", where=where, required=True, max_len=300),
        status=status_and_note(c, item, where, notes, "notes"),
        derived=derived,
        method=c.text(item, "method", where=where, required=derived),
        notes=notes,
        rows=[],
    )
    rows = item.get("rows")
    if not isinstance(rows, list) or not rows:
        c.add(f"{where}.rows", "is required (a list of at least one row)")
        return None
    for index, row in enumerate(rows):
        entry = _row(c, row, f"{where}.rows[{index}]", table)
        if entry is not None:
            table.rows.append(entry)
    _check_sums(c, table, where)
    return table if len(c.problems) == before else None


def _row(c: FieldReader, row: Any, where: str, table: BreakdownEntry) -> BreakdownRowEntry | None:
    if not isinstance(row, dict):
        c.add(where, "must be a mapping with label and at least one number")
        return None
    c.unknown_keys(row, ROW_KEYS, prefix=f"{where}.")

    def number(key: str, *, is_share: bool) -> float | None:
        if row.get(key) is None:
            return None
        fieldname = f"{where}.{key}"
        return share(c, row[key], fieldname) if is_share else c.number(row[key], fieldname)

    entry = BreakdownRowEntry(
        label=c.text(row, "label", where=where, required=True, max_len=200),
        group=c.text(row, "group", where=where, required=False, max_len=100),
        facets=_maps_to(c, row.get("maps_to"), f"{where}.maps_to"),
        count=number("count", is_share=False),
        count_share=number("count_share", is_share=True),
        count_bound=optional_choice(c, row, "count_bound", Bound.values, where),
        cost=number("cost", is_share=False),
        cost_share=number("cost_share", is_share=True),
        cost_bound=optional_choice(c, row, "cost_bound", Bound.values, where),
        derived=flag(c, row, "derived", where),
    )
    numbers = {k: getattr(entry, k) for k in ("count", "count_share", "cost", "cost_share")}
    if all(v is None for v in numbers.values()) and not any(
        row.get(k) is not None for k in numbers
    ):
        c.add(where, "needs at least one number: count, count_share, cost or cost_share")
    if not table.counted and (row.get("count") is not None or row.get("count_share") is not None):
        c.add(f"{where}.count", "the table has no `counted` unit, so its rows give no counts")
    if not table.cost_unit and (row.get("cost") is not None or row.get("cost_share") is not None):
        c.add(f"{where}.cost", "the table has no `cost_unit`, so its rows give no costs")
    if table.cost_unit in SHARE_COST_UNITS and row.get("cost") is not None:
        c.add(f"{where}.cost", f"the cost unit is {table.cost_unit}: give `cost_share`, not `cost`")
    sides = {"count_bound": ("count", "count_share"), "cost_bound": ("cost", "cost_share")}
    for bound, side in sides.items():
        if row.get(bound) and all(row.get(k) is None for k in side):
            c.add(
                f"{where}.{bound}", f"bounds a number the row does not give ({' or '.join(side)})"
            )
    total = table.count_total
    if total is not None and entry.count is not None and entry.count > total:
        c.add(f"{where}.count", f"{entry.count:g} is more than the table's count_total")
    return entry


def _maps_to(c: FieldReader, value: Any, where: str) -> dict[str, list[str]]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        c.add(where, f"must map facet keys ({', '.join(MAPS_TO_KEYS)}) to lists of slugs")
        return {}
    facets: dict[str, list[str]] = {}
    for key, slugs in value.items():
        if key not in MAPS_TO_KEYS:
            c.add(f"{where}.{key}", f"is not one of {', '.join(MAPS_TO_KEYS)}")
            continue
        if not isinstance(slugs, list) or not slugs:
            c.add(f"{where}.{key}", "must be a list of at least one slug")
            continue
        facets[MAPS_TO_KEYS[key]] = [
            s for i, item in enumerate(slugs) if (s := c.slug(item, f"{where}.{key}[{i}]"))
        ]
    return facets


def _check_sums(c: FieldReader, table: BreakdownEntry, where: str) -> None:
    """Shares sum to at most 100 (within the tolerance); counts and costs to at most their totals."""
    for key in ("count_share", "cost_share"):
        values = [getattr(r, key) for r in table.rows if getattr(r, key) is not None]
        if sum(values) > 100 + SHARE_TOLERANCE:
            c.add(
                f"{where}.rows",
                f"the rows' {key} values sum to {sum(values):g}, more than 100 "
                f"(a tolerance of {SHARE_TOLERANCE:g} points allows for rounding)",
            )
    for key, total in (("count", table.count_total), ("cost", table.cost_total)):
        values = [getattr(r, key) for r in table.rows if getattr(r, key) is not None]
        if total is not None and sum(values) > total * (1 + 1e-9) + 0.01:
            c.add(
                f"{where}.rows",
                f"the rows' {key} values sum to {sum(values):g}, more than {key}_total {total:g}",
            )
