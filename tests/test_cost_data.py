"""The seeded library's costs and breakdowns (issue 9's targets), as a reader sees them."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.utils.html import escape

from incidents.models import Breakdown
from incidents.models import Case
from incidents.models import Confirmation
from incidents.models import CostFigure
from incidents.models import CostKind
from incidents.models import Source

pytestmark = pytest.mark.django_db

# The kinds that measure GPU time (the seed's own metric): a case with one has a GPU-time cost.
GPU_TIME_KINDS = (CostKind.GPU_HOURS_LOST, CostKind.GPU_TIME_SHARE)


def test_at_least_15_cases_have_a_gpu_time_cost(seeded_library: None) -> None:
    cases = set(
        CostFigure.objects.filter(kind__in=GPU_TIME_KINDS).values_list("case__slug", flat=True)
    )
    assert len(cases) >= 15, sorted(cases)


def test_at_least_8_breakdowns_read_in_their_sources(seeded_library: None) -> None:
    tables = Breakdown.objects.filter(status=Confirmation.CONFIRMED)
    assert tables.count() >= 8
    for table in Breakdown.objects.all():
        assert table.locator and table.source_url, table.slug
        assert table.rows.exists(), table.slug  # type: ignore[attr-defined]
        if table.status == Confirmation.SECONDARY:
            assert "Secondary transcription" in table.notes, table.slug


def test_breakdowns_from_at_least_8_studies(seeded_library: None) -> None:
    """A study is a case with breakdown tables; two cases citing the same main source (a paper
    split into several cases) count once."""
    cases = Case.objects.filter(breakdowns__isnull=False).distinct()
    main_sources = {
        Source.objects.filter(case=case).order_by("position").values_list("url", flat=True)[0]
        for case in cases
    }
    assert len(main_sources) >= 8, sorted(main_sources)
    assert len(main_sources) == cases.count()


NEW_STUDIES = {
    "surf-lisa-ml-job-final-states": "ml-jobs-final-state-runtime",
    "ncsa-blue-waters-failure-study": "failures-and-repair-hours-by-cause",
}


def test_the_cost_view_and_the_api_show_every_studys_tables(
    client: Client, seeded_library: None
) -> None:
    page = re.sub(r"\s+", " ", client.get("/cost/").content.decode())
    body = client.get("/api/breakdowns/", {"page_size": 100}).json()
    listed = {(t["case"]["slug"], t["slug"]) for t in body["results"]}
    assert body["count"] == Breakdown.objects.count() == len(listed)
    for table in Breakdown.objects.select_related("case"):
        assert (table.case.slug, table.slug) in listed
        assert f"/cases/{table.case.slug}/" in page, table.case.slug
    for case_slug, table_slug in NEW_STUDIES.items():
        assert (case_slug, table_slug) in listed
        title = re.sub(r"\s+", " ", Breakdown.objects.get(case__slug=case_slug).title)
        assert escape(title) in page, case_slug


def test_a_case_with_breakdowns_but_no_case_cost_points_to_its_breakdowns(
    client: Client, seeded_library: None
) -> None:
    page = re.sub(
        r"\s+", " ", client.get("/cases/ncsa-blue-waters-failure-study/").content.decode()
    )
    costs = page[page.index('id="cost-heading"') : page.index('id="breakdowns-heading"')]
    assert "its failure breakdowns below are in the cost view" in costs
    assert "leaves it out of its charts" not in costs


def test_software_outweighs_hardware_by_repair_hours_on_blue_waters(
    client: Client, seeded_library: None
) -> None:
    body = client.get("/api/breakdowns/", {"organisation": "ncsa"}).json()
    table = next(t for t in body["results"] if t["slug"] == "failures-and-repair-hours-by-cause")
    shares = {r["label"]: (r["count_share"], r["cost_share"]) for r in table["rows"]}
    assert shares["Hardware"] == (42.0, 23.0)
    assert shares["Software"] == (20.0, 53.0)


def test_the_seeded_cost_view_leads_with_acmes_infrastructure_failures(
    client: Client, seeded_library: None
) -> None:
    page = re.sub(r"\s+", " ", client.get("/cost/").content.decode())
    start = page.index('id="cost-headline"')
    headline = page[start : page.index("</div>", start)]
    assert '<strong class="hl-label">Infrastructure</strong>' in headline
    assert '<span class="hl-count">11%</span>' in headline
    assert '<span class="hl-cost">more than 82%</span>' in headline
    assert 'href="https://arxiv.org/abs/2403.07648"' in headline
    assert page.index('id="cost-headline"') < page.index('id="kinds-heading"')


def test_llama3s_table_is_shown_as_printed_with_its_inconsistency(
    client: Client, seeded_library: None
) -> None:
    page = client.get("/cases/meta-llama3-405b-interruptions/").content.decode()
    assert "148 of 419 is 35.3%, but the source prints 30.1%" in page
    assert "their printed shares by count sum to 94.9%, not 100%" in page


def test_derived_costs_show_their_formula_on_the_page_and_in_the_api(
    client: Client, seeded_library: None
) -> None:
    slug = "bigscience-bloom176b-gpu-crash-hang"
    page = client.get(f"/cases/{slug}/").content.decode()
    assert "Derived: 7.3 h x 384 GPUs = 2,803.2 GPU-hours" in page
    body = client.get(f"/api/cases/{slug}/").json()
    gpu_hours = next(c for c in body["costs"] if c["kind"] == "gpu_hours_lost")
    assert (gpu_hours["derived"], gpu_hours["formula"]) == (
        True,
        "7.3 h x 384 GPUs = 2,803.2 GPU-hours",
    )
    assert all(c["formula"] for c in body["costs"] if c["derived"])
    assert not CostFigure.objects.filter(derived=True, formula="").exists()
