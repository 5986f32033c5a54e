"""Adding one case from the submission form, through the same validation as `load_cases`.

The form builds a mapping in the case-file format (fixtures/README.md); it is read by the very
function that reads case files and applied by the loader, so a submitted case obeys exactly the
rules of a case file: required fields, real URLs, figures and costs citing one of the case's
sources, facet values and shared entries that exist. Nothing is written unless all of it is right.
"""

from __future__ import annotations

from typing import Any

import yaml
from django.db import IntegrityError
from django.db import transaction

from incidents.models import Case
from incidents.services.case_fields import read_case_collecting
from incidents.services.library_entries import LibraryData
from incidents.services.library_entries import LibraryError
from incidents.services.library_entries import Problem
from incidents.services.library_load import load_entries

SUBMISSION = "submission"


def _slug_taken(slug: str) -> LibraryError:
    return LibraryError(
        [Problem(SUBMISSION, f"case '{slug}'", "slug", f"a case with slug {slug!r} already exists")]
    )


def submit_case(*, slug: str, entry: dict[str, Any]) -> Case:
    """Validate a case given in the case-file format and add it to the library, all or nothing.

    Raises LibraryError whose problems name the field concerned (as in a case file: `title`,
    `sources[0].url`, `costs[0].source`, ...); a slug already in use is refused.
    """
    parsed, problems = read_case_collecting(slug, entry, display=SUBMISSION)
    try:
        with transaction.atomic():
            if problems:  # raised with the references' problems: every one in one answer
                load_entries(LibraryData(cases=[parsed]), found=problems)
            if Case.objects.filter(slug=slug).exists():
                raise _slug_taken(slug)
            load_entries(LibraryData(cases=[parsed]))
    except IntegrityError as exc:  # the same slug submitted at the same moment
        raise _slug_taken(slug) from exc
    return Case.objects.get(slug=slug)


CASE_SCHEMA_LINE = "# yaml-language-server: $schema=../schema/case.schema.json\n"


def case_file_yaml(entry: dict[str, Any]) -> str:
    """The case as the YAML of fixtures/cases/<slug>.yaml, for an editor to commit; its first line
    names the case schema, as every library file does."""
    return CASE_SCHEMA_LINE + yaml.safe_dump(entry, sort_keys=False, allow_unicode=True, width=100)
