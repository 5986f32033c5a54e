"""Writing cases through the API with a token: the same validation as `load_cases`, 400 naming
every field, nothing saved on error, 409 for a probable duplicate, 401 without credentials."""

from __future__ import annotations

import json
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.core.management import CommandError
from django.core.management import call_command
from django.test import Client
from django.test import override_settings

from incidents.models import Case

pytestmark = pytest.mark.django_db

# A synthetic case in the case-file format (example.org sources; the vocabulary and shared
# entries of tests/data/library).
NEW_CASE: dict[str, Any] = {
    "slug": "posted-by-script",
    "title": "A script posts a case about NCCL timeouts",
    "kind": "incident",
    "setting": "training",
    "organisations": ["meta"],
    "period": {"start": "2025-02"},
    "summary": "A synthetic case posted through the API.",
    "components": ["network"],
    "symptoms": ["nccl-timeout"],
    "remediations": [
        {"ref": "restart-from-last-checkpoint", "wording": "Restarted from the checkpoint."}
    ],
    "lessons": ["weight-failures-by-gpu-time"],
    "key_figures": [
        {
            "value": 64,
            "unit": "GPUs",
            "measures": "GPUs in the job",
            "source": "https://example.org/posted",
        }
    ],
    "costs": [
        {
            "kind": "gpu_hours_lost",
            "value": 10,
            "locator": "Table 1",
            "source": "https://example.org/posted",
        }
    ],
    "sources": [{"url": "https://example.org/posted", "kind": "primary", "title": "Posted"}],
}


def _editor(django_user_model: Any, *perms: str) -> str:
    user = django_user_model.objects.create_user("editor", password="x")
    user.user_permissions.add(*Permission.objects.filter(codename__in=perms))
    out = StringIO()
    call_command("issue_token", "editor", stdout=out, stderr=StringIO())
    return out.getvalue().strip()


def _post(client: Client, token: str | None, body: Any, query: str = "") -> Any:
    headers = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    return client.post(
        f"/api/cases/{query}", json.dumps(body), content_type="application/json", **headers
    )


def test_a_posted_case_appears_everywhere(
    client: Client, small_library: None, django_user_model: Any
) -> None:
    token = _editor(django_user_model, "add_case")
    response = _post(client, token, NEW_CASE)
    assert response.status_code == 201, response.json()
    assert response["Location"] == "http://testserver/api/cases/posted-by-script/"
    body = response.json()
    assert body["remediations"] == [
        {"slug": "restart-from-last-checkpoint", "text": "Restarted from the checkpoint."}
    ]
    assert body["costs"][0]["text"] == "10 GPU-hours"
    # On the page, in the facets, in the API list, in the export and the feed.
    assert (
        'href="/cases/posted-by-script/"' in client.get("/?symptom=nccl-timeout").content.decode()
    )
    facets = client.get("/api/facets/").json()
    orgs = next(g for g in facets["facets"] if g["facet"] == "organisation")
    assert next(v for v in orgs["values"] if v["slug"] == "meta")["count"] == 3
    assert client.get("/api/cases/?year=2025").json()["results"][0]["slug"] == "posted-by-script"
    export = b"".join(client.get("/api/cases/export.ndjson?year=2025").streaming_content)
    assert json.loads(export.splitlines()[0])["slug"] == "posted-by-script"
    assert "posted-by-script" in client.get("/feeds/cases.atom").content.decode()
    # The same case posted twice is refused the second time.
    again = _post(client, token, NEW_CASE)
    assert again.status_code == 409 and "already exists" in again.json()["detail"]


def test_the_same_primary_source_is_a_probable_duplicate(
    client: Client, small_library: None, django_user_model: Any
) -> None:
    token = _editor(django_user_model, "add_case")
    # leaky-loader's primary source, under another slug.
    twin = {
        **NEW_CASE,
        "slug": "leaky-loader-again",
        "sources": [{"url": "https://example.org/paper", "kind": "primary"}],
        "key_figures": [],
        "costs": [],
    }
    response = _post(client, token, twin)
    assert response.status_code == 409
    assert response.json()["duplicate_of"] == ["leaky-loader"]
    assert not Case.objects.filter(slug="leaky-loader-again").exists()
    assert _post(client, token, twin, "?allow_duplicate=1").status_code == 201


def test_every_wrong_field_is_named_and_nothing_is_saved(
    client: Client, small_library: None, django_user_model: Any
) -> None:
    token = _editor(django_user_model, "add_case")
    bad = {
        **NEW_CASE,
        "title": "",
        "symptoms": ["warp-drive"],
        "sources": [{"url": "not a url", "kind": "primary"}],
        "colour": "blue",
    }
    before = Case.objects.count()
    response = _post(client, token, bad)
    assert response.status_code == 400
    problems = response.json()
    assert {"title", "sources[0].url", "colour"} <= set(problems), problems
    assert Case.objects.count() == before
    # References are checked against the library too (facet values, shared entries).
    unknown = _post(client, token, {**NEW_CASE, "symptoms": ["warp-drive"]})
    assert unknown.status_code == 400
    assert "warp-drive" in unknown.json()["symptoms[0]"][0]
    assert Case.objects.count() == before


