"""Writing one case of the library: its fields, facet links, sources, figures, costs, breakdowns
and shared items, compared with what is stored so that loading twice changes nothing."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict
from typing import Any

from incidents.models import CASE_ITEM_LINKS
from incidents.models import Breakdown
from incidents.models import BreakdownRow
from incidents.models import BreakdownRowValue
from incidents.models import Case
from incidents.models import CaseFacetLink
from incidents.models import CostFigure
from incidents.models import FacetValue
from incidents.models import KeyFigure
from incidents.models import Source
from incidents.models.breakdowns import BREAKDOWN_FIELDS
from incidents.models.breakdowns import ROW_FIELDS
from incidents.models.costs import COST_FIELDS
from incidents.services.library_entries import BreakdownEntry
from incidents.services.library_entries import CaseEntry

# The fields of Case a case file sets (the rest are derived or kept by the database).
CASE_FIELDS = (
    "title",
    "summary",
    "detection",
    "kind",
    "setting",
    "period_start",
    "period_start_precision",
    "period_end",
    "period_end_precision",
    "published",
    "published_precision",
)


def _case_state(case: Case) -> dict[str, Any]:
    """The stored case in the same shape as `_entry_state`, to tell whether a load changes it."""
    return {
        "fields": _fields(case, CASE_FIELDS),
        "direct": sorted(
            case.links.filter(direct=True).values_list("value_id", flat=True)  # type: ignore[attr-defined]
        ),
        "sources": [
            (s.url, s.kind, s.title, s.archived_url)
            for s in case.sources.order_by("position")  # type: ignore[attr-defined]
        ],
        "figures": [
            (f.value, f.unit, f.measures, f.source_url)
            for f in case.key_figures.order_by("position")  # type: ignore[attr-defined]
        ],
        "costs": [
            _cost_state(c)
            for c in case.costs.order_by("position")  # type: ignore[attr-defined]
        ],
        "breakdowns": [
            _breakdown_state(b)
            for b in case.breakdowns.order_by("position").prefetch_related(  # type: ignore[attr-defined]
                "rows__value_links"
            )
        ],
        **{
            kind: [
                (link.item_id, link.wording)
                for link in model.objects.filter(case=case).order_by("position")
            ]
            for kind, model in CASE_ITEM_LINKS.items()
        },
    }


def _values(obj: object, names: tuple[str, ...]) -> tuple[Any, ...]:
    """The named attributes of a stored row or of an entry (their fields are named alike)."""
    return tuple(getattr(obj, name) for name in names)


def _fields(obj: object, names: tuple[str, ...]) -> dict[str, Any]:
    return dict(zip(names, _values(obj, names), strict=True))


def _cost_state(cost: object) -> tuple[Any, ...]:
    return _values(cost, COST_FIELDS)


def _table_state(table: object, rows: Iterable[tuple[object, Iterable[int]]]) -> tuple[Any, ...]:
    """A breakdown's fields and, per row, its fields and the ids of its facet values."""
    return (
        *_values(table, BREAKDOWN_FIELDS),
        [(*_values(row, ROW_FIELDS), sorted(ids)) for row, ids in rows],
    )


def _breakdown_state(table: Breakdown) -> tuple[Any, ...]:
    rows = sorted(table.rows.all(), key=lambda r: r.position)
    return _table_state(
        table, ((row, (link.value_id for link in row.value_links.all())) for row in rows)
    )


def _entry_breakdown_state(
    table: BreakdownEntry, values: dict[tuple[str, str], FacetValue]
) -> tuple[Any, ...]:
    return _table_state(table, ((row, _value_ids(row.facets, values)) for row in table.rows))


def _value_ids(
    facets: dict[str, list[str]], values: dict[tuple[str, str], FacetValue]
) -> list[int]:
    """The ids of the facet values an entry names by facet and slug."""
    return [values[(facet, slug)].id for facet, slugs in facets.items() for slug in slugs]


