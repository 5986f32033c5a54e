"""The library cases kubegap cites, exported from the fixtures into a data file kubegap ships.

kubegap runs without Django or a database, so the titles, organisations, summaries and primary
source URLs its findings cite come from incidents/audit/library_cases.json. `manage.py export_kubegap_cases` writes that file
from fixtures/; a test fails when the two drift apart.
"""

from __future__ import annotations

import json
from pathlib import Path

from incidents.facets import ORGANISATION
from incidents.models import SourceKind
from incidents.services.library_entries import CaseEntry
from incidents.services.library_files import read_library

CASES_FILE = Path(__file__).resolve().parent.parent / "audit" / "library_cases.json"


def _primary_source(case: CaseEntry) -> str:
    """The case's first primary source (its first source when none is marked primary)."""
    primary = [s.url for s in case.sources if s.kind == SourceKind.PRIMARY]
    return (primary or [s.url for s in case.sources] or [""])[0]


def export_cases(fixtures: Path) -> str:
    """The JSON text of every case in `fixtures`: slug -> title, organisations, summary, source."""
    data = read_library([fixtures])
    organisation_names = {v.slug: v.name for v in data.vocabulary if v.facet == ORGANISATION.facet}
    cases = {
        case.slug: {
            "title": case.title,
            "organisation": ", ".join(
                organisation_names.get(slug, slug) for slug in case.facets[ORGANISATION.facet]
            ),
            "summary": " ".join(case.summary.split()),
            "source": _primary_source(case),
        }
        for case in sorted(data.cases, key=lambda c: c.slug)
    }
    return json.dumps(cases, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