def test_one_answer_names_missing_fields_format_errors_and_unknown_references(
    client: Client, small_library: None, django_user_model: Any
) -> None:
    # README: "a 400 names every wrong field": not the slug first, then the rest one at a time.
    token = _editor(django_user_model, "add_case")
    empty = _post(client, token, {})
    assert empty.status_code == 400
    assert {"slug", "title", "summary", "organisations", "sources", "period"} <= set(empty.json())
    assert empty.json()["slug"] == ["is required: the case's slug (lower-case-words)."]
    mixed = {
        **NEW_CASE,
        "period": {"start": "2024-13"},  # the format
        "organisations": ["nope"],  # references, against the library
        "symptoms": ["nccl-timout"],
    }
    problems = _post(client, token, mixed).json()
    assert {"period.start", "organisations[0]", "symptoms[0]"} <= set(problems), problems
    assert "nccl-timeout" in problems["symptoms[0]"][0]  # did you mean
    assert not Case.objects.filter(slug=NEW_CASE["slug"]).exists()


def test_put_replaces_a_case(client: Client, small_library: None, django_user_model: Any) -> None:
    token = _editor(django_user_model, "add_case", "change_case")
    assert _post(client, token, NEW_CASE).status_code == 201
    changed = {**NEW_CASE, "title": "Retitled by a script", "symptoms": ["job-crash"]}
    response = client.put(
        "/api/cases/posted-by-script/",
        json.dumps(changed),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {token}",
    )
    assert response.status_code == 200, response.json()
    assert response.json()["title"] == "Retitled by a script"
    assert [v["slug"] for v in response.json()["facets"]["symptom"]] == ["job-crash"]
    missing = client.put(
        "/api/cases/no-such-case/",
        json.dumps({k: v for k, v in changed.items() if k != "slug"}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {token}",
    )
    assert missing.status_code == 404


def test_anonymous_writes_are_401_with_the_scheme_and_others_403(
    client: Client, small_library: None, django_user_model: Any
) -> None:
    response = _post(client, None, NEW_CASE)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert _post(client, "not-a-token", NEW_CASE).status_code == 401
    reader = _editor(django_user_model)  # a token but no permission
    assert _post(client, reader, NEW_CASE).status_code == 403
    assert not Case.objects.filter(slug="posted-by-script").exists()
    # Endpoints that take no writes say so to an authenticated client.
    assert client.post("/api/facets/", HTTP_AUTHORIZATION=f"Token {reader}").status_code == 405


def test_issue_token_needs_an_existing_user_and_keeps_its_token(django_user_model: Any) -> None:
    with pytest.raises(CommandError, match="no user 'ghost'"):
        call_command("issue_token", "ghost")
    django_user_model.objects.create_user("someone", password="x")
    first, second, err = StringIO(), StringIO(), StringIO()
    call_command("issue_token", "someone", stdout=first, stderr=err)
    call_command("issue_token", "someone", stdout=second, stderr=StringIO())
    assert first.getvalue() == second.getvalue() and len(first.getvalue().strip()) == 40
    assert "incidents.add_case" in err.getvalue()
    rotated = StringIO()
    call_command("issue_token", "someone", "--rotate", stdout=rotated, stderr=StringIO())
    assert rotated.getvalue() != first.getvalue()


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("delete", "/api/suggest/?q=x"),
        ("put", "/api/cases/export.csv"),
        ("post", "/api/facets/"),
        ("delete", "/api/cases/leaky-loader/"),
        ("patch", "/api/"),
        ("post", "/api/schema/"),
        ("post", "/"),
        ("post", "/graph/"),
        ("put", "/cost/"),
        ("delete", "/feeds/cases.atom"),
        ("post", "/cases/leaky-loader/"),
        ("post", "/browse/"),
        ("post", "/graph/data.json"),
        ("post", "/kubegap/"),
    ],
)
def test_a_method_an_endpoint_never_takes_is_405_whatever_the_credentials(
    small_library: None, django_user_model: Any, method: str, path: str
) -> None:
    # Not a 401 (DRF checked credentials first), a 403 (permissions first, or Django's CSRF
    # check before a page's view): the method itself is refused, naming the ones it takes.
    editor = _editor(django_user_model, "add_case", "change_case", "delete_case")
    for headers in ({}, {"HTTP_AUTHORIZATION": f"Token {editor}"}):
        response = getattr(Client(enforce_csrf_checks=True), method)(path, **headers)
        assert response.status_code == 405, (path, headers)
        assert "GET" in response["Allow"] and method.upper() not in response["Allow"]


@pytest.mark.parametrize("debug", [False, True])
def test_a_write_without_the_trailing_slash_is_sent_on_with_its_body(
    client: Client, small_library: None, django_user_model: Any, debug: bool
) -> None:
    """`POST /api/cases` (no slash), a common slip, is a 308 to `/api/cases/`: a client that
    follows it sends the same POST again; Django's 301 would turn it into a GET (a 500 under
    DEBUG). Followed here, the case is written."""
    token = _editor(django_user_model, "add_case")
    headers = {"HTTP_AUTHORIZATION": f"Token {token}"}
    body = json.dumps(NEW_CASE)
    with override_settings(DEBUG=debug):
        moved = client.post(
            "/api/cases?allow_duplicate=1", body, content_type="application/json", **headers
        )
    assert moved.status_code == 308
    assert moved["Location"] == "/api/cases/?allow_duplicate=1"
    assert moved.json() == {"detail": "The address is /api/cases/, with its trailing slash."}
    followed = client.post(moved["Location"], body, content_type="application/json", **headers)
    assert followed.status_code == 201
    # reads keep Django's redirect; an address that exists without the slash is untouched
    assert client.get("/api/cases").status_code == 301
    assert client.post("/api/cases/export.csv").status_code == 405
