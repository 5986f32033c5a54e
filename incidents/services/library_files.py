"""Reading the library's YAML files into validated entries, without touching the database.

Every problem is collected with the file, the case (or vocabulary entry) and the field it concerns,
so an editor sees all mistakes of a change at once. See fixtures/README.md for the format.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

from incidents.models import CaseKind, CostMetric, DatePrecision, Facet, Setting, SourceKind
from incidents.text import spelling_key

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
SHARED_KINDS = ("remediations", "action_items", "lessons")
FACET_FIELDS: dict[str, str] = {
    "root_causes": Facet.ROOT_CAUSE,
    "components": Facet.COMPONENT,
    "symptoms": Facet.SYMPTOM,
    "contributing_factors": Facet.CONTRIBUTING_FACTOR,
    "organisations": Facet.ORGANISATION,
}
CASE_KEYS = {
    "title", "kind", "setting", "period", "published", "summary", "detection", "key_figures", "cost",
    "sources", *FACET_FIELDS, *SHARED_KINDS,
}  # fmt: skip
_url_validator = URLValidator(schemes=["http", "https"])


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
    metric: str
    value: float
    note: str
    source_url: str


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


@dataclass
class LibraryData:
    """Everything read from the files, validated on its own (references not yet resolved)."""

    vocabulary: list[VocabularyEntry] = field(default_factory=list)
    shared: list[SharedEntry] = field(default_factory=list)
    cases: list[CaseEntry] = field(default_factory=list)


class _Collector:
    """Collects problems for one file and entry."""

    def __init__(self, problems: list[Problem], file: str, entry: str | None) -> None:
        self.problems, self.file, self.entry = problems, file, entry

    def add(self, fieldname: str | None, message: str) -> None:
        self.problems.append(Problem(self.file, self.entry, fieldname, message))

    def text(self, data: dict[str, Any], key: str, *, required: bool, max_len: int = 0) -> str:
        value = data.get(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            if required:
                self.add(key, "is required")
            return ""
        if not isinstance(value, str):
            self.add(key, f"must be text, not {type(value).__name__}")
            return ""
        value = " ".join(value.split()) if "\n" not in value.strip() else value.strip()
        if max_len and len(value) > max_len:
            self.add(key, f"is {len(value)} characters long; at most {max_len} allowed")
        return value

    def choice(self, data: dict[str, Any], key: str, choices: Iterable[str], default: str) -> str:
        value = data.get(key, default)
        allowed = list(choices)
        if value not in allowed:
            self.add(key, f"{value!r} is not one of {', '.join(allowed)}")
            return default
        return str(value)

    def url(self, value: Any, fieldname: str, *, required: bool = True) -> str:
        if value is None or value == "":
            if required:
                self.add(fieldname, "is required")
            return ""
        if not isinstance(value, str):
            self.add(fieldname, f"must be a URL, not {type(value).__name__}")
            return ""
        try:
            _url_validator(value)
        except ValidationError:
            self.add(fieldname, f"{value!r} is not a valid http(s) URL")
            return ""
        return value

    def slug(self, value: Any, fieldname: str) -> str:
        if not isinstance(value, str) or not SLUG_RE.match(value):
            self.add(fieldname, f"{value!r} is not a slug (lower-case letters, digits, hyphens)")
            return ""
        return value

    def number(self, value: Any, fieldname: str) -> float | None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.add(fieldname, f"{value!r} is not a number")
            return None
        if value < 0:
            self.add(fieldname, f"{value!r} is negative")
            return None
        return float(value)

    def unknown_keys(self, data: dict[str, Any], allowed: Iterable[str], prefix: str = "") -> None:
        for key in sorted(set(data) - set(allowed), key=str):
            self.add(f"{prefix}{key}", "is not a known field")


def _load_yaml(path: Path, problems: list[Problem], display: str) -> Any:
    try:
        with path.open(encoding="utf-8") as fh:
            return yaml.safe_load(fh)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problems.append(Problem(display, None, None, f"is not valid YAML{where}: {exc}"))
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(Problem(display, None, None, f"cannot be read: {exc}"))
    return None


def library_files(paths: Iterable[Path]) -> Iterator[tuple[str, Path]]:
    """Yield (role, file) for every library file under the given files or folders.

    The role is the folder a file sits in: "vocabulary", "shared" or "cases". Folders are walked in
    sorted order so that loading is deterministic.
    """
    for path in paths:
        if path.is_dir():
            for role in ("vocabulary", "shared", "cases"):
                base = path if path.name == role else path / role
                if base.is_dir():
                    for file in sorted(base.glob("*.yaml")):
                        yield role, file
        else:
            yield path.parent.name, path


def read_library(paths: Iterable[Path], *, root: Path | None = None) -> LibraryData:
    """Read and validate library files; raise LibraryError listing every problem found."""
    problems: list[Problem] = []
    data = LibraryData()
    seen_any = False
    for given in paths:
        if not given.exists():
            problems.append(Problem(str(given), None, None, "does not exist"))
    for role, path in library_files(p for p in paths if p.exists()):
        seen_any = True
        display = _display(path, root)
        if path.suffix != ".yaml":
            problems.append(Problem(display, None, None, "is not a .yaml file"))
            continue
        if role == "vocabulary":
            _read_vocabulary(path, display, data, problems)
        elif role == "shared":
            _read_shared(path, display, data, problems)
        elif role == "cases":
            _read_case(path, display, data, problems)
        else:
            problems.append(
                Problem(display, None, None, "is not in a vocabulary/, shared/ or cases/ folder")
            )
    if not seen_any and not problems:
        problems.append(
            Problem(", ".join(str(p) for p in paths), None, None, "holds no case files")
        )
    _check_duplicates(data, problems)
    if problems:
        raise LibraryError(problems)
    return data


def _display(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return str(path.resolve().relative_to(root.resolve()))
        except ValueError:
            pass
    return str(path)


def _facet_of(path: Path) -> str | None:
    for facet in Facet.values:
        if path.stem == facet or path.stem.startswith(f"{facet}-"):
            return facet
    return None


def _read_vocabulary(path: Path, display: str, data: LibraryData, problems: list[Problem]) -> None:
    facet = _facet_of(path)
    if facet is None:
        problems.append(
            Problem(
                display, None, None, f"file name must start with one of {', '.join(Facet.values)}"
            )
        )
        return
    raw = _load_yaml(path, problems, display)
    if raw is None:
        return
    if not isinstance(raw, list):
        problems.append(Problem(display, None, None, "must be a YAML list of values"))
        return
    for index, item in enumerate(raw):
        label = f"value {item.get('slug', f'#{index + 1}')!r}" if isinstance(item, dict) else None
        c = _Collector(problems, display, label or f"entry #{index + 1}")
        if not isinstance(item, dict):
            c.add(None, "must be a mapping with slug, name, description, parent, aliases")
            continue
        c.unknown_keys(item, {"slug", "name", "description", "parent", "aliases"})
        slug = c.slug(item.get("slug"), "slug")
        name = c.text(item, "name", required=True, max_len=150)
        description = c.text(item, "description", required=False)
        parent = item.get("parent")
        if parent is not None:
            parent = c.slug(parent, "parent") or None
            if parent == slug:
                c.add("parent", "a value cannot be its own parent")
        aliases_raw = item.get("aliases") or []
        aliases: list[str] = []
        if not isinstance(aliases_raw, list):
            c.add("aliases", "must be a list of words")
        else:
            for a_index, alias in enumerate(aliases_raw):
                if not isinstance(alias, str) or not alias.strip():
                    c.add(f"aliases[{a_index}]", "must be non-empty text")
                else:
                    aliases.append(" ".join(alias.split()))
        if slug and name:
            data.vocabulary.append(
                VocabularyEntry(facet, slug, name, description, parent, tuple(aliases), display)
            )


def _read_shared(path: Path, display: str, data: LibraryData, problems: list[Problem]) -> None:
    kind = next((k for k in SHARED_KINDS if path.stem == k or path.stem.startswith(f"{k}-")), None)
    if kind is None:
        problems.append(
            Problem(
                display, None, None, f"file name must start with one of {', '.join(SHARED_KINDS)}"
            )
        )
        return
    raw = _load_yaml(path, problems, display)
    if raw is None:
        return
    if not isinstance(raw, list):
        problems.append(Problem(display, None, None, "must be a YAML list of entries"))
        return
    for index, item in enumerate(raw):
        label = f"entry {item.get('slug', f'#{index + 1}')!r}" if isinstance(item, dict) else None
        c = _Collector(problems, display, label or f"entry #{index + 1}")
        if not isinstance(item, dict):
            c.add(None, "must be a mapping with slug and text")
            continue
        c.unknown_keys(item, {"slug", "text"})
        slug = c.slug(item.get("slug"), "slug")
        text = c.text(item, "text", required=True)
        if slug and text:
            data.shared.append(SharedEntry(kind, slug, text, display))


def _read_case(path: Path, display: str, data: LibraryData, problems: list[Problem]) -> None:
    slug = path.stem
    c = _Collector(problems, display, f"case '{slug}'")
    if not SLUG_RE.match(slug):
        c.add(None, "the file name must be the case slug (lower-case letters, digits, hyphens)")
        return
    raw = _load_yaml(path, problems, display)
    if raw is None:
        if not any(p.file == display for p in problems):
            c.add(None, "the file is empty")
        return
    if not isinstance(raw, dict):
        c.add(None, "must be a YAML mapping of fields")
        return
    data.cases.append(_case_entry(c, slug, display, raw))


def read_case_mapping(slug: str, raw: dict[str, Any], *, display: str) -> CaseEntry:
    """Validate one case given as a mapping in the case-file format (say, built from a web form)
    with exactly the rules of a case file; raise LibraryError listing every problem."""
    problems: list[Problem] = []
    c = _Collector(problems, display, f"case '{slug}'")
    if not SLUG_RE.match(slug):
        c.add("slug", f"{slug!r} is not a slug (lower-case letters, digits, hyphens)")
    entry = _case_entry(c, slug, display, raw)
    if problems:
        raise LibraryError(problems)
    return entry


def _case_entry(c: _Collector, slug: str, display: str, raw: dict[str, Any]) -> CaseEntry:
    c.unknown_keys(raw, CASE_KEYS)
    sources = _read_sources(c, raw.get("sources"))
    source_urls = {s.url for s in sources}
    period = raw.get("period")
    start = end = published = None
    if raw.get("published") is not None:
        published = _read_period_point(c, raw.get("published"), "published")
    if period is None:
        pass  # No source states when it happened; the case sorts by `published`, or last.
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
    for key, facet in FACET_FIELDS.items():
        facets[facet] = _read_slug_list(c, raw.get(key), key)
    if not facets[Facet.ORGANISATION]:
        c.add("organisations", "is required (at least one organisation slug)")
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
        costs=_read_costs(c, raw.get("cost"), source_urls),
        sources=sources,
    )
    return entry


def _read_period_point(c: _Collector, value: Any, fieldname: str) -> PeriodPoint | None:
    if isinstance(value, dt.datetime):
        value = value.date()
    if isinstance(value, dt.date):
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
        precision = (
            DatePrecision.DAY if day else DatePrecision.MONTH if month else DatePrecision.YEAR
        )
        return PeriodPoint(date, precision)
    c.add(fieldname, f"{value!r} is not YYYY, YYYY-MM or YYYY-MM-DD")
    return None


def _read_slug_list(c: _Collector, value: Any, fieldname: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        c.add(fieldname, "must be a list of slugs")
        return []
    slugs: list[str] = []
    for index, item in enumerate(value):
        slug = c.slug(item, f"{fieldname}[{index}]")
        if slug in slugs:
            c.add(f"{fieldname}[{index}]", f"{slug!r} is listed twice")
        elif slug:
            slugs.append(slug)
    return slugs


def _read_item_refs(c: _Collector, value: Any, fieldname: str) -> list[ItemRef]:
    if value is None:
        return []
    if not isinstance(value, list):
        c.add(fieldname, "must be a list of {ref, wording} entries")
        return []
    refs: list[ItemRef] = []
    for index, item in enumerate(value):
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


def _read_sources(c: _Collector, value: Any) -> list[SourceEntry]:
    if not isinstance(value, list) or not value:
        c.add("sources", "is required (a list of at least one source with a url)")
        return []
    sources: list[SourceEntry] = []
    for index, item in enumerate(value):
        where = f"sources[{index}]"
        if not isinstance(item, dict):
            c.add(where, "must be a mapping with url, kind, title, archived_url")
            continue
        c.unknown_keys(item, {"url", "kind", "title", "archived_url"}, prefix=f"{where}.")
        url = c.url(item.get("url"), f"{where}.url")
        kind = item.get("kind", SourceKind.PRIMARY)
        if kind not in SourceKind.values:
            c.add(f"{where}.kind", f"{kind!r} is not one of {', '.join(SourceKind.values)}")
            kind = SourceKind.PRIMARY
        title = c.text(item, "title", required=False, max_len=300)
        archived = c.url(item.get("archived_url"), f"{where}.archived_url", required=False)
        if url and any(s.url == url for s in sources):
            c.add(f"{where}.url", f"{url!r} is listed twice")
        elif url:
            sources.append(SourceEntry(url, str(kind), title, archived))
    return sources


def _read_figures(c: _Collector, value: Any, source_urls: set[str]) -> list[FigureEntry]:
    if value is None:
        return []
    if not isinstance(value, list):
        c.add("key_figures", "must be a list of {value, unit, measures, source}")
        return []
    figures: list[FigureEntry] = []
    for index, item in enumerate(value):
        where = f"key_figures[{index}]"
        if not isinstance(item, dict):
            c.add(where, "must be a mapping with value, unit, measures, source")
            continue
        c.unknown_keys(item, {"value", "unit", "measures", "source"}, prefix=f"{where}.")
        number = c.number(item.get("value"), f"{where}.value")
        measures = c.text(item, "measures", required=True, max_len=300)
        unit = item.get("unit") or ""
        if not isinstance(unit, str):
            c.add(f"{where}.unit", f"must be text, not {type(unit).__name__}")
            unit = ""
        source = _figure_source(c, item.get("source"), f"{where}.source", source_urls)
        if number is not None and measures and source:
            figures.append(FigureEntry(number, unit, measures, source))
    return figures


def _read_costs(c: _Collector, value: Any, source_urls: set[str]) -> list[CostEntry]:
    if value is None:
        return []
    if not isinstance(value, dict):
        c.add("cost", f"must be a mapping with any of {', '.join(CostMetric.values)}")
        return []
    c.unknown_keys(value, CostMetric.values, prefix="cost.")
    costs: list[CostEntry] = []
    for metric in CostMetric.values:
        item = value.get(metric)
        if item is None:
            continue
        where = f"cost.{metric}"
        if not isinstance(item, dict):
            c.add(where, "must be a mapping with value, source and optional note")
            continue
        c.unknown_keys(item, {"value", "source", "note"}, prefix=f"{where}.")
        number = c.number(item.get("value"), f"{where}.value")
        note = c.text(item, "note", required=False, max_len=300)
        source = _figure_source(c, item.get("source"), f"{where}.source", source_urls)
        if number is not None and source:
            costs.append(CostEntry(metric, number, note, source))
    return costs


def _figure_source(c: _Collector, value: Any, fieldname: str, source_urls: set[str]) -> str:
    url = c.url(value, fieldname)
    if url and url not in source_urls:
        c.add(fieldname, f"{url!r} is not one of the case's sources")
        return ""
    return url


def _check_duplicates(data: LibraryData, problems: list[Problem]) -> None:
    """Refuse two definitions of one slug, and two values with one spelling, within the files."""
    by_slug: dict[tuple[str, str], VocabularyEntry] = {}
    by_key: dict[tuple[str, str], tuple[VocabularyEntry, str]] = {}
    for entry in data.vocabulary:
        label = f"value '{entry.slug}'"
        first = by_slug.get((entry.facet, entry.slug))
        if first:
            problems.append(
                Problem(entry.file, label, "slug", f"is already defined in {first.file}")
            )
            continue
        by_slug[(entry.facet, entry.slug)] = entry
        for fieldname, text in [("name", entry.name), *(("aliases", a) for a in entry.aliases)]:
            key = (entry.facet, spelling_key(text))
            other = by_key.get(key)
            if other and other[0] is not entry:
                problems.append(
                    Problem(
                        entry.file,
                        label,
                        fieldname,
                        f"{text!r} is the same spelling as {other[1]!r} of value "
                        f"'{other[0].slug}' ({other[0].file}); one spelling per value",
                    )
                )
            elif other and other[0] is entry and fieldname == "aliases":
                problems.append(
                    Problem(entry.file, label, fieldname, f"{text!r} repeats a name or alias")
                )
            else:
                by_key[key] = (entry, text)
    seen_shared: dict[tuple[str, str], SharedEntry] = {}
    for shared in data.shared:
        first_shared = seen_shared.get((shared.kind, shared.slug))
        if first_shared:
            problems.append(
                Problem(
                    shared.file,
                    f"entry '{shared.slug}'",
                    "slug",
                    f"is already defined in {first_shared.file}",
                )
            )
        seen_shared[(shared.kind, shared.slug)] = shared
    seen_cases: dict[str, CaseEntry] = {}
    for case in data.cases:
        if case.slug in seen_cases:
            problems.append(
                Problem(
                    case.file,
                    f"case '{case.slug}'",
                    None,
                    f"is already in {seen_cases[case.slug].file}",
                )
            )
        seen_cases[case.slug] = case
