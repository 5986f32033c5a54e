"""kubegap's checks as the library shows them: each check with the library cases it cites.

The check registry lives in incidents.audit (which knows nothing of Django); this module joins it
to the cases in the database, in one query, for the /checks/ page, the API and the case page.
"""

from __future__ import annotations

from dataclasses import dataclass

from incidents.audit.checks import ALL_CHECKS
from incidents.audit.model import Check
from incidents.models import Case


@dataclass(frozen=True)
class CitedCase:
    """A case a check cites; its title when the library holds it, else its slug."""

    slug: str
    title: str
    in_library: bool


@dataclass(frozen=True)
class CatalogCheck:
    """A check with its cited cases resolved against the library."""

    check: Check
    cases: list[CitedCase]


def _titles(slugs: set[str]) -> dict[str, str]:
    return dict(Case.objects.filter(slug__in=slugs).values_list("slug", "title"))


def catalog(checks: list[Check] | None = None) -> list[CatalogCheck]:
    """Every check (or the given ones) with its cited cases, in registry order."""
    checks = list(ALL_CHECKS) if checks is None else checks
    titles = _titles({slug for c in checks for slug in c.cases})
    return [
        CatalogCheck(
            check,
            [CitedCase(slug, titles.get(slug, slug), slug in titles) for slug in check.cases],
        )
        for check in checks
    ]


def checks_citing(slug: str) -> list[Check]:
    """The checks that cite one case, most severe first."""
    from incidents.audit.model import SEVERITY_RANK

    return sorted(
        (c for c in ALL_CHECKS if slug in c.cases), key=lambda c: (SEVERITY_RANK[c.severity], c.id)
    )


def get_check(check_id: str) -> Check | None:
    """A check by id, case-insensitively."""
    return next((c for c in ALL_CHECKS if c.id == check_id.upper()), None)