def _replace_breakdowns(
    case: Case, tables: list[BreakdownEntry], values: dict[tuple[str, str], FacetValue]
) -> None:
    """Replace a case's breakdown tables, their rows and the rows' facet values."""
    Breakdown.objects.filter(case=case).delete()
    for position, table in enumerate(tables):
        stored = Breakdown.objects.create(
            case=case, position=position, **_fields(table, BREAKDOWN_FIELDS)
        )
        rows = BreakdownRow.objects.bulk_create(
            BreakdownRow(
                breakdown=stored,
                position=index,
                **_fields(row, ROW_FIELDS),
            )
            for index, row in enumerate(table.rows)
        )
        BreakdownRowValue.objects.bulk_create(
            BreakdownRowValue(row=stored_row, value_id=value_id)
            for stored_row, row in zip(rows, table.rows, strict=True)
            for value_id in _value_ids(row.facets, values)
        )


def _entry_state(
    entry: CaseEntry,
    values: dict[tuple[str, str], FacetValue],
    shared: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    start, end, published = entry.period_start, entry.period_end, entry.published
    return {
        "fields": {
            "title": entry.title,
            "summary": entry.summary,
            "detection": entry.detection,
            "kind": entry.kind,
            "setting": entry.setting,
            "period_start": start.date if start else None,
            "period_start_precision": start.precision if start else "day",
            "period_end": end.date if end else None,
            "period_end_precision": end.precision if end else "day",
            "published": published.date if published else None,
            "published_precision": published.precision if published else "day",
        },
        "direct": sorted(_value_ids(entry.facets, values)),
        "sources": [(s.url, s.kind, s.title, s.archived_url) for s in entry.sources],
        "figures": [(f.value, f.unit, f.measures, f.source_url) for f in entry.key_figures],
        "costs": [_cost_state(c) for c in entry.costs],
        "breakdowns": [_entry_breakdown_state(b, values) for b in entry.breakdowns],
        **{
            kind: [(shared[kind][ref.slug].id, ref.wording) for ref in refs]
            for kind, refs in entry.items.items()
        },
    }


def apply_case(
    entry: CaseEntry,
    values: dict[tuple[str, str], FacetValue],
    shared: dict[str, dict[str, Any]],
) -> str:
    """Write one case and its rows unless they already match the entry: "created", "updated"
    or "unchanged"."""
    wanted = _entry_state(entry, values, shared)
    case = Case.objects.filter(slug=entry.slug).first()
    if case is not None and _case_state(case) == wanted:
        return "unchanged"
    outcome = "created" if case is None else "updated"
    if case is None:
        case = Case(slug=entry.slug)
    for name, value in wanted["fields"].items():
        setattr(case, name, value)
    case.save()
    _replace_rows(CaseFacetLink, case, [{"value_id": v, "direct": True} for v in wanted["direct"]])
    # The entries' fields are named as the models' are.
    _replace_rows(Source, case, [{"position": i, **asdict(s)} for i, s in enumerate(entry.sources)])
    figures = [{"position": i, **asdict(f)} for i, f in enumerate(entry.key_figures)]
    _replace_rows(KeyFigure, case, figures)
    _replace_rows(
        CostFigure, case, [{"position": i, **asdict(c)} for i, c in enumerate(entry.costs)]
    )
    _replace_breakdowns(case, entry.breakdowns, values)
    for kind, model in CASE_ITEM_LINKS.items():
        refs = entry.items[kind]
        items = [
            {"item": shared[kind][ref.slug], "position": i, "wording": ref.wording}
            for i, ref in enumerate(refs)
        ]
        _replace_rows(model, case, items)
    return outcome


def _replace_rows(model: Any, case: Case, rows: list[dict[str, Any]]) -> None:
    """Replace a case's rows of one model with the given field values."""
    model.objects.filter(case=case).delete()
    model.objects.bulk_create(model(case=case, **row) for row in rows)
