"""Library cases kubegap checks cite: slug -> title, organisation, summary and primary source.

Read from library_cases.json beside this module, which `manage.py export_kubegap_cases` writes from
the library's fixtures, so findings carry the library's own titles and each case's primary source
without a database. A test fails when that file and fixtures/ drift apart.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import NamedTuple


class CaseInfo(NamedTuple):
    title: str
    organisation: str
    summary: str
    source_url: str  # the case's primary public source


def _load() -> dict[str, CaseInfo]:
    text = resources.files(__package__).joinpath("library_cases.json").read_text(encoding="utf-8")
    return {
        slug: CaseInfo(case["title"], case["organisation"], case["summary"], case.get("source", ""))
        for slug, case in json.loads(text).items()
    }


CASES: dict[str, CaseInfo] = _load()


def case_url(base_url: str, slug: str) -> str:
    """The library page of a case."""
    return f"{base_url.rstrip('/')}/cases/{slug}/"


def cited_cases(slugs: tuple[str, ...], library_url: str | None) -> list[dict[str, str]]:
    """Each cited case: slug, title, primary source, and a library link only when one is given."""
    out = []
    for slug in slugs:
        info = CASES.get(slug)
        entry = {
            "slug": slug,
            "title": info.title if info else slug,
            "source_url": info.source_url if info else "",
        }
        if library_url:
            entry["library_url"] = case_url(library_url, slug)
        out.append(entry)
    return out
