"""The library cases kubegap cites, exported from the fixtures into a data file kubegap ships.

kubegap runs without Django or a database, so the titles, organisations and summaries its findings
cite come from incidents/audit/library_cases.json. `manage.py export_kubegap_cases` writes that file
from fixtures/; a test fails when the two drift apart.
"""

from __future__ import annotations

import json
from pathlib import Path

from incidents.facets import ORGANISATION
from incidents.services.library_files import read_library

CASES_FILE = Path(__file__).resolve().parent.parent / "audit" / "library_cases.json"


def export_cases(fixtures: Path) -> str:
    """The JSON text of every case in `fixtures`: slug -> title, organisation names, summary."""
    data = read_library([fixtures])
    organisation_names = {v.slug: v.name for v in data.vocabulary if v.facet == ORGANISATION.facet}
    cases = {
        case.slug: {
            "title": case.title,
            "organisation": ", ".join(
                organisation_names.get(slug, slug) for slug in case.facets[ORGANISATION.facet]
            ),
            "summary": " ".join(case.summary.split()),
        }
        for case in sorted(data.cases, key=lambda c: c.slug)
    }
    return json.dumps(cases, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
