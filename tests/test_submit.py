"""Submitting a case: editors only, values suggested from pasted text, the rules of load_cases."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.contrib.auth.models import Permission
from django.test import Client

from incidents.models import Case
from incidents.models import CaseFacetLink
from incidents.models import CostFigure
from incidents.models import Source
from incidents.services import read_library
from tests.conftest import SMALL_LIBRARY
from tests.fixture_schema import schema_errors

pytestmark = pytest.mark.django_db


@pytest.fixture
def editor(client: Client, django_user_model: Any, small_library: None) -> Client:
    user = django_user_model.objects.create_user("editor", password="x")
    user.user_permissions.add(Permission.objects.get(codename="add_case"))
    client.force_login(user)
    return client


def _good(**changes: str | list[str]) -> dict[str, Any]:
    data: dict[str, Any] = {
        "action": "save",
        "title": "HBM errors stop a fine-tuning run",
        "kind": "incident",
        "setting": "training",
        "period_start": "2024-02",
        "summary": "Uncorrectable memory errors on two GPUs stopped a fine-tuning job twice.",
        "organisations": ["meta"],
        "components": ["gpu-memory"],
        "symptoms": ["ecc-error"],
        "remediations": ["restart-from-last-checkpoint"],
        "source_0_url": "https://example.org/hbm-postmortem",
        "source_0_kind": "primary",
        "source_0_title": "HBM postmortem",
        "source_1_kind": "primary",
        "source_2_kind": "primary",
        "cost_0_kind": "gpu_hours_lost",
        "cost_0_value": "1,200",
        "cost_0_source": "https://example.org/hbm-postmortem",
        "cost_0_locator": "Timeline",
    }
    data.update(changes)
    return data


def test_login_is_required(client: Client, small_library: None) -> None:
    response = client.get("/submit/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/submit/")
    assert client.post("/submit/", _good()).status_code == 302
    assert not Case.objects.filter(title="HBM errors stop a fine-tuning run").exists()


def test_a_user_without_the_permission_is_refused(
    client: Client, django_user_model: Any, small_library: None
) -> None:
    client.force_login(django_user_model.objects.create_user("reader", password="x"))
    assert client.get("/submit/").status_code == 403
    assert client.post("/submit/", _good()).status_code == 403
    assert Case.objects.count() == 3


def test_form_has_labelled_fields(editor: Client) -> None:
    page = editor.get("/submit/").content.decode()
    assert '<label for="id_text">Postmortem text:</label>' in page
    assert '<label for="id_source_0_url">Source 1 URL:</label>' in page
    assert 'name="action" value="suggest"' in page


def _options(page: str, name: str) -> list[str]:
    """The words each option of the form's select `name` shows, in order."""
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', page, re.S)
    assert select, name
    return re.findall(r"<option [^>]*>([^<]*)</option>", select.group(1))


def test_the_choices_read_as_words_not_as_stored_values(editor: Client) -> None:
    """A bound reads as it does before a number on the pages; the other choices capitalised."""
    page = editor.get("/submit/").content.decode()
    assert _options(page, "cost_0_bound") == [
        "as stated",
        "more than",
        "at least",
        "about",
        "at most",
        "less than",
    ]
    assert _options(page, "kind") == ["Incident", "Study", "Near miss"]
    assert _options(page, "setting") == ["Training", "Evaluation", "Serving", "Platform"]
    assert _options(page, "source_0_kind") == ["Primary", "Secondary"]


