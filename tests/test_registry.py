"""Guard, in the manner of NetBox's test_missing_filters: every facet of the registry and every
field of a case has its filter, its API field and its page, or a written reason why not."""

from __future__ import annotations

import re

import pytest
from django.apps import apps
from django.test import Client
from django.urls import reverse

from incidents.api.serializers import CaseDetailSerializer
from incidents.facets import BY_PARAM
from incidents.facets import FACETS
from incidents.facets import FacetSpec
from incidents.filtersets import CaseFilterSet
from incidents.filtersets import FacetValueFilter
from incidents.forms import SubmitCaseForm
from incidents.models import CASE_ITEM_LINKS
from incidents.models import Case
from incidents.models import CaseItemLink
from incidents.models import SharedItem
from incidents.models import item_model
from incidents.selectors.vocabulary import Vocabulary
from incidents.services.library_entries import CASE_KEYS
from incidents.services.library_entries import SHARED_KINDS
from tests.conftest import FIXTURES

# How each field of Case is filtered: by a filter of CaseFilterSet, or why it is not.
FILTERED_BY: dict[str, list[str]] = {
    "title": ["q"],
    "summary": ["q"],
    "detection": ["q"],
    "facet_values": [name for spec in FACETS for name in spec.params],
}
NOT_FILTERED: dict[str, str] = {
    "id": "the database's key",
    "slug": "the case's own address, /cases/<slug>/",
    "kind": "shown on the card; not a filter (a new facet in incidents/facets.py would be)",
    "setting": "shown on the card; not a filter (a new facet in incidents/facets.py would be)",
    "period_start": "orders the list (newest first)",
    "period_start_precision": "how to print period_start",
    "period_end": "shown on the card",
    "period_end_precision": "how to print period_end",
    "published": "orders the list when no period is known",
    "published_precision": "how to print published",
    "created_at": "bookkeeping",
    "updated_at": "bookkeeping",
}
# Where each field of Case is in the API's case detail (field name, or the field holding it).
IN_THE_API_AS: dict[str, str] = {
    "period_start": "period",
    "period_start_precision": "period",
    "period_end": "period",
    "period_end_precision": "period",
    "published": "period",
    "published_precision": "period",
    "facet_values": "facets",
}
NOT_IN_THE_API: dict[str, str] = {"id": "the database's key; cases are addressed by slug"}
OTHER_PARAMETERS = {"q", "words", "page", "by", "metric", "level", "min_cases", "format"}


def _case_fields() -> list[str]:
    return [f.name for f in Case._meta.get_fields() if f.concrete]


def test_every_case_field_is_filtered_or_says_why_not() -> None:
    filters = CaseFilterSet.get_filters()
    for name in _case_fields():
        assert (name in FILTERED_BY) != (name in NOT_FILTERED), (
            f"Case.{name} needs a filter in CaseFilterSet (and FILTERED_BY) or a reason in "
            "NOT_FILTERED"
        )
        for filter_name in FILTERED_BY.get(name, []):
            assert filter_name in filters, f"Case.{name}: no filter {filter_name!r}"
    assert set(FILTERED_BY) | set(NOT_FILTERED) == set(_case_fields())


def test_every_case_field_is_in_the_api_or_says_why_not() -> None:
    api_fields = set(CaseDetailSerializer().fields)
    for name in _case_fields():
        if name in NOT_IN_THE_API:
            continue
        assert IN_THE_API_AS.get(name, name) in api_fields, f"Case.{name} is not in the API"
    period = set(CaseDetailSerializer().fields["period"].fields)  # type: ignore[attr-defined]
    assert {"start", "end", "published"} <= period


@pytest.mark.parametrize("spec", FACETS, ids=lambda s: s.facet)
def test_every_facet_has_both_filters(spec: FacetSpec) -> None:
    filters = CaseFilterSet.get_filters()
    for name, excluding in ((spec.param, False), (spec.exclude_param, True)):
        found = filters.get(name)
        assert isinstance(found, FacetValueFilter), f"no filter {name!r}"
        assert found.spec == spec and found.exclude_values is excluding


def test_facet_names_are_unique_and_clash_with_no_other_parameter() -> None:
    for attribute in ("facet", "param", "fixture_key", "segment", "label", "plural"):
        names = [getattr(spec, attribute) for spec in FACETS]
        assert len(set(names)) == len(names), f"two facets share a {attribute}"
    assert not set(BY_PARAM) & OTHER_PARAMETERS
    assert all(re.fullmatch(r"[a-z][a-z-]*", spec.segment) for spec in FACETS)


@pytest.mark.parametrize("spec", FACETS, ids=lambda s: s.facet)
def test_every_facet_is_in_the_case_files_and_the_submission_form(
    spec: FacetSpec, db: None
) -> None:
    assert spec.fixture_key in CASE_KEYS
    assert (FIXTURES / "vocabulary" / f"{spec.facet}.yaml").exists()
    form = SubmitCaseForm(vocabulary=Vocabulary.load())
    assert spec.fixture_key in form.fields
    assert form.fields[spec.fixture_key].label == spec.plural


def test_every_filter_and_facet_is_in_the_api(client: Client, db: None) -> None:
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    filters = set(CaseFilterSet.get_filters())
    for path in ("/api/cases/", "/api/facets/"):
        params = {p["name"] for p in schema["paths"][path]["get"]["parameters"]}
        assert filters <= params, (path, filters - params)
    row = schema["components"]["schemas"]["CaseSummary"]["properties"]["facets"]
    assert set(row["properties"]) == {spec.param for spec in FACETS}


@pytest.mark.parametrize("spec", FACETS, ids=lambda s: s.facet)
def test_every_facet_has_its_pages(client: Client, small_library: None, spec: FacetSpec) -> None:
    tree_url = reverse("incidents:facet-tree", args=[spec.facet])
    assert tree_url == f"/{spec.segment}/"
    assert client.get(tree_url).status_code == 200
    browse = client.get("/browse/").content.decode()
    assert f'href="{tree_url}"' in browse
    library = client.get("/").content.decode()
    assert f'id="facet-{spec.param}"' in library  # its tree of values with counts
    body = client.get("/api/facets/").json()
    assert spec.param in {group["facet"] for group in body["facets"]}


def test_the_text_filter_has_its_page(client: Client, small_library: None) -> None:
    assert 'name="q"' in client.get("/").content.decode()


def test_every_shared_kind_has_its_link_model_and_every_link_model_its_kind() -> None:
    """The case files' shared kinds are the keys of the one table of link models, and every
    concrete link model (and the shared model it points at) is in that table."""
    assert tuple(CASE_ITEM_LINKS) == SHARED_KINDS
    links = {
        m for m in apps.get_app_config("incidents").get_models() if issubclass(m, CaseItemLink)
    }
    assert links == set(CASE_ITEM_LINKS.values())
    items = {m for m in apps.get_app_config("incidents").get_models() if issubclass(m, SharedItem)}
    assert items == {item_model(link) for link in CASE_ITEM_LINKS.values()}
