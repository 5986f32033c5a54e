"""Synthetic cases in bulk, for tests that a page's query count does not grow with the library."""

from __future__ import annotations

import datetime as dt

from incidents.models import (
    Case,
    CaseFacetLink,
    CaseRemediation,
    CostFigure,
    CostMetric,
    FacetValue,
    Remediation,
    Source,
)
from incidents.services import refresh_implied_links


def add_cases(count: int, *, prefix: str = "bulk", start: int = 0) -> list[Case]:
    """Add `count` cases, each tagged with three values (leaves and parents), a source, a cost and
    a remediation, so that every kind of row a page reads grows with the number of cases."""
    values = list(FacetValue.objects.order_by("id"))
    remediation = Remediation.objects.order_by("id").first()
    cases = Case.objects.bulk_create(
        Case(
            slug=f"{prefix}-{i}",
            title=f"{prefix.capitalize()} case {i}",
            summary="Synthetic case for query counting.",
            period_start=dt.date(2020, 1, 1) + dt.timedelta(days=i % 1500),
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
            metric=CostMetric.GPU_HOURS_LOST,
            value=10.0 * (i + 1),
            source_url=f"https://example.org/{case.slug}",
        )
        for i, case in enumerate(cases)
    )
    if remediation is not None:
        CaseRemediation.objects.bulk_create(
            CaseRemediation(case=case, item=remediation) for case in cases
        )
    refresh_implied_links()
    return cases
