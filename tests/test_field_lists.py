"""The field lists that the loader, the case-file keys and the API share name every stored field
of costs and breakdowns: a field added to a model and not to its list would be neither loaded
from the case files nor shown by the API."""

from __future__ import annotations

import pytest
from django.db import models

from incidents.models import Breakdown
from incidents.models import BreakdownRow
from incidents.models import CostFigure
from incidents.models.breakdowns import BREAKDOWN_FIELDS
from incidents.models.breakdowns import ROW_FIELDS
from incidents.models.costs import COST_FIELDS
from incidents.services import LibraryError
from incidents.services.breakdown_fields import BREAKDOWN_KEYS
from incidents.services.breakdown_fields import ROW_KEYS
from incidents.services.case_fields import read_case_mapping
from incidents.services.cost_fields import COST_KEYS
from incidents.services.field_lists import case_file_keys


def _stored_fields(model: type[models.Model], owner: str) -> set[str]:
    """The columns a source states: not the id, the owner, the position or a many-to-many."""
    return {
        f.name
        for f in model._meta.get_fields()
        if f.concrete and not f.many_to_many and f.name not in {"id", owner, "position"}
    }


def test_the_field_lists_name_every_stored_field_once() -> None:
    for fields, model, owner in (
        (COST_FIELDS, CostFigure, "case"),
        (BREAKDOWN_FIELDS, Breakdown, "case"),
        (ROW_FIELDS, BreakdownRow, "breakdown"),
    ):
        assert len(set(fields)) == len(fields)
        assert set(fields) == _stored_fields(model, owner), model.__name__


def test_case_files_cite_the_source_as_source() -> None:
    assert case_file_keys(["locator", "source_url"], "rows") == {"locator", "source", "rows"}
    assert "source" in COST_KEYS and "source_url" not in COST_KEYS
    assert {"source", "rows"} <= BREAKDOWN_KEYS and "source_url" not in BREAKDOWN_KEYS
    assert "maps_to" in ROW_KEYS


def _problems(raw: dict[str, object]) -> str:
    with pytest.raises(LibraryError) as caught:
        read_case_mapping("a-case", raw, display="cases/a-case.yaml")
    return str(caught.value)


def test_a_list_field_that_is_not_a_list_of_mappings_is_named() -> None:
    message = _problems({"costs": "12 GPU-hours", "breakdowns": [7, {"slug": "t", "colour": 1}]})
    assert "field 'costs': must be a list of {kind, value, source, locator, ...} entries" in message
    assert (
        "field 'breakdowns[0]': must be a mapping with slug, title, source, locator and rows"
        in message
    )
    assert "field 'breakdowns[1].colour': is not a known field" in message
    message = _problems({"costs": [{"kind": "outage_minutes", "source_url": "x"}, "ten"]})
    assert "field 'costs[0].source_url': is not a known field" in message
    assert "field 'costs[1]': must be a mapping with kind, value, source and locator" in message
