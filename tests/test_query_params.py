"""Bounded parameters: a value repeated 1,000 times costs what one does, values per parameter are
capped with a note, and an over-long search word is left out with a note; a parameter that takes
one value, given several, or a year that is not a whole year, is named."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.test import Client

from incidents.query_params import MAX_VALUES
from incidents.query_params import MAX_WORD_CHARS
from incidents.query_params import bound_params
from incidents.selectors.cases import case_queryset


def _get(client: Client, path: str, pairs: list[tuple[str, str]]) -> str:
    response = client.get(f"{path}?{urlencode(pairs)}")
    assert response.status_code == 200
    return response.content.decode()


def test_a_value_repeated_1000_times_is_read_once(client: Client, small_library: None) -> None:
    once = _get(client, "/cost/", [("symptom", "nccl-timeout")])
    # 1,000 is as many fields as Django reads (DATA_UPLOAD_MAX_NUMBER_FIELDS); more are a 400.
    repeated = _get(client, "/cost/", [("symptom", "nccl-timeout")] * 1000)
    assert len(repeated) < len(once) * 1.1
    page = _get(client, "/", [("symptom", "nccl-timeout")] * 500 + [("symptom", "nope")] * 499)
    assert page.count("There is no symptom “nope”") == 1
    assert "symptom=nccl-timeout&amp;symptom=nccl-timeout" not in page


def test_values_per_parameter_are_capped_with_a_note(client: Client, small_library: None) -> None:
    pairs = [("symptom", f"value-{n}") for n in range(MAX_VALUES + 30)]
    page = _get(client, "/", pairs)
    assert f"only the first {MAX_VALUES} were used" in page
    assert page.count("There is no symptom") == MAX_VALUES


def test_an_over_long_search_word_is_left_out_with_a_note(
    client: Client, small_library: None
) -> None:
    long_word = "a" * 2048
    found = case_queryset(params={"q": f"loader {long_word}"})
    plain = case_queryset(params={"q": "loader"})
    assert list(found.queryset) == list(plain.queryset) != []
    assert found.notes == [
        f"The search word “{'a' * 30}…” is 2,048 characters long (at most {MAX_WORD_CHARS}) "
        "and was left out of the search."
    ]
    page = _get(client, "/", [("q", f"loader {long_word}")])
    assert "was left out of the search" in page
    assert long_word not in page


def test_bounds_keep_order_and_the_first_search_text() -> None:
    bounded = bound_params({"symptom": ["b", "a", "b"], "q": ["first", "second"]})
    assert bounded.data.getlist("symptom") == ["b", "a"]
    assert bounded.data.getlist("q") == ["first"]
    assert bounded.notes == []


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("year=2023.5", {"year": "“2023.5” is not a year (parameter year)"}),
        ("q=nccl&q=memory", {"q": "2 different values were given (“nccl”, “memory”)"}),
        ("ordering=newest&ordering=title", {"ordering": "(“newest”, “title”) where one is read"}),
        (
            "year_min=2025&year_max=2020",
            {
                "year_min": "“2025” is after year_max “2020”",
                "year_max": "“2020” is before year_min “2025”",
            },
        ),
    ],
)
def test_a_value_the_api_cannot_read_as_given_is_a_400_naming_the_parameter(
    client: Client, small_library: None, query: str, named: dict[str, str]
) -> None:
    response = client.get(f"/api/cases/?{query}")
    assert response.status_code == 400
    body = response.json()
    assert set(body) == set(named)
    for name, start in named.items():
        [message] = body[name]
        assert start in message and f"(parameter {name})" in message


def test_the_page_says_which_of_repeated_values_it_used(
    client: Client, small_library: None
) -> None:
    page = _get(client, "/", [("q", "timeouts"), ("q", "memory")])
    assert "2 different values were given (“timeouts”, “memory”)" in page
    assert "for “timeouts”" in page  # the first value is the search shown
    assert "2023.5" not in _get(client, "/", [("year", "2023")])
    assert "“2023.5” is not a year" in _get(client, "/", [("year", "2023.5")])


@pytest.mark.parametrize(
    ("page", "status", "start"),
    [
        ("0", 400, "“0” is not a page number (parameter page): give a whole number from 1 to 3."),
        ("abc", 400, "“abc” is not a page number (parameter page)"),
        ("9", 404, "There is no page 9 (parameter page): these cases fill 3 pages."),
    ],
)
def test_a_page_that_is_not_one_of_the_pages_is_named(
    client: Client, small_library: None, page: str, status: int, start: str
) -> None:
    response = client.get(f"/api/cases/?page_size=1&page={page}")
    assert response.status_code == status
    body = response.json()
    [message] = body["page"] if status == 400 else [body["detail"]]
    assert message.startswith(start)
    assert client.get("/api/cases/?page_size=1&page=3").status_code == 200
    html = _get(client, "/", [("page", page)])
    assert f"“{page}” is not a page number" in html or "There is no page 9" in html
    assert "1 to 3 of 3" in html  # the one page there is, still shown
