"""The REST API: the same filters as the pages, for tooling."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from django.db import connection
from django.test import Client
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from incidents.api.serializers import CaseSummarySerializer
from incidents.facets import FACETS
from incidents.selectors import facet_index
from incidents.selectors.cases import case_detail_queryset
from incidents.services.library_version import bump
from tests.bulk import add_cases
from tests.queries import assert_max_queries

pytestmark = pytest.mark.django_db


def test_case_list_filters_like_the_pages(client: Client, small_library: None) -> None:
    response = client.get("/api/cases/?symptom=nccl-timeout&organisation=meta")
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 1
    [row] = body["results"]
    assert row["slug"] == "flaky-network"
    assert row["period"]["label"] == "2 May 2022"
    assert row["facets"]["symptom"] == [
        {"slug": "job-crash", "name": "Job crash"},
        {"slug": "nccl-timeout", "name": "NCCL timeout"},
    ]
    assert row["url"] == "http://testserver/cases/flaky-network/"


def test_list_rows_are_what_the_case_serializer_writes(
    client: Client, seeded_library: None
) -> None:
    """The list writes its rows directly (CaseSummaryListSerializer); each is, key for key and
    value for value, what CaseSummarySerializer's fields write for that case."""
    rows = client.get("/api/cases/?page_size=100").json()["results"]
    request = Request(APIRequestFactory().get("/api/cases/"))
    cases = case_detail_queryset().in_bulk([row["slug"] for row in rows], field_name="slug")
    assert len(rows) > 50
    for row in rows:
        expected = CaseSummarySerializer(cases[row["slug"]], context={"request": request}).data
        assert row == json.loads(json.dumps(expected)), row["slug"]
        assert list(row) == list(expected)  # in the same order


def test_unknown_filter_value_is_a_400_naming_it_and_the_closest(
    client: Client, small_library: None
) -> None:
    response = client.get("/api/cases/?component=netwrk&organisation=meta")
    assert response.status_code == 400
    [message] = response.json()["component"]
    assert "“netwrk”" in message and "closest known: “network”" in message
    response = client.get("/api/cases/?kind=studdy")
    assert response.status_code == 400
    assert "closest known: “study”" in response.json()["kind"][0]


@pytest.mark.parametrize("url", ["/api/cases/", "/api/facets/", "/api/breakdowns/", "/api/checks/"])
def test_unknown_parameter_is_a_400_naming_the_closest(
    client: Client, small_library: None, url: str
) -> None:
    response = client.get(f"{url}?organization=meta")
    assert response.status_code == 400
    [message] = response.json()["organization"]
    assert "Unknown parameter “organization”" in message
    if url != "/api/checks/":
        assert "closest known: “organisation”" in message


