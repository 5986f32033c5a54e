"""Synthetic cases in bulk, for tests that a page's query count does not grow with the library."""

from __future__ import annotations

import datetime as dt

from incidents.models import Breakdown
from incidents.models import BreakdownRow
from incidents.models import BreakdownRowValue
from incidents.models import Case
from incidents.models import CaseFacetLink
from incidents.models import CaseRemediation
from incidents.models import CostFigure
from incidents.models import CostKind
from incidents.models import CostUnit
from incidents.models import CountUnit
from incidents.models import FacetValue
from incidents.models import Remediation
from incidents.models import Source
from incidents.services import refresh_implied_links
from incidents.services.search_index import refresh_search_index

FIRST_DAY = dt.date(2020, 1, 1)


def add_cases(count: int, *, prefix: str = "bulk", start: int = 0) -> list[Case]:
    """Add `count` cases, each tagged with three values (leaves and parents), a source, a cost, a
    breakdown table of two rows mapped to a value, and a remediation, so that every kind of row a
    page reads grows with the number of cases.

    Plain model constructors, not factories: tests add about 5,000 such cases per run, and a
    factory_boy build costs several times the constructor (half of this function's CPU)."""
    values = list(FacetValue.objects.order_by("id"))
    remediation = Remediation.objects.order_by("id").first()
    cases = Case.objects.bulk_create(
        Case(
            slug=f"{prefix}-{i}",
            title=f"{prefix.capitalize()} case {i}",
            summary="Synthetic case for query counting.",
            period_start=FIRST_DAY + dt.timedelta(days=i % 1500),
        )
        for i in range(start, start + count)
    )
    CaseFacetLink.objects.bulk_create(
        CaseFacetLink(case=case, value=values[(i + k * 7) % len(values)], direct=True)
        for i, case in enumerate(cases)
        for k in range(3)
    )
    Source.objects.bulk_create(
        Source(case=case, url=f"https://example.org/{case.slug}") for case in cases
    )
    CostFigure.objects.bulk_create(
        CostFigure(
            case=case,
            kind=CostKind.GPU_HOURS_LOST,
            value=10.0 * (i + 1),
            locator="Table 1",
            source_url=f"https://example.org/{case.slug}",
        )
        for i, case in enumerate(cases)
    )
    tables = Breakdown.objects.bulk_create(
        Breakdown(
            case=case,
            slug="failed-jobs",
            title="Failed jobs by cause",
            counted=CountUnit.FAILED_JOBS,
            count_total=100.0,
            cost_unit=CostUnit.GPU_HOURS,
            cost_total=1000.0,
            locator="Table 2",
            source_url=f"https://example.org/{case.slug}",
        )
        for case in cases
    )
    rows = BreakdownRow.objects.bulk_create(
        BreakdownRow(breakdown=table, label=label, count=10.0 * (k + 1), cost=100.0)
        for table in tables
        for k, label in enumerate(("Script errors", "Hardware faults"))
    )
    BreakdownRowValue.objects.bulk_create(
        BreakdownRowValue(row=row, value=values[i % len(values)]) for i, row in enumerate(rows)
    )
    if remediation is not None:
        CaseRemediation.objects.bulk_create(
            CaseRemediation(case=case, item=remediation) for case in cases
        )
    refresh_implied_links()
    # The whole index rewritten, as `load_cases` writes it: the same rows as refreshing only the
    # new cases (tests/test_text_search.py and test_search_candidates.py check that path) at
    # half the CPU when the new cases outnumber the old (bulk updates of every term's postings).
    refresh_search_index()
    # No version bump: a test is one transaction, which bumps once, and its own first write
    # must be the one that does (tests/conftest.py empties the cache before each test).
    return cases
