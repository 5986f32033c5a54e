"""The seeded library's costs and breakdowns (issue 9's targets), as a reader sees them."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from incidents.models import GPU_TIME_KINDS, Breakdown, Confirmation, CostFigure

pytestmark = pytest.mark.django_db


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