def _readme_endpoints() -> set[str]:
    """The paths README's "A REST API" item says `/api/` lists."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    item = readme.split("- **A REST API**", 1)[1].split("\n- ", 1)[0]
    paths = set()
    for path in re.findall(r"`(/(?:api|feeds)/[^`]*)`", item):
        path = path.split("?", 1)[0]
        stem, dot, formats = path.rpartition(".")
        paths |= {f"{stem}.{f}" for f in formats.split("|")} if dot and "|" in formats else {path}
    return paths - {"/api/"}


def test_root_lists_every_endpoint(client: Client, small_library: None) -> None:
    body = client.get("/api/").json()
    assert body["cases"]["url"] == "http://testserver/api/cases/"
    listed = {entry["url"].removeprefix("http://testserver") for entry in body.values()}
    promised = _readme_endpoints()
    assert {"/api/suggest/", "/api/cases/export.ndjson", "/feeds/cases.atom"} <= promised
    assert promised <= listed
    for entry in body.values():
        query = "?q=nccl" if entry["url"].endswith("/suggest/") else ""
        assert client.get(entry["url"] + query).status_code == 200, entry


def test_page_size_is_bounded_and_documented(client: Client, small_library: None) -> None:
    add_cases(120)
    assert len(client.get("/api/cases/").json()["results"]) == 20
    body = client.get("/api/cases/?page_size=50&page=2").json()
    assert len(body["results"]) == 50 and body["count"] == 123
    assert "page_size=50" in body["next"]
    assert len(client.get("/api/cases/?page_size=100").json()["results"]) == 100
    for bad in ("101", "0", "lots"):
        response = client.get(f"/api/cases/?page_size={bad}")
        assert response.status_code == 400, bad
        assert "from 1 to 100" in response.json()["page_size"][0]
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    params = {p["name"]: p for p in schema["paths"]["/api/cases/"]["get"]["parameters"]}
    assert params["page_size"]["schema"]["maximum"] == 100
    assert "newest first" in params["ordering"]["description"]


def test_kind_year_and_ordering_filter_the_api_too(client: Client, small_library: None) -> None:
    def slugs(query: str) -> list[str]:
        response = client.get(f"/api/cases/?{query}")
        assert response.status_code == 200, response.json()
        return [row["slug"] for row in response.json()["results"]]

    assert slugs("kind=study") == ["hbm-failures"]
    assert slugs("year_max=2023&ordering=oldest") == ["flaky-network", "leaky-loader"]
    assert slugs("year=2022&setting=training") == ["flaky-network"]
    assert client.get("/api/cases/?year=twenty").status_code == 400


def test_case_detail_has_the_whole_card(client: Client, small_library: None) -> None:
    body = client.get("/api/cases/leaky-loader/").json()
    assert body["remediations"] == [
        {
            "slug": "restart-from-last-checkpoint",
            "text": "Restarted by hand from the last checkpoint.",
        }
    ]
    assert body["lessons"][0]["slug"] == "weight-failures-by-gpu-time"
    assert body["key_figures"] == [
        {
            "value": 4704.0,
            "unit": "GPUs",
            "measures": "A100 GPUs in the two clusters",
            "source_url": "https://example.org/paper",
        }
    ]
    assert body["costs"][0] == {
        "kind": "interruptions",
        "value": 12.0,
        "unit": "interruptions",
        "bound": "",
        "text": "12 interruptions",
        "of": "",
        "scope": "",
        "per_occurrence": False,
        "derived": False,
        "formula": "",
        "locator": "Table 2",
        "note": "",
        "source_url": "https://example.org/paper",
        "status": "confirmed",
    }
    assert body["costs"][1]["text"] == "about 5.5 hours"
    [table] = body["breakdowns"]
    assert table["slug"] == "restarts-by-cause" and table["counted"] == "interruptions"
    assert table["rows"][0]["maps_to"] == [
        {"facet": "component", "slug": "training-data-loader", "name": "Training data loader"}
    ]
    assert body["sources"][0]["url"] == "https://example.org/paper"


def test_missing_case_is_404(client: Client, small_library: None) -> None:
    response = client.get("/api/cases/no-such-case/")
    assert response.status_code == 404
    # The slug asked for, not the model's internals ("No Case matches the given query.").
    assert response.json() == {"detail": "No case with slug 'no-such-case'."}


def test_facet_counts_follow_the_filters(client: Client, small_library: None) -> None:
    body = client.get("/api/facets/?organisation=meta").json()
    assert body["count"] == 2
    organisations = next(g for g in body["facets"] if g["facet"] == "organisation")
    counts = {v["slug"]: (v["count"], v["selected"]) for v in organisations["values"]}
    # Meta's own 2 cases; adding Shanghai (OR within a facet) gives all 3, as its link does.
    assert counts == {"meta": (2, True), "shanghai-ai-laboratory": (3, False)}
    assert (
        client.get("/api/cases/?organisation=meta&organisation=shanghai-ai-laboratory").json()[
            "count"
        ]
        == 3
    )
    components = next(g for g in body["facets"] if g["facet"] == "component")
    memory = next(v for v in components["values"] if v["slug"] == "gpu-memory")
    assert memory["parent"] == "gpu-hardware"


def test_openapi_schema_is_served(client: Client) -> None:
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    params = {p["name"] for p in schema["paths"]["/api/cases/"]["get"]["parameters"]}
    assert {"q", "root_cause", "not_component", "organisation", "page"} <= params


@pytest.mark.parametrize(
    ("url", "pin"),
    [
        # version, the facet index (vocabulary, the cases in order, their links: once per
        # version and process; test_steady_lists_read_the_version_and_one_page_of_cases for the requests after),
        # a page of 20 cases by id, their facet values (count and page from the index)
        ("/api/cases/", 6),
        ("/api/cases/?symptom=nccl-timeout&not_organisation=meta", 6),
        ("/api/facets/", 3 + len(FACETS)),  # version, vocabulary, count, one count per facet
        ("/api/facets/?symptom=job-crash&not_organisation=meta&kind=incident", 8),
        ("/api/checks/?page_size=100", 3),  # version, the cited cases' titles
        # the case, its 7 prefetched relations and its breakdowns' rows and their values
        ("/api/cases/bulk-7/", 12),  # and the version
    ],
)
def test_query_count_is_pinned_whatever_the_number_of_cases(
    client: Client, small_library: None, url: str, pin: int
) -> None:
    add_cases(60)
    with assert_max_queries(pin):
        response = client.get(url)
    assert response.status_code == 200
    for row in response.json().get("results", []):
        if "facets" in row:
            assert any(row["facets"].values()), row["slug"]  # every case is tagged


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "url", ["/api/cases/?page=2", "/api/cases/?not_organisation=meta&page=2", "/?page=2"]
)
def test_steady_lists_read_the_version_and_one_page_of_cases(
    client: Client, small_library: None, url: str
) -> None:
    """Once the process holds the facet index of the committed library, a list (API or page,
    any page, any facet filter) reads the version, then its cases by id with their facet
    values (one query on PostgreSQL, an array per case; two on SQLite)."""
    add_cases(60)
    facet_index.forget()
    assert client.get("/api/cases/").status_code == 200  # builds the index
    with assert_max_queries(2 if connection.vendor == "postgresql" else 3):
        response = client.get(url)
    assert response.status_code == 200


def test_the_schema_validates_without_a_warning(small_library: None, tmp_path: Path) -> None:
    target = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(target))
    schema = yaml.safe_load(target.read_text())
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            codes = set(operation["responses"])
            assert {"401", "429"} <= codes, (method, path)
            if method == "get":
                assert {"200", "304"} <= codes, (method, path)
    symptom = next(
        p for p in schema["paths"]["/api/cases/"]["get"]["parameters"] if p["name"] == "symptom"
    )
    assert "nccl-timeout" in symptom["schema"]["items"]["enum"]  # the live vocabulary


def test_api_docs_are_served_from_this_origin(client: Client) -> None:
    page = client.get("/api/docs/").content.decode()
    assert "swagger-ui" in page
    assert "cdn" not in page.lower()
    assert "//unpkg" not in page and "jsdelivr" not in page


def test_an_unfiltered_list_follows_every_write(client: Client, small_library: None) -> None:
    """The unfiltered list's query is shared by the requests of one library version: a write
    (one per test: a test is one transaction, which bumps the version once) must still show on
    the next request."""
    before = client.get("/api/cases/?page_size=100").json()
    add_cases(1, prefix="newest")
    bump()  # bulk writes send no signals
    after = client.get("/api/cases/?page_size=100").json()
    assert after["count"] == before["count"] + 1
    assert "newest-0" in {row["slug"] for row in after["results"]}


@pytest.mark.parametrize(
    "query",
    [
        "",
        "page=2&page_size=2",
        "page=3&page_size=1",
        "format=json&page_size=1&page=2",
        "page_size=1&kind=incident&kind=study&page=2",
        "page=2&page_size=1&q=",
    ],
)
def test_page_links_are_drfs(client: Client, small_library: None, query: str) -> None:
    """The list's `next` and `previous` (written by PageNumberPagination._link_to, the URL
    parsed once) are the links DRF's own pagination writes for the same page."""
    from rest_framework.pagination import PageNumberPagination as DrfPagination

    from incidents.api.pagination import PageNumberPagination

    body = client.get(f"/api/cases/?{query}").json()
    request = Request(APIRequestFactory().get(f"/api/cases/?{query}"))
    ours = PageNumberPagination()
    ours.paginate_queryset(list(range(body["count"])), request)
    drf = DrfPagination()
    drf.page_size = ours.get_page_size(request)
    drf.paginate_queryset(list(range(body["count"])), request)
    assert (body["next"], body["previous"]) == (drf.get_next_link(), drf.get_previous_link())
    assert (ours.get_next_link(), ours.get_previous_link()) == (body["next"], body["previous"])
