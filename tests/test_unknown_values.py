"""One policy for unknown filter values on every face (incidents.selectors.parameters).

Pages a person reads answer 200 with the message (naming the value and the closest known ones)
and the rest of the page under the valid filters; faces a program reads answer 400 with JSON.
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

QUERY = "component=netwrk&organisation=meta"
MESSAGE = "There is no component “netwrk” in the library (parameter component); closest known:"


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", unescape(html)))


@pytest.mark.parametrize(
    ("path", "rest_of_page"),
    [
        ("/", "2 of 2"),  # the organisation filter still applies
        ("/cost/", 'id="cost-headline"'),
        ("/graph/", "What 2 cases share"),
    ],
)
def test_pages_show_the_message_and_the_rest(
    client: Client, small_library: None, path: str, rest_of_page: str
) -> None:
    response = client.get(f"{path}?{QUERY}")
    assert response.status_code == 200
    html = response.content.decode()
    assert MESSAGE in _text(html)
    assert "“network”" in _text(html).split(MESSAGE)[1][:80]
    assert rest_of_page in html or rest_of_page in _text(html)


@pytest.mark.parametrize(
    "path",
    [
        "/api/cases/",
        "/api/facets/",
        "/api/breakdowns/",
        "/graph/data.json",
        "/api/cases/export.csv",
        "/api/cases/export.ndjson",
        "/feeds/cases.atom",
    ],
)
def test_machine_faces_answer_400_naming_it(client: Client, small_library: None, path: str) -> None:
    response = client.get(f"{path}?{QUERY}")
    assert response.status_code == 400
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    problems = body.get("errors", body)  # /graph/data.json keeps its {"errors": ...} envelope
    [message] = problems["component"]
    assert message.startswith(MESSAGE) and "“network”" in message


def test_an_unknown_value_leaves_the_valid_values_of_its_parameter_applied(
    client: Client, small_library: None
) -> None:
    # One renamed slug in a bookmarked link: the page keeps the other values of that parameter
    # (here the one ECC-error case), names the unknown one, and never widens to every case.
    html = client.get("/?symptom=ecc-error&symptom=nope&kind=study&kind=nope").content.decode()
    text = _text(html)
    assert "There is no symptom “nope” in the library (parameter symptom)" in text
    assert "“nope” is not a known kind (parameter kind)" in text
    assert "1 to 1 of 1" in text
    assert 'name="symptom" value="ecc-error"' in html  # still applied, and carried by the form
    response = client.get("/api/cases/?symptom=ecc-error&symptom=nope")
    assert response.status_code == 400
    assert [m.split(";")[0] for m in response.json()["symptom"]] == [
        "There is no symptom “nope” in the library (parameter symptom)"
    ]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("symptom=nope", "There is no symptom “nope” in the library (parameter symptom); closest"),
        ("symptom=", "An empty symptom was given (parameter symptom); give one of the known"),
    ],
)
def test_every_face_names_a_bad_value_in_the_same_words(
    client: Client, small_library: None, query: str, expected: str
) -> None:
    for path in ("/api/suggest/?q=nccl+timeout&", "/api/cases/?"):
        response = client.get(f"{path}{query}")
        assert response.status_code == 400, path
        [message] = response.json()["symptom"]
        assert message.startswith(expected), (path, message)
        assert "Select a valid choice" not in message
