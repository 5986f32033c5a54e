"""Typed factory_boy factories for rows the tests make up (the real cases come from fixtures/).

`build()` makes an unsaved row (the bulk helpers insert many at once with `bulk_create`);
`create()` saves one.
"""

from __future__ import annotations

import datetime as dt

import factory
from factory.django import DjangoModelFactory

from incidents.models import (
    Breakdown,
    BreakdownRow,
    Case,
    CaseFacetLink,
    CaseRemediation,
    CostFigure,
    CostKind,
    CostUnit,
    CountUnit,
    FacetValue,
    Remediation,
    Source,
)

FIRST_DAY = dt.date(2020, 1, 1)


class CaseFactory(DjangoModelFactory[Case]):
    class Meta:
        model = Case

    slug = factory.Sequence(lambda n: f"case-{n}")
    title = factory.Sequence(lambda n: f"Synthetic case {n}")
    summary = "Synthetic case for query counting."
    period_start = factory.Sequence(lambda n: FIRST_DAY + dt.timedelta(days=n % 1500))


class FacetValueFactory(DjangoModelFactory[FacetValue]):
    class Meta:
        model = FacetValue

    facet = "symptom"
    slug = factory.Sequence(lambda n: f"value-{n}")
    name = factory.Sequence(lambda n: f"Value {n}")


class CaseFacetLinkFactory(DjangoModelFactory[CaseFacetLink]):
    class Meta:
        model = CaseFacetLink

    case = factory.SubFactory(CaseFactory)
    value = factory.SubFactory(FacetValueFactory)
    direct = True


class SourceFactory(DjangoModelFactory[Source]):
    class Meta:
        model = Source

    case = factory.SubFactory(CaseFactory)
    url = factory.LazyAttribute(lambda source: f"https://example.org/{source.case.slug}")


class CostFigureFactory(DjangoModelFactory[CostFigure]):
    class Meta:
        model = CostFigure

    case = factory.SubFactory(CaseFactory)
    kind = CostKind.GPU_HOURS_LOST
    value = 10.0
    locator = "Table 1"
    source_url = factory.LazyAttribute(lambda cost: f"https://example.org/{cost.case.slug}")


class BreakdownFactory(DjangoModelFactory[Breakdown]):
    class Meta:
        model = Breakdown

    case = factory.SubFactory(CaseFactory)
    slug = "failed-jobs"
    title = "Failed jobs by cause"
    counted = CountUnit.FAILED_JOBS
    count_total = 100.0
    cost_unit = CostUnit.GPU_HOURS
    cost_total = 1000.0
    locator = "Table 2"
    source_url = factory.LazyAttribute(lambda table: f"https://example.org/{table.case.slug}")


class BreakdownRowFactory(DjangoModelFactory[BreakdownRow]):
    class Meta:
        model = BreakdownRow

    breakdown = factory.SubFactory(BreakdownFactory)
    label = factory.Sequence(lambda n: f"Category {n}")
    count = 10.0
    cost = 100.0


class RemediationFactory(DjangoModelFactory[Remediation]):
    class Meta:
        model = Remediation

    slug = factory.Sequence(lambda n: f"remediation-{n}")
    text = "Restart from the last checkpoint."


class CaseRemediationFactory(DjangoModelFactory[CaseRemediation]):
    class Meta:
        model = CaseRemediation

    case = factory.SubFactory(CaseFactory)
    item = factory.SubFactory(RemediationFactory)
