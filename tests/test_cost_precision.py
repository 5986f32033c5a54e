"""A cost the library computed is printed no more precisely than its inputs: "up to 16K GPUs"
times "under 10%" is "less than 2,120,000 GPU-hours", not "2,123,366.4"; the formula beside it and
the API's `value` keep the exact arithmetic, and a figure a source states keeps its own digits."""

from __future__ import annotations

import pytest
from django.test import Client

from incidents.amounts import figure_text
from incidents.amounts import significant
from incidents.models import CostFigure

pytestmark = pytest.mark.django_db

LLAMA3 = "meta-llama3-405b-interruptions"


def test_significant_figures() -> None:
    assert significant(2123366.4) == 2120000
    assert significant(0.04567) == 0.0457
    assert significant(-1234.0) == -1230
    assert significant(0) == 0
    assert figure_text(2123366.4, "less_than", "GPU-hours", derived=True) == (
        "less than 2,120,000 GPU-hours"
    )
    assert figure_text(17.26, "", "%") == "17.26%"  # a stated figure keeps its digits
    assert figure_text(1234.5, "about", "hours") == "about 1,234.5 hours"


def test_a_derived_cost_reads_to_three_figures_on_the_card_and_in_the_api(
    client: Client, seeded_library: None
) -> None:
    figure = CostFigure.objects.get(case__slug=LLAMA3, kind="gpu_hours_lost")
    assert figure.derived and figure.value == pytest.approx(2123366.4)
    page = client.get(f"/cases/{LLAMA3}/").content.decode()
    assert "less than 2,120,000 GPU-hours" in page
    assert "= 2,123,366.4 GPU-hours" in page  # the formula is the exact arithmetic
    api = client.get(f"/api/cases/{LLAMA3}/").json()
    [cost] = [c for c in api["costs"] if c["kind"] == "gpu_hours_lost"]
    assert cost["text"] == "less than 2,120,000 GPU-hours"
    assert cost["value"] == pytest.approx(2123366.4)
