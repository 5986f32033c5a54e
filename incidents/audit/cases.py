"""Library cases kubegap checks cite: slug -> title, organisation and summary.

Read from library_cases.json beside this module, which `manage.py export_kubegap_cases` writes from
the library's fixtures, so findings carry the library's own titles without a database. A test fails
when that file and fixtures/ drift apart.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import NamedTuple


class CaseInfo(NamedTuple):
    title: str
    organisation: str
    summary: str


def _load() -> dict[str, CaseInfo]:
    text = resources.files(__package__).joinpath("library_cases.json").read_text(encoding="utf-8")
    return {
        slug: CaseInfo(case["title"], case["organisation"], case["summary"])
        for slug, case in json.loads(text).items()
    }


CASES: dict[str, CaseInfo] = _load()


def case_url(base_url: str, slug: str) -> str:
    """The library page of a case."""
    return f"{base_url.rstrip('/')}/cases/{slug}/"
