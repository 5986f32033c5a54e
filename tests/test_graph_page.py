"""The graph view and its data: same filters as the library, constant queries, accessible tables."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.bulk import add_cases
from tests.queries import assert_max_queries

pytestmark = pytest.mark.django_db


def test_graph_data_links_filtered_cases_to_what_they_share(
    client: Client, small_library: None
) -> None:
    body = client.get("/graph/data.json?organisation=meta").json()
    assert body["cases"] == 2
    nodes = {n["data"]["id"]: n["data"] for n in body["elements"]["nodes"]}
    assert {"case:hbm-failures", "case:flaky-network"} <= nodes.keys()
    assert "case:leaky-loader" not in nodes
    assert nodes["root_cause:hardware-fault"]["cases"] == 2
    assert nodes["root_cause:hardware-fault"]["url"] == "/?root_cause=hardware-fault"
    assert nodes["case:hbm-failures"]["url"] == "/cases/hbm-failures/"


def test_graph_includes_shared_remediations_and_lessons(
    client: Client, small_library: None
) -> None:
    body = client.get("/graph/data.json").json()
    ids = {n["data"]["id"] for n in body["elements"]["nodes"]}
    assert "remediation:restart-from-last-checkpoint" in ids
    assert "lesson:weight-failures-by-gpu-time" in ids
    edges = {(e["data"]["source"], e["data"]["target"]) for e in body["elements"]["edges"]}
    assert any("remediation:restart-from-last-checkpoint" in pair for pair in edges)


def test_min_cases_keeps_only_what_cases_share(client: Client, small_library: None) -> None:
    body = client.get("/graph/data.json?min_cases=2").json()
    non_case = {n["data"]["id"] for n in body["elements"]["nodes"] if n["data"]["kind"] != "case"}
    assert non_case == {"root_cause:hardware-fault", "symptom:nccl-timeout"}


def test_bad_parameters_get_a_400_naming_them(client: Client, small_library: None) -> None:
    response = client.get("/graph/data.json?component=nope&min_cases=many")
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert "nope" in errors["component"][0]
    assert "min_cases must be a whole number" in errors["min_cases"][0]


def test_graph_page_works_without_javascript(client: Client, small_library: None) -> None:
    page = client.get("/graph/?organisation=meta").content.decode()
    assert "2 cases linked" in page
    assert "Causes, components and symptoms that connect the most cases" in page
    assert '<a href="/?root_cause=hardware-fault">Hardware fault</a>' in page
    assert 'data-url="/graph/data.json?organisation=meta"' in page
    assert "vendor/cytoscape-3.35.0/cytoscape.min.js" in page


@pytest.mark.parametrize("url", ["/graph/data.json", "/graph/?min_cases=2"])
def test_graph_query_count_is_pinned_whatever_the_number_of_cases(
    client: Client, small_library: None, url: str
) -> None:
    add_cases(60)
    # vocabulary, cases, their facet values, remediations, lessons
    with assert_max_queries(5):
        assert client.get(url).status_code == 200
