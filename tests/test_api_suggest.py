"""`GET /api/suggest/?q=`: the engine's suggestions with words, score and what each gives."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_suggestions_carry_facet_slug_name_words_score_and_count(
    client: Client, small_library: None
) -> None:
    response = client.get(
        "/api/suggest/", {"q": "our nccl timeouts came from a leaking dataloader"}
    )
    assert response.status_code == 200
    body = response.json()
    assert body["q"] == "our nccl timeouts came from a leaking dataloader"
    by_slug = {s["slug"]: s for s in body["suggestions"]}
    timeout = by_slug["nccl-timeout"]
    assert timeout == {
        "facet": "symptom",
        "facet_label": "Symptom",
        "slug": "nccl-timeout",
        "name": "NCCL timeout",
        "matched": "nccl timeouts",
        "matched_words": ["nccl", "timeouts"],
        "via": "name",
        "score": 1.0,
        "like_cases": [],  # named outright: the like cases were not needed
        "count": 2,  # flaky-network and leaky-loader
    }
    assert by_slug["training-data-loader"]["matched_words"] == ["dataloader"]


def test_counts_keep_the_other_filters(client: Client, small_library: None) -> None:
    everywhere = client.get("/api/suggest/", {"q": "an nccl timeout"}).json()
    [timeout] = everywhere["suggestions"]
    assert timeout["count"] == 2
    at_meta = client.get("/api/suggest/", {"q": "an nccl timeout", "organisation": "meta"}).json()
    assert [s["count"] for s in at_meta["suggestions"]] == [1]


def test_no_text_or_an_unknown_filter_is_a_400(client: Client, small_library: None) -> None:
    assert client.get("/api/suggest/").json() == {"q": ["Give the text to read in q."]}
    response = client.get("/api/suggest/", {"q": "job crash", "symptom": "warp-drive"})
    assert response.status_code == 400
    assert "symptom" in response.json()


def test_the_endpoint_is_in_the_openapi_schema(client: Client, db: None) -> None:
    schema = client.get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/api/suggest/"]["get"]
    assert {p["name"] for p in operation["parameters"]} >= {"q", "symptom", "not_symptom"}
    suggestion = schema["components"]["schemas"]["Suggestion"]["properties"]
    assert set(suggestion) >= {"facet", "slug", "name", "matched_words", "score", "count"}


@pytest.mark.parametrize("text", ["Ⱥ^\x88", "the and of"])
def test_a_text_with_no_word_to_search_is_read_too(
    client: Client, small_library: None, text: str
) -> None:
    """Text the search keeps no word of (symbols, stop words) still gets its suggestions (none
    here), not a server error: schemathesis found `?q=Ⱥ^%C2%88` failing with a 500."""
    for params in ({"q": text}, {"q": text, "root_cause": "hardware-fault"}):
        response = client.get("/api/suggest/", params)
        assert response.status_code == 200, response.content[:300]
        assert response.json()["suggestions"] == []
