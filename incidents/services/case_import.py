"""Creating and replacing a case from a script (the API), through the same validation as
`load_cases` and the submission form: the case-file format, read by `read_case_collecting`,
applied by `load_entries` (which lists the format's problems with the references'), all or nothing.

On top of a case file's rules, an import refuses what is probably a duplicate: a case whose
primary source is already the primary source of another case, unless the caller says it is not
(`allow_duplicate`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError
from django.db import transaction

from incidents.models import Case
from incidents.models import Source
from incidents.models import SourceKind
from incidents.services.case_fields import read_case_collecting
from incidents.services.library_entries import CaseEntry
from incidents.services.library_entries import LibraryData
from incidents.services.library_entries import LibraryError
from incidents.services.library_entries import Problem
from incidents.services.library_load import load_entries

API = "api"


class ProbableDuplicate(Exception):
    """The case's primary source is already another case's primary source."""

    def __init__(self, url: str, slugs: list[str]) -> None:
        self.url = url
        self.slugs = slugs
        super().__init__(
            f"The primary source {url} is already the primary source of {', '.join(slugs)}"
        )


class SlugTaken(Exception):
    """A case with that slug exists already (create) or does not (replace)."""


@dataclass(frozen=True)
class Imported:
    """The case as saved, and whether it was created (rather than replaced)."""

    case: Case
    created: bool


def _duplicates(entry: CaseEntry) -> tuple[str, list[str]] | None:
    primaries = [s.url for s in entry.sources if s.kind == SourceKind.PRIMARY]
    if not primaries:
        return None
    found = (
        Source.objects.filter(kind=SourceKind.PRIMARY, url__in=primaries)
        .exclude(case__slug=entry.slug)
        .values_list("url", "case__slug")
        .order_by("case__slug")
    )
    by_url: dict[str, list[str]] = {}
    for url, slug in found:
        by_url.setdefault(url, []).append(slug)
    return next(iter(by_url.items()), None)


def import_case(
    *, slug: str, entry: dict[str, Any], replace: bool, allow_duplicate: bool = False
) -> Imported:
    """Create case `slug` (or, with `replace`, replace the existing one) from a mapping in the
    case-file format, all or nothing.

    Raises LibraryError naming every field that is wrong (as in a case file: `title`,
    `sources[0].url`, ...; an empty slug among them, as not a slug), SlugTaken when the slug is in use (create) or unknown (replace), and
    ProbableDuplicate when the primary source is another case's, unless `allow_duplicate`.
    """
    parsed, problems = read_case_collecting(slug, entry, display=API)
    try:
        with transaction.atomic():
            if problems:  # raised with the references' problems: every one in one answer
                load_entries(LibraryData(cases=[parsed]), found=problems)
            exists = Case.objects.select_for_update().filter(slug=slug).exists()
            if exists != replace:
                raise SlugTaken(
                    f"A case with slug {slug!r} already exists; replace it with PUT"
                    if exists
                    else f"There is no case with slug {slug!r} to replace"
                )
            duplicate = None if allow_duplicate else _duplicates(parsed)
            if duplicate is not None:
                raise ProbableDuplicate(*duplicate)
            load_entries(LibraryData(cases=[parsed]))
    except IntegrityError as exc:  # the same slug created at the same moment
        raise SlugTaken(f"A case with slug {slug!r} already exists") from exc
    return Imported(Case.objects.get(slug=slug), created=not replace)


def problems_by_field(error: LibraryError) -> dict[str, list[str]]:
    """The problems of a LibraryError keyed by field (`sources[0].url`), for a 400 body."""
    found: dict[str, list[str]] = {}
    for problem in error.problems:
        found.setdefault(problem.field or "non_field_errors", []).append(problem.message)
    return found


__all__ = [
    "Imported",
    "LibraryError",
    "Problem",
    "ProbableDuplicate",
    "SlugTaken",
    "import_case",
    "problems_by_field",
]
