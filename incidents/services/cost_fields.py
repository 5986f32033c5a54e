"""Reading a case's typed costs (`costs:`) with the rules of a case file.

A cost has a kind (one of CostKind), a value in that kind's unit, an optional bound, where in the
source it is (`locator`), and, when the library computed it, `derived: true` with the formula.
Shares need the whole they are a share of (`of`). The old `cost:` mapping mixed a training job's
lost hours with a service's outage; it is refused with a message saying what replaced it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING
from typing import Any

from incidents.models import Bound
from incidents.models import Confirmation
from incidents.models import CostKind
from incidents.models.costs import COST_FIELDS
from incidents.services.field_lists import ListOf
from incidents.services.field_lists import case_file_keys
from incidents.services.library_entries import CostEntry

if TYPE_CHECKING:
    from incidents.services.case_fields import FieldReader

COST_KEYS = case_file_keys(COST_FIELDS)
COSTS = ListOf(
    "costs",
    COST_KEYS,
    "{kind, value, source, locator, ...} entries",
    "kind, value, source and locator",
)
LEGACY_COST_KEY = "cost"
LEGACY_COST_MESSAGE = (
    "the `cost:` mapping was replaced by a `costs:` list of typed figures (kind, value, source, "
    f"locator; kinds: {', '.join(CostKind.values)}); see fixtures/README.md"
)
SHARE_KINDS = (CostKind.GPU_TIME_SHARE,)


def flag(c: FieldReader, data: dict[str, Any], key: str, where: str) -> bool:
    """A yes/no field; absent means no."""
    value = data.get(key, False)
    if not isinstance(value, bool):
        c.add(f"{where}.{key}", f"{value!r} is not true or false")
        return False
    return value


def optional_choice(
    c: FieldReader, data: dict[str, Any], key: str, choices: Iterable[str], where: str
) -> str:
    """A field whose value, when given, is one of `choices`; absent gives ""."""
    value = data.get(key)
    if value is None or value == "":
        return ""
    allowed = list(choices)
    if value not in allowed:
        c.add(f"{where}.{key}", f"{value!r} is not one of {', '.join(allowed)}")
        return ""
    return str(value)


def share(c: FieldReader, value: Any, fieldname: str) -> float | None:
    """A percentage, 0 to 100."""
    number = c.number(value, fieldname)
    if number is not None and number > 100:
        c.add(fieldname, f"{value!r} is a share above 100%")
        return None
    return number


def status_and_note(
    c: FieldReader, data: dict[str, Any], where: str, note: str, note_key: str
) -> str:
    """The entry's confirmation; a secondary one must say in its note where it was read."""
    status = (
        optional_choice(c, data, "status", Confirmation.values, where) or Confirmation.CONFIRMED
    )
    if status == Confirmation.SECONDARY and not note:
        c.add(
            f"{where}.{note_key}",
            "is required when status is secondary: say which transcription the numbers come from",
        )
    return status


def read_costs(c: FieldReader, raw: dict[str, Any], source_urls: set[str]) -> list[CostEntry]:
    """The case's `costs:` list, each citing one of the case's sources."""
    if LEGACY_COST_KEY in raw:
        c.add(LEGACY_COST_KEY, LEGACY_COST_MESSAGE)
    costs: list[CostEntry] = []
    for where, item in COSTS.items(c, raw.get("costs")):
        entry = _cost(c, item, where, source_urls)
        if entry is not None:
            costs.append(entry)
    return costs


def _cost(
    c: FieldReader,
    item: dict[str, Any],
    where: str,
    source_urls: set[str],
) -> CostEntry | None:
    kind = item.get("kind")
    if kind is None or kind == "":  # a form's unchosen select, a file's missing key
        c.add(f"{where}.kind", f"is required: one of {', '.join(CostKind.values)}")
    elif kind not in CostKind.values:
        c.add(f"{where}.kind", f"{kind!r} is not one of {', '.join(CostKind.values)}")
        kind = None
    if kind in SHARE_KINDS:
        number = share(c, item.get("value"), f"{where}.value")
    else:
        number = c.number(item.get("value"), f"{where}.value")
    of = c.text(item, "of", where=where, required=kind in SHARE_KINDS, max_len=300)
    derived = flag(c, item, "derived", where)
    formula = c.text(item, "formula", where=where, required=derived, max_len=300)
    if formula and not derived:
        c.add(f"{where}.formula", "is given, so the figure is derived: add `derived: true`")
    note = c.text(item, "note", where=where, required=False, max_len=500)
    entry = CostEntry(
        kind=str(kind or ""),
        value=number or 0.0,
        bound=optional_choice(c, item, "bound", Bound.values, where),
        of=of,
        scope=c.text(item, "scope", where=where, required=False, max_len=300),
        per_occurrence=flag(c, item, "per_occurrence", where),
        derived=derived,
        formula=formula,
        locator=c.text(item, "locator", where=where, required=True, max_len=300),
        note=note,
        source_url=c.cited_source(item.get("source"), f"{where}.source", source_urls),
        status=status_and_note(c, item, where, note, "note"),
    )
    if kind is None or number is None or not entry.source_url or not entry.locator:
        return None
    return entry
