"""Reading one case's fields with the rules of a case file; every problem names its field."""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

from incidents.facets import FACETS
from incidents.facets import ORGANISATION
from incidents.models import CaseKind
from incidents.models import DatePrecision
from incidents.models import Setting
from incidents.models import SourceKind
from incidents.services.breakdown_fields import read_breakdowns
from incidents.services.cost_fields import LEGACY_COST_KEY
from incidents.services.cost_fields import read_costs
from incidents.services.field_lists import ListOf
from incidents.services.field_lists import list_items
from incidents.services.library_entries import CASE_KEYS
from incidents.services.library_entries import SHARED_KINDS
from incidents.services.library_entries import SLUG_RE
from incidents.services.library_entries import CaseEntry
from incidents.services.library_entries import FigureEntry
from incidents.services.library_entries import ItemRef
from incidents.services.library_entries import LibraryError
from incidents.services.library_entries import PeriodPoint
from incidents.services.library_entries import Problem
from incidents.services.library_entries import SourceEntry

_url_validator = URLValidator(schemes=["http", "https"])
# The columns' lengths (incidents/models), enforced here so that both databases refuse alike.
SLUG_MAX = 100
URL_MAX = 500
ARCHIVED_URL_MAX = 600
UNIT_MAX = 40
# NUL and other control characters: PostgreSQL refuses NUL in text, and none belongs in a case.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
SOURCES = ListOf(
    "sources",
    frozenset({"url", "kind", "title", "archived_url"}),
    "sources",
    "url, kind, title, archived_url",
)
KEY_FIGURES = ListOf(
    "key_figures",
    frozenset({"value", "unit", "measures", "source"}),
    "{value, unit, measures, source}",
    "value, unit, measures, source",
)


