"""Loading the library's files into the database: atomic, strict and idempotent."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from django.db import transaction

from incidents.models import CASE_ITEM_LINKS
from incidents.models import Case
from incidents.models import FacetAlias
from incidents.models import FacetValue
from incidents.models import item_model
from incidents.services.case_rows import apply_case
from incidents.services.facet_links import refresh_implied_links
from incidents.services.library_entries import LibraryData
from incidents.services.library_entries import LibraryError
from incidents.services.library_entries import Problem
from incidents.services.library_entries import SharedEntry
from incidents.services.library_entries import VocabularyEntry
from incidents.services.library_files import read_library_collecting
from incidents.services.library_references import check_case_references
from incidents.services.library_version import bump
from incidents.services.search_index import refresh_search_index
from incidents.text import spelling_key

# The three shared kinds share one shape; typed loosely so one loop can serve them all.
SHARED_MODELS: dict[str, Any] = {kind: item_model(link) for kind, link in CASE_ITEM_LINKS.items()}


@dataclass
class LoadReport:
    """What a load did, per kind of entry: created, updated, unchanged."""

    counts: dict[str, Counter[str]] = field(default_factory=dict)

    def note(self, kind: str, outcome: str) -> None:
        self.counts.setdefault(kind, Counter())[outcome] += 1

    @property
    def changed(self) -> bool:
        return any(c["created"] or c["updated"] for c in self.counts.values())

    def lines(self) -> list[str]:
        return [
            f"{kind}: {c['created']} created, {c['updated']} updated, {c['unchanged']} unchanged"
            for kind, c in self.counts.items()
        ]


def load_library(paths: Iterable[Path], *, root: Path | None = None) -> LoadReport:
    """Load or update the library from files or folders; all or nothing.

    Raises LibraryError naming file, entry and field for every problem, those of the files'
    format and those of their references together; the database is then left exactly as it was.
    """
    data, problems = read_library_collecting(list(paths), root=root)
    with transaction.atomic():
        return _apply(data, problems)


def load_entries(data: LibraryData, found: list[Problem] | None = None) -> LoadReport:
    """Apply entries already read (say, one submitted case) as load_library does: references
    checked against the database, all or nothing; `found`, the problems met while reading them,
    are raised with those of the references."""
    with transaction.atomic():
        return _apply(data, found)


def _apply(data: LibraryData, found: list[Problem] | None = None) -> LoadReport:
    """Write the entries; on any problem (`found` while reading, or met here) raise them all.

    References (facet values, shared entries) are checked against the database and the files
    before anything is written, so that one run lists them with the problems of the format.
    """
    report = LoadReport()
    problems: list[Problem] = list(found or [])
    known_values = set(FacetValue.objects.values_list("facet", "slug")) | {
        (e.facet, e.slug) for e in data.vocabulary
    }
    known_shared = {
        kind: set(model.objects.values_list("slug", flat=True))
        | {e.slug for e in data.shared if e.kind == kind}
        for kind, model in SHARED_MODELS.items()
    }
    problems.extend(check_case_references(data, known_values, known_shared))
    if problems:
        raise LibraryError(problems)
    values = _apply_vocabulary(data.vocabulary, report, problems)
    shared = {kind: _apply_shared(kind, data.shared, report) for kind in SHARED_MODELS}
    if problems:
        raise LibraryError(problems)
    for entry in data.cases:
        report.note("cases", apply_case(entry, values, shared))
    refresh_implied_links()
    if data.vocabulary or data.shared:
        refresh_search_index()  # names, aliases and shared wording reach many cases
    else:
        slugs = [entry.slug for entry in data.cases]
        refresh_search_index(Case.objects.filter(slug__in=slugs).values_list("id", flat=True))
    if report.changed:
        bump()  # bulk writes above send no signals
    return report


def _apply_vocabulary(
    entries: list[VocabularyEntry], report: LoadReport, problems: list[Problem]
) -> dict[tuple[str, str], FacetValue]:
    existing = {(v.facet, v.slug): v for v in FacetValue.objects.all()}
    by_key = {(v.facet, v.name_key): v for v in existing.values()}
    alias_owner = {(a.facet, a.text_key): a.value_id for a in FacetAlias.objects.all()}
    file_slugs = {(e.facet, e.slug) for e in entries}
    for entry in entries:
        label = f"value '{entry.slug}'"
        clash = by_key.get((entry.facet, spelling_key(entry.name)))
        if (
            clash is not None
            and clash.slug != entry.slug
            and (clash.facet, clash.slug) not in file_slugs
        ):
            problems.append(
                Problem(
                    entry.file,
                    label,
                    "name",
                    f"{entry.name!r} is already the name of '{clash.slug}'",
                )
            )
        if entry.parent and (entry.facet, entry.parent) not in file_slugs | existing.keys():
            problems.append(
                Problem(
                    entry.file, label, "parent", f"{entry.parent!r} is not a {entry.facet} value"
                )
            )
    if problems:
        return existing

    created: set[tuple[str, str]] = set()
    for entry in entries:
        if (entry.facet, entry.slug) not in existing:
            value = FacetValue(facet=entry.facet, slug=entry.slug, name=entry.name)
            value.save()
            existing[(entry.facet, entry.slug)] = value
            created.add((entry.facet, entry.slug))
    for entry in entries:
        value = existing[(entry.facet, entry.slug)]
        parent = existing[(entry.facet, entry.parent)] if entry.parent else None
        wanted = (
            entry.name,
            entry.description,
            parent.id if parent else None,
            list(entry.phrases),
            list(entry.ambiguous),
        )
        current = (value.name, value.description, value.parent_id, value.phrases, value.ambiguous)
        changed = current != wanted
        if changed:
            value.name, value.description, value.parent = entry.name, entry.description, parent
            value.phrases, value.ambiguous = list(entry.phrases), list(entry.ambiguous)
            value.save()
        if (entry.facet, entry.slug) in created:
            report.note("facet values", "created")
        else:
            report.note("facet values", "updated" if changed else "unchanged")
    _check_cycles(entries, existing, problems)
    _apply_aliases(entries, existing, alias_owner, problems)
    return existing


def _check_cycles(
    entries: list[VocabularyEntry],
    values: dict[tuple[str, str], FacetValue],
    problems: list[Problem],
) -> None:
    parent_of = {v.id: v.parent_id for v in values.values()}
    for entry in entries:
        start = values[(entry.facet, entry.slug)].id
        seen = {start}
        current = parent_of.get(start)
        while current is not None:
            if current in seen:
                problems.append(
                    Problem(
                        entry.file, f"value '{entry.slug}'", "parent", "the parents form a cycle"
                    )
                )
                break
            seen.add(current)
            current = parent_of.get(current)


def _apply_aliases(
    entries: list[VocabularyEntry],
    values: dict[tuple[str, str], FacetValue],
    alias_owner: dict[tuple[str, str], int],
    problems: list[Problem],
) -> None:
    names = {(v.facet, v.name_key): v for v in values.values()}
    for entry in entries:
        value = values[(entry.facet, entry.slug)]
        wanted = {spelling_key(a): a for a in entry.aliases}
        for key, text in wanted.items():
            named = names.get((entry.facet, key))
            owner = alias_owner.get((entry.facet, key))
            if (named is not None and named.id != value.id) or (
                owner is not None
                and owner != value.id
                and _owner_keeps(owner, key, entries, values)
            ):
                problems.append(
                    Problem(
                        entry.file,
                        f"value '{entry.slug}'",
                        "aliases",
                        f"{text!r} already names another {entry.facet} value",
                    )
                )
    if problems:
        raise LibraryError(problems)
    for entry in entries:
        value = values[(entry.facet, entry.slug)]
        wanted = {spelling_key(a): a for a in entry.aliases}
        current = {a.text_key: a for a in FacetAlias.objects.filter(value=value)}
        for key, alias in current.items():
            if key not in wanted or alias.text != wanted[key]:
                alias.delete()
        for key, text in wanted.items():
            if key not in current or current[key].text != text:
                FacetAlias.objects.filter(facet=entry.facet, text_key=key).delete()
                FacetAlias(value=value, text=text).save()


def _owner_keeps(
    owner_id: int,
    key: str,
    entries: list[VocabularyEntry],
    values: dict[tuple[str, str], FacetValue],
) -> bool:
    """Whether an alias held in the database by another value stays with it after this load."""
    for entry in entries:
        if values[(entry.facet, entry.slug)].id == owner_id:
            return key in {spelling_key(a) for a in entry.aliases}
    return True


def _apply_shared(kind: str, entries: list[SharedEntry], report: LoadReport) -> dict[str, Any]:
    model = SHARED_MODELS[kind]
    existing: dict[str, Any] = {i.slug: i for i in model.objects.all()}
    for entry in (e for e in entries if e.kind == kind):
        item = existing.get(entry.slug)
        if item is None:
            existing[entry.slug] = model.objects.create(slug=entry.slug, text=entry.text)
            report.note(kind.replace("_", " "), "created")
        elif item.text != entry.text:
            item.text = entry.text
            item.save(update_fields=["text"])
            report.note(kind.replace("_", " "), "updated")
        else:
            report.note(kind.replace("_", " "), "unchanged")
    return existing