def test_pasted_text_ticks_the_suggested_values(editor: Client) -> None:
    response = editor.post(
        "/submit/",
        {
            "action": "suggest",
            "text": "Our NCCL timeouts came from a leaking dataloader.",
            "title": "Kept as typed",
            "symptoms": ["job-crash"],
            "source_0_kind": "secondary",
        },
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "Symptom: <strong>NCCL timeout</strong>" in page
    assert "Component: <strong>Training data loader</strong>" in page
    assert 'value="nccl-timeout" id="id_symptoms_2" checked' in page
    assert 'value="training-data-loader" id="id_components_3" checked' in page
    # What the editor had already entered is kept, and nothing is saved.
    assert 'value="job-crash" id="id_symptoms_0" checked' in page
    assert 'value="Kept as typed"' in page
    assert Case.objects.count() == 3


def test_a_bad_url_is_refused_naming_the_field_and_nothing_is_written(editor: Client) -> None:
    before = (Case.objects.count(), Source.objects.count(), CaseFacetLink.objects.count())
    response = editor.post("/submit/", _good(source_0_url="example.org/no-scheme"))
    assert response.status_code == 400
    page = response.content.decode()
    assert 'role="alert"' in page
    assert (
        '<a href="#id_source_0_url">Source 1 URL</a>: '
        "&#x27;example.org/no-scheme&#x27; is not a valid http(s) URL" in page
    )
    assert 'aria-invalid="true"' in page
    # The cost cited the URL the form used to have: the library's rule says so too.
    assert (
        "Cost 1 source URL</a>: &#x27;https://example.org/hbm-postmortem&#x27; is not one of"
        in page
    )
    after = (Case.objects.count(), Source.objects.count(), CaseFacetLink.objects.count())
    assert after == before


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"title": "", "summary": ""}, "id_title", "is required"),
        ({"organisations": []}, "id_organisations", "is required (at least one organisation slug)"),
        ({"period_start": "March 2024"}, "id_period_start", "is not YYYY, YYYY-MM or YYYY-MM-DD"),
        ({"period_end": "2023-01"}, "id_period_end", "is before the start"),
        (
            {"period_start": "", "period_end": "", "published": ""},
            "id_period_start",
            "or `published` is required",
        ),
        ({"cost_0_value": "a lot"}, "id_cost_0_value", "is not a number"),
        (
            {"cost_0_source": "https://example.org/other"},
            "id_cost_0_source",
            "is not one of the case&#x27;s sources",
        ),
        ({"cost_0_kind": ""}, "id_cost_0_kind", "is required: one of gpu_hours_lost"),
        ({"cost_0_locator": ""}, "id_cost_0_locator", "is required"),
        (
            {"cost_0_kind": "gpu_time_share", "cost_0_value": "12"},
            "id_cost_0_of",
            "is required",
        ),
        ({"slug": "Not A Slug"}, "id_slug", "is not a slug"),
        ({"slug": "leaky-loader"}, "id_slug", "already exists"),
    ],
)
def test_library_rules_are_shown_on_the_field(
    editor: Client, changes: dict[str, Any], field: str, message: str
) -> None:
    response = editor.post("/submit/", _good(**changes))
    assert response.status_code == 400
    page = response.content.decode()
    assert f'<a href="#{field}">' in page
    assert message in page
    assert Case.objects.count() == 3


def test_a_good_submission_appears_in_the_library(editor: Client, tmp_path: Path) -> None:
    response = editor.post("/submit/", _good())
    assert response.status_code == 302
    assert response["Location"] == "/submit/added/hbm-errors-stop-a-fine-tuning-run/"
    case = Case.objects.get(slug="hbm-errors-stop-a-fine-tuning-run")
    assert case.period_label == "Feb 2024"
    cost = CostFigure.objects.get(case=case)
    assert (cost.kind, cost.value, cost.locator) == ("gpu_hours_lost", 1200.0, "Timeline")
    # Linked like a loaded case: GPU memory implies its parent GPU hardware.
    assert CaseFacetLink.objects.filter(
        case=case, value__slug="gpu-hardware", direct=False
    ).exists()
    library = editor.get("/?component=gpu-hardware").content.decode()
    assert 'href="/cases/hbm-errors-stop-a-fine-tuning-run/"' in library
    assert (
        "Restart the job from its last good checkpoint."
        in editor.get("/cases/hbm-errors-stop-a-fine-tuning-run/").content.decode()
    )

    # The confirmation gives the case file, which load_cases reads as it is.
    done = editor.get(response["Location"]).content.decode()
    assert "fixtures/cases/hbm-errors-stop-a-fine-tuning-run.yaml" in done
    text = html.unescape(done.split('<pre class="yaml"><code>')[1].split("</code>")[0])
    assert text.startswith("# yaml-language-server: $schema=../schema/case.schema.json\n")
    assert schema_errors("case", yaml.safe_load(text)) == []
    library_dir = tmp_path / "library"
    shutil.copytree(SMALL_LIBRARY, library_dir)
    (library_dir / "cases" / "hbm-errors-stop-a-fine-tuning-run.yaml").write_text(text)
    data = read_library([library_dir])
    [entry] = [c for c in data.cases if c.slug == "hbm-errors-stop-a-fine-tuning-run"]
    assert entry.costs[0].value == 1200.0
    assert entry.facets["component"] == ["gpu-memory"]
