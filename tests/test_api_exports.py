"""Whole-set exports (CSV, JSON, NDJSON) under the current filters, and the Atom feed."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import xml.etree.ElementTree as ET

import pytest
from django.http import StreamingHttpResponse
from django.test import Client

from incidents.models import Case
from incidents.models import LibraryState
from incidents.selectors.export_rows import CHUNK
from tests.bulk import add_cases
from tests.queries import assert_max_queries

pytestmark = pytest.mark.django_db
ATOM = "{http://www.w3.org/2005/Atom}"


def _body(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    assert isinstance(response, StreamingHttpResponse)  # streamed, not built in memory
    return b"".join(response.streaming_content).decode("utf-8")  # type: ignore[arg-type]


def test_csv_opens_in_a_spreadsheet_and_holds_every_case(
    client: Client, small_library: None
) -> None:
    add_cases(45)  # more than a page
    response = client.get("/api/cases/export.csv")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="cases.csv"'
    text = _body(client, "/api/cases/export.csv")
    assert text.startswith("\ufeffslug,title,kind,setting,")
    assert "\r\n" in text
    rows = list(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))))
    assert len(rows) == 48
    assert [r["slug"] for r in rows[:1]] == [
        client.get("/api/cases/").json()["results"][0]["slug"]
    ]  # the list's order
    loader = next(r for r in rows if r["slug"] == "leaky-loader")
    assert loader["organisation"] == "shanghai-ai-laboratory"
    assert loader["primary_source"] == "https://example.org/paper"
    assert loader["url"] == "http://testserver/cases/leaky-loader/"


def test_csv_cells_are_never_formulas(client: Client, small_library: None) -> None:
    Case.objects.filter(slug="leaky-loader").update(title="=HYPERLINK(1)")
    rows = list(
        csv.DictReader(io.StringIO(_body(client, "/api/cases/export.csv").lstrip("\ufeff")))
    )
    assert next(r for r in rows if r["slug"] == "leaky-loader")["title"] == "'=HYPERLINK(1)"


def test_json_and_ndjson_follow_the_filters(client: Client, small_library: None) -> None:
    records = json.loads(_body(client, "/api/cases/export.json?organisation=meta"))
    assert [r["slug"] for r in records] == ["hbm-failures", "flaky-network"]
    assert records[1]["symptom"] == ["job-crash", "nccl-timeout"]
    lines = _body(client, "/api/cases/export.ndjson?organisation=meta&ordering=oldest").splitlines()
    assert [json.loads(line)["slug"] for line in lines] == ["flaky-network", "hbm-failures"]
    assert json.loads(_body(client, "/api/cases/export.json?year=1999")) == []


def test_export_queries_do_not_grow_with_the_library(client: Client, small_library: None) -> None:
    add_cases(CHUNK - 10)
    # version, vocabulary, the cases, their facet values, their sources (one chunk)
    with assert_max_queries(5):
        lines = _body(client, "/api/cases/export.ndjson").splitlines()
    assert len(lines) == CHUNK - 7


def test_the_feed_follows_the_filters_and_the_page_links_it(
    client: Client, small_library: None
) -> None:
    response = client.get("/feeds/cases.atom?organisation=meta")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    feed = ET.fromstring(response.content)
    assert feed.findtext(f"{ATOM}title") == "Incident Library: Organisation Meta"
    entries = [e.findtext(f"{ATOM}title") for e in feed.iter(f"{ATOM}entry")]
    assert entries == ["HBM failures interrupt a large run", "Flapping links slow a job"]
    links = [link.get("href") for e in feed.iter(f"{ATOM}entry") for link in e.iter(f"{ATOM}link")]
    assert links[0] == "http://testserver/cases/hbm-failures/"
    # The feed's own address keeps its filters (a reader that follows rel="self" gets this feed,
    # not the feed of every case); its page is the library under the same filters.
    own = {link.get("rel"): link.get("href") for link in feed.findall(f"{ATOM}link")}
    assert own == {
        "self": "http://testserver/feeds/cases.atom?organisation=meta",
        "alternate": "http://testserver/?organisation=meta",
    }
    page = client.get("/?organisation=meta&kind=study").content.decode()
    assert (
        '<link rel="alternate" type="application/atom+xml" title="These cases, newest first (Atom)"'
        ' href="/feeds/cases.atom?organisation=meta&amp;kind=study">'
    ) in page
    one = ET.fromstring(client.get("/feeds/cases.atom?organisation=meta&kind=study").content)
    assert len(list(one.iter(f"{ATOM}entry"))) == 1


def _feed_dates(client: Client) -> tuple[dict[str, tuple[str, str]], str, str]:
    response = client.get("/feeds/cases.atom")
    feed = ET.fromstring(response.content)
    entries = {
        str(e.findtext(f"{ATOM}title")): (
            str(e.findtext(f"{ATOM}published")),
            str(e.findtext(f"{ATOM}updated")),
        )
        for e in feed.iter(f"{ATOM}entry")
    }
    return entries, str(feed.findtext(f"{ATOM}updated")), response["ETag"]


def test_feed_entries_carry_the_cases_own_dates_not_the_rows(
    client: Client, small_library: None
) -> None:
    entries, _, etag = _feed_dates(client)
    # The case's own date (here its period's start: 2024, 2022-05-02), not the load's time.
    assert entries["HBM failures interrupt a large run"][0].startswith("2024-01-01T00:00:00")
    assert entries["Flapping links slow a job"] == (
        "2022-05-02T00:00:00+00:00",
        "2022-05-02T00:00:00+00:00",
    )
    # A rebuilt database: every row written again later, the version stamp counting again
    # from the same number. No entry looks new or changed; the feed's ETag is not the old one.
    later = dt.datetime(2031, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
    Case.objects.update(created_at=later, updated_at=later)
    LibraryState.objects.update(changed_at=later)
    rebuilt, updated, rebuilt_etag = _feed_dates(client)
    assert rebuilt == entries
    assert updated == "2031-01-02T03:04:05+00:00"  # the feed's own date: the library's change
    assert rebuilt_etag != etag
    assert client.get("/feeds/cases.atom", HTTP_IF_NONE_MATCH=etag).status_code == 200


def test_an_unchanged_export_or_feed_is_a_304(client: Client, small_library: None) -> None:
    for url in ("/api/cases/export.csv?kind=study", "/feeds/cases.atom"):
        etag = client.get(url)["ETag"]
        assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304, url


def test_the_schema_gives_the_fields_a_json_export_holds(
    client: Client, small_library: None
) -> None:
    """A tool generating a client from the schema gets the export's rows, not `{}` (anything),
    and the root does not promise whole cases (the summary, costs and remediations are the
    detail's)."""
    schema = client.get("/api/schema/", {"format": "json"}).json()
    ok = schema["paths"]["/api/cases/export.{export_format}"]["get"]["responses"]["200"]
    assert ok["content"]["application/json"]["schema"] == {
        "type": "array",
        "items": {"$ref": "#/components/schemas/CaseExportRecord"},
    }
    record = schema["components"]["schemas"]["CaseExportRecord"]
    for row in json.loads(_body(client, "/api/cases/export.json")):
        assert sorted(row) == sorted(record["properties"]) == sorted(record["required"])
        nullable = {k for k, v in record["properties"].items() if v.get("nullable")}
        assert {k for k, v in row.items() if v is None} <= nullable
    described = client.get("/api/").json()["export_json"]["description"]
    assert "whole" not in described and "facet slugs" in described
