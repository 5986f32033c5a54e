"""The library's entries as plain data, and the errors that name what is wrong in them."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from dataclasses import field

from incidents.facets import FACETS

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
SHARED_KINDS = ("remediations", "action_items", "lessons")
# The keys of a case file: its own fields, one list per facet (the registry's fixture keys) and
# one per kind of shared entry.
CASE_KEYS = {
    "title",
    "kind",
    "setting",
    "period",
    "published",
    "summary",
    "detection",
    "key_figures",
    "costs",
    "breakdowns",
    "sources",
    *(spec.fixture_key for spec in FACETS),
    *SHARED_KINDS,
}


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a library file."""

    file: str
    entry: str | None
    field: str | None
    message: str

    def __str__(self) -> str:
        parts = [self.file]
        if self.entry:
            parts.append(self.entry)
        if self.field:
            parts.append(f"field '{self.field}'")
        return ": ".join(parts) + f": {self.message}"


class LibraryError(Exception):
    """The library files (or their fit with the database) are invalid; nothing was written."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


@dataclass(frozen=True)
class VocabularyEntry:
    facet: str
    slug: str
    name: str
    description: str
    parent: str | None
    aliases: tuple[str, ...]
    file: str
    # How engineers say it (suggestions only), and the name or aliases that are everyday words.
    phrases: tuple[str, ...] = ()
    ambiguous: tuple[str, ...] = ()


@dataclass(frozen=True)
class SharedEntry:
    kind: str  # one of SHARED_KINDS
    slug: str
    text: str
    file: str


@dataclass(frozen=True)
class ItemRef:
    slug: str
    wording: str


@dataclass(frozen=True)
class FigureEntry:
    value: float
    unit: str
    measures: str
    source_url: str


@dataclass(frozen=True)
class CostEntry:
    """One typed cost of a case (fields named as CostFigure's)."""

    kind: str
    value: float
    bound: str
    of: str
    scope: str
    per_occurrence: bool
    derived: bool
    formula: str
    locator: str
    note: str
    source_url: str
    status: str


@dataclass(frozen=True)
class BreakdownRowEntry:
    """One category of a breakdown; `facets` maps a facet to the slugs the row maps to."""

    label: str
    group: str
    facets: dict[str, list[str]]
    count: float | None
    count_share: float | None
    count_bound: str
    cost: float | None
    cost_share: float | None
    cost_bound: str
    derived: bool


@dataclass(frozen=True)
class BreakdownEntry:
    """One breakdown table of a case (fields named as Breakdown's, plus its rows)."""

    slug: str
    title: str
    counted: str
    count_of: str
    count_total: float | None
    cost_unit: str
    cost_of: str
    cost_total: float | None
    source_url: str
    locator: str
    status: str
    derived: bool
    method: str
    notes: str
    rows: list[BreakdownRowEntry]


@dataclass(frozen=True)
class SourceEntry:
    url: str
    kind: str
    title: str
    archived_url: str


@dataclass(frozen=True)
class PeriodPoint:
    date: dt.date
    precision: str


@dataclass
class CaseEntry:
    slug: str
    file: str
    title: str
    summary: str
    detection: str
    kind: str
    setting: str
    period_start: PeriodPoint | None
    period_end: PeriodPoint | None
    published: PeriodPoint | None
    facets: dict[str, list[str]]  # facet -> slugs, in file order
    items: dict[str, list[ItemRef]]  # shared kind -> refs, in file order
    key_figures: list[FigureEntry]
    costs: list[CostEntry]
    sources: list[SourceEntry]
    breakdowns: list[BreakdownEntry] = field(default_factory=list)


@dataclass
class LibraryData:
    """Everything read from the files, validated on its own (references not yet resolved)."""

    vocabulary: list[VocabularyEntry] = field(default_factory=list)
    shared: list[SharedEntry] = field(default_factory=list)
    cases: list[CaseEntry] = field(default_factory=list)