class FieldReader:
    """Reads typed fields of one entry, collecting a Problem (file, entry, field) for each mistake."""

    def __init__(self, problems: list[Problem], file: str, entry: str | None) -> None:
        self.problems, self.file, self.entry = problems, file, entry

    def add(self, fieldname: str | None, message: str) -> None:
        self.problems.append(Problem(self.file, self.entry, fieldname, message))

    def text(
        self,
        data: dict[str, Any],
        key: str,
        *,
        required: bool,
        max_len: int = 0,
        where: str = "",
    ) -> str:
        """A text field; `where` prefixes its name in problems (for a field of a nested entry)."""
        name = f"{where}.{key}" if where else key
        raw = data.get(key)
        blank = raw is None or (isinstance(raw, str) and not raw.strip())
        value = self.given(raw, name, blank=blank, required=required, noun="text")
        return "" if value is None else self.words(value, name, max_len=max_len)

    def given(self, value: Any, name: str, *, blank: bool, required: bool, noun: str) -> str | None:
        """A field's string, or None: when `blank` (the caller's test of an empty value), noting
        "is required" if it is; when it is no string, noting that it must be `noun`."""
        if blank:
            if required:
                self.add(name, "is required")
            return None
        if not isinstance(value, str):
            self.add(name, f"must be {noun}, not {type(value).__name__}")
            return None
        return value

    def within(self, value: str, name: str, max_len: int) -> bool:
        """Whether `value` is at most `max_len` characters long (0: any length); if not, noted."""
        if max_len and len(value) > max_len:
            self.add(name, f"is {len(value)} characters long; at most {max_len} allowed")
            return False
        return True

    def words(self, value: str, name: str, *, max_len: int = 0) -> str:
        """Text as stored: one line's spaces collapsed, no control characters, within max_len."""
        value = " ".join(value.split()) if "\n" not in value.strip() else value.strip()
        if _CONTROL.search(value):
            self.add(name, "holds a control character (such as NUL); remove it")
            return ""
        return value if self.within(value, name, max_len) else ""

    def choice(self, data: dict[str, Any], key: str, choices: Iterable[str], default: str) -> str:
        value = data.get(key, default)
        allowed = list(choices)
        if value not in allowed:
            self.add(key, f"{value!r} is not one of {', '.join(allowed)}")
            return default
        return str(value)

    def url(
        self, value: Any, fieldname: str, *, required: bool = True, max_len: int = URL_MAX
    ) -> str:
        blank = value is None or value == ""
        url = self.given(value, fieldname, blank=blank, required=required, noun="a URL")
        if url is None or not self.within(url, fieldname, max_len):
            return ""
        try:
            _url_validator(url)
        except ValidationError:
            self.add(fieldname, f"{url!r} is not a valid http(s) URL")
            return ""
        return url

    def cited_source(self, value: Any, fieldname: str, source_urls: set[str]) -> str:
        """A URL that must be one of the case's sources (a figure, cost or table cites it)."""
        url = self.url(value, fieldname)
        if url and url not in source_urls:
            self.add(fieldname, f"{url!r} is not one of the case's sources")
            return ""
        return url

    def slug(self, value: Any, fieldname: str) -> str:
        if not isinstance(value, str) or not SLUG_RE.match(value):
            shown = (
                f"{value[:60]!r}..." if isinstance(value, str) and len(value) > 60 else repr(value)
            )
            self.add(fieldname, f"{shown} is not a slug (lower-case letters, digits, hyphens)")
            return ""
        return value if self.within(value, fieldname, SLUG_MAX) else ""

    def number(self, value: Any, fieldname: str) -> float | None:
        """A finite number, zero or more (NaN, infinities and overflowing numbers refused)."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.add(fieldname, f"{value!r} is not a number")
            return None
        try:
            number = float(value)
        except OverflowError:
            self.add(fieldname, "is too large a number")
            return None
        if not math.isfinite(number):
            self.add(fieldname, f"{value!r} is not a finite number")
            return None
        if number < 0:
            self.add(fieldname, f"{value!r} is negative")
            return None
        return number

    def unknown_keys(self, data: dict[str, Any], allowed: Iterable[str], prefix: str = "") -> None:
        for key in sorted(set(data) - set(allowed), key=str):
            self.add(f"{prefix}{key}", "is not a known field")


def read_case_collecting(
    slug: str, raw: dict[str, Any], *, display: str
) -> tuple[CaseEntry, list[Problem]]:
    """Read one case given as a mapping in the case-file format (say, built from a web form or
    an API body) with exactly the rules of a case file: the entry (what was valid of it) and
    every problem of its format. Its references are the loader's to check (`load_entries` with
    these problems as `found`), so that one answer lists both, as `load_cases` does."""
    problems: list[Problem] = []
    c = FieldReader(problems, display, f"case '{slug}'")
    c.slug(slug, "slug")
    return case_entry(c, slug, display, raw), problems


def read_case_mapping(slug: str, raw: dict[str, Any], *, display: str) -> CaseEntry:
    """read_case_collecting, raising LibraryError listing every problem of the format."""
    entry, problems = read_case_collecting(slug, raw, display=display)
    if problems:
        raise LibraryError(problems)
    return entry


def case_entry(c: FieldReader, slug: str, display: str, raw: dict[str, Any]) -> CaseEntry:
    """Read every field of a case mapping; problems go to `c`, and the entry keeps what was valid."""
    c.unknown_keys(raw, CASE_KEYS | {LEGACY_COST_KEY})
    sources = _read_sources(c, raw.get("sources"))
    source_urls = {s.url for s in sources}
    period = raw.get("period")
    start = end = published = None
    if raw.get("published") is not None:
        published = _read_period_point(c, raw.get("published"), "published")
    if period is None:
        if published is None and raw.get("published") is None:
            c.add(
                "period",
                "or `published` is required: give the dates a source states for the events, or, "
                "when no source dates them, when the main source was published",
            )
    elif not isinstance(period, dict) or "start" not in period:
        c.add("period.start", "is required (YYYY, YYYY-MM or YYYY-MM-DD)")
    else:
        c.unknown_keys(period, {"start", "end"}, prefix="period.")
        start = _read_period_point(c, period.get("start"), "period.start")
        if period.get("end") is not None:
            end = _read_period_point(c, period.get("end"), "period.end")
        if start and end and end.date < start.date:
            c.add("period.end", f"{end.date} is before the start {start.date}")
    facets: dict[str, list[str]] = {}
    for spec in FACETS:
        facets[spec.facet] = _read_slug_list(c, raw.get(spec.fixture_key), spec.fixture_key)
    if not facets[ORGANISATION.facet]:
        c.add(ORGANISATION.fixture_key, "is required (at least one organisation slug)")
    items = {kind: _read_item_refs(c, raw.get(kind), kind) for kind in SHARED_KINDS}
    entry = CaseEntry(
        slug=slug,
        file=display,
        title=c.text(raw, "title", required=True, max_len=250),
        summary=c.text(raw, "summary", required=True),
        detection=c.text(raw, "detection", required=False),
        kind=c.choice(raw, "kind", CaseKind.values, CaseKind.INCIDENT),
        setting=c.choice(raw, "setting", Setting.values, Setting.TRAINING),
        period_start=start,
        period_end=end,
        published=published,
        facets=facets,
        items=items,
        key_figures=_read_figures(c, raw.get("key_figures"), source_urls),
        costs=read_costs(c, raw, source_urls),
        sources=sources,
        breakdowns=read_breakdowns(c, raw.get("breakdowns"), source_urls),
    )
    return entry


def _read_period_point(c: FieldReader, value: Any, fieldname: str) -> PeriodPoint | None:
    if isinstance(value, dt.datetime):
        value = value.date()
    if isinstance(value, dt.date):
        if value > dt.date.today():
            c.add(fieldname, f"'{value.isoformat()}' is in the future")
            return None
        return PeriodPoint(value, DatePrecision.DAY)
    text = str(value) if isinstance(value, int | str) else ""
    match = re.fullmatch(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?", text)
    if match:
        year, month, day = match.groups()
        try:
            date = dt.date(int(year), int(month or 1), int(day or 1))
        except ValueError as exc:
            c.add(fieldname, f"{text!r} is not a real date ({exc})")
            return None
        if date > dt.date.today():  # a mistyped year would lead "newest first" and the feed
            c.add(fieldname, f"{text!r} is in the future")
            return None
        precision = (
            DatePrecision.DAY if day else DatePrecision.MONTH if month else DatePrecision.YEAR
        )
        return PeriodPoint(date, precision)
    c.add(fieldname, f"{value!r} is not YYYY, YYYY-MM or YYYY-MM-DD")
    return None


def _read_slug_list(c: FieldReader, value: Any, fieldname: str) -> list[str]:
    slugs: list[str] = []
    for index, item in enumerate(list_items(c, value, fieldname, "a list of slugs")):
        slug = c.slug(item, f"{fieldname}[{index}]")
        if slug in slugs:
            c.add(f"{fieldname}[{index}]", f"{slug!r} is listed twice")
        elif slug:
            slugs.append(slug)
    return slugs


def _read_item_refs(c: FieldReader, value: Any, fieldname: str) -> list[ItemRef]:
    refs: list[ItemRef] = []
    for index, item in enumerate(
        list_items(c, value, fieldname, "a list of {ref, wording} entries")
    ):
        where = f"{fieldname}[{index}]"
        if isinstance(item, str):
            item = {"ref": item}
        if not isinstance(item, dict):
            c.add(where, "must be a mapping with ref and optional wording")
            continue
        c.unknown_keys(item, {"ref", "wording"}, prefix=f"{where}.")
        slug = c.slug(item.get("ref"), f"{where}.ref")
        wording = c.text(item, "wording", required=False)
        if slug and any(r.slug == slug for r in refs):
            c.add(f"{where}.ref", f"{slug!r} is listed twice")
        elif slug:
            refs.append(ItemRef(slug, wording))
    return refs


def _read_sources(c: FieldReader, value: Any) -> list[SourceEntry]:
    if not isinstance(value, list) or not value:
        c.add("sources", "is required (a list of at least one source with a url)")
        return []
    sources: list[SourceEntry] = []
    for where, item in SOURCES.items(c, value):
        url = c.url(item.get("url"), f"{where}.url")
        kind = item.get("kind", SourceKind.PRIMARY)
        if kind not in SourceKind.values:
            c.add(f"{where}.kind", f"{kind!r} is not one of {', '.join(SourceKind.values)}")
            kind = SourceKind.PRIMARY
        title = c.text(item, "title", required=False, max_len=300)
        archived = c.url(
            item.get("archived_url"),
            f"{where}.archived_url",
            required=False,
            max_len=ARCHIVED_URL_MAX,
        )
        if url and any(s.url == url for s in sources):
            c.add(f"{where}.url", f"{url!r} is listed twice")
        elif url:
            sources.append(SourceEntry(url, str(kind), title, archived))
    return sources


def _read_figures(c: FieldReader, value: Any, source_urls: set[str]) -> list[FigureEntry]:
    figures: list[FigureEntry] = []
    for where, item in KEY_FIGURES.items(c, value):
        number = c.number(item.get("value"), f"{where}.value")
        measures = c.text(item, "measures", where=where, required=True, max_len=300)
        unit = c.text(item, "unit", where=where, required=False, max_len=UNIT_MAX)
        source = c.cited_source(item.get("source"), f"{where}.source", source_urls)
        if number is not None and measures and source:
            figures.append(FigureEntry(number, unit, measures, source))
    return figures
