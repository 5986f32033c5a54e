"""/api/breakdowns/: breakdown tables, filtered like the library (by their case) and by unit."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.bulk import add_cases
from tests.queries import assert_max_queries

pytestmark = pytest.mark.django_db


def _slugs(client: Client, query: str = "") -> list[tuple[str, str]]:
    response = client.get(f"/api/breakdowns/{query}")
    assert response.status_code == 200, response.content
    return [(t["case"]["slug"], t["slug"]) for t in response.json()["results"]]


def test_lists_every_table_with_its_case_and_rows(client: Client, small_library: None) -> None:
    body = client.get("/api/breakdowns/").json()
    assert body["count"] == 3
    table = next(t for t in body["results"] if t["case"]["slug"] == "hbm-failures")
    assert table["case"]["api_url"] == "http://testserver/api/cases/hbm-failures/"
    assert (table["counted"], table["cost_unit"], table["locator"]) == (
        "failed_jobs",
        "gpu_hours",
        "Table 3",
    )
    assert [(r["label"], r["count"], r["cost"]) for r in table["rows"]] == [
        ("Script errors", 70.0, 50.0),
        ("Network flaps", 20.0, 150.0),
        ("HBM errors", 10.0, 800.0),
    ]
    assert {v["slug"] for v in table["rows"][2]["maps_to"]} == {"hardware-fault", "gpu-memory"}


def test_the_librarys_filters_apply_to_the_owning_case(client: Client, small_library: None) -> None:
    assert _slugs(client, "?organisation=shanghai-ai-laboratory") == [
        ("leaky-loader", "restarts-by-cause")
    ]
    assert _slugs(client, "?component=gpu-memory") == [("hbm-failures", "failed-jobs-by-cause")]
    assert ("leaky-loader", "restarts-by-cause") not in _slugs(client, "?not_symptom=nccl-timeout")


def test_unit_filters(client: Client, small_library: None) -> None:
    assert _slugs(client, "?counted=interruptions") == [("leaky-loader", "restarts-by-cause")]
    assert len(_slugs(client, "?cost_unit=gpu_hours")) == 2
    assert len(_slugs(client, "?counted=interruptions&counted=failed_jobs")) == 3
    assert _slugs(client, "?cost_unit=gpu_hours&organisation=shanghai-ai-laboratory") == []


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ("?counted=tickets", "counted", "'tickets' is not one of failed_jobs"),
        ("?cost_unit=dollars", "cost_unit", "'dollars' is not one of gpu_hours"),
        ("?component=warp-drive", "component", "warp-drive"),
    ],
)
def test_unknown_values_are_a_400_naming_them(
    client: Client, small_library: None, query: str, field: str, message: str
) -> None:
    response = client.get(f"/api/breakdowns/{query}")
    assert response.status_code == 400
    assert message in response.json()[field][0]


def test_paginated_like_the_other_lists(client: Client, small_library: None) -> None:
    add_cases(25)
    first = client.get("/api/breakdowns/").json()
    assert first["count"] == 28 and len(first["results"]) == 20
    assert first["next"] == "http://testserver/api/breakdowns/?page=2"
    assert len(client.get(first["next"]).json()["results"]) == 8


def test_in_the_openapi_schema(client: Client) -> None:
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operation = schema["paths"]["/api/breakdowns/"]["get"]
    params = {p["name"]: p for p in operation["parameters"]}
    assert {"counted", "cost_unit", "component", "not_organisation", "q", "page"} <= set(params)
    assert params["counted"]["schema"]["items"]["enum"][0] == "failed_jobs"
    detail = schema["components"]["schemas"]["CaseDetail"]["properties"]
    assert {"costs", "breakdowns"} <= set(detail)
    cost = schema["components"]["schemas"]["CostFigure"]["properties"]
    assert {"kind", "bound", "derived", "formula", "text", "unit"} <= set(cost)


def test_query_count_is_pinned_whatever_the_number_of_tables(
    client: Client, small_library: None
) -> None:
    add_cases(60)
    # version, vocabulary, count, a page of tables with their cases, their rows, the rows' values
    with assert_max_queries(6):
        response = client.get("/api/breakdowns/?counted=failed_jobs&not_organisation=meta")
    assert response.status_code == 200 and len(response.json()["results"]) == 20
