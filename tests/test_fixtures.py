"""The seeded library in fixtures/: it loads, it is big enough, and its facts carry their sources."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import yaml
from django.test import Client

from incidents.facets import FACETS
from incidents.models import Case
from incidents.models import CaseFacetLink
from incidents.models import FacetValue
from incidents.models import KeyFigure
from incidents.services import load_library
from incidents.services.library_entries import SHARED_KINDS
from incidents.services.library_files import read_library
from incidents.services.safe_yaml import safe_load
from tests.conftest import FIXTURES
from tests.conftest import REPO_ROOT

SEED_CASE = "acme-seren-kalos-pretraining-failures"


def test_the_library_has_at_least_70_cases_and_loads_idempotently(seeded_library: None) -> None:
    assert Case.objects.count() >= 70
    # Loading again over what the first load wrote changes nothing.
    report = load_library([FIXTURES])
    assert not report.changed


def test_at_least_a_third_of_the_cases_are_serving_or_platform_incidents(
    seeded_library: None,
) -> None:
    """Training failures must not crowd out serving systems and the Kubernetes platforms under them."""
    total = Case.objects.count()
    serving_or_platform = Case.objects.filter(setting__in=["serving", "platform"]).count()
    assert serving_or_platform * 3 >= total


def test_the_seed_case_is_found_under_the_seed_pages_filters(
    client: Client, seeded_library: None
) -> None:
    response = client.get(
        "/?organisation=shanghai-ai-laboratory&component=training-data-loader&symptom=nccl-timeout"
    )
    assert response.status_code == 200
    assert f'href="/cases/{SEED_CASE}/"' in response.content.decode()


def test_the_seed_case_card_shows_every_section(client: Client, seeded_library: None) -> None:
    page = client.get(f"/cases/{SEED_CASE}/").content.decode()
    for heading in (
        "Symptoms",
        "Root cause",
        "Component",
        "Contributing factor",
        "Detection",
        "Remediation",
        "Action items",
        "Lessons",
        "Key figures",
        "Sources",
    ):
        assert f">{heading}" in page, heading
    assert "num_worker" in page or "worker" in page  # the dataloader remediation of the seed card
    assert "4,704" in page


def test_cases_meet_on_shared_values(seeded_library: None) -> None:
    """The library's point: values are shared, so most values with cases have several."""
    used = (
        CaseFacetLink.objects.filter(direct=True)
        .values_list("value_id", flat=True)
        .distinct()
        .count()
    )
    shared = sum(
        1
        for v in FacetValue.objects.all()
        if CaseFacetLink.objects.filter(value=v).values("case").distinct().count() >= 2
    )
    assert used > 0
    assert shared / used >= 0.5


def test_every_key_figure_cites_one_of_its_cases_sources(seeded_library: None) -> None:
    for figure in KeyFigure.objects.select_related("case"):
        assert figure.case.sources.filter(url=figure.source_url).exists(), figure  # type: ignore[attr-defined]


def test_fixture_files_are_named_by_slug_and_list_a_primary_or_secondary_source() -> None:
    for path in sorted((FIXTURES / "cases").glob("*.yaml")):
        data = safe_load(path.read_text())
        assert data["sources"], path
        assert all(s["url"].startswith(("http://", "https://")) for s in data["sources"]), path


def test_a_broken_fixture_fails_the_command_and_writes_nothing(
    tmp_path: Path, migrated_sqlite: Path
) -> None:
    copy = tmp_path / "fixtures"
    shutil.copytree(FIXTURES, copy)
    seed = copy / "cases" / f"{SEED_CASE}.yaml"
    text = seed.read_text()
    assert "https://arxiv.org/abs/2403.07648" in text
    seed.write_text(text.replace("url: https://arxiv.org/abs/2403.07648", "url: not-a-url", 1))
    database = shutil.copy(migrated_sqlite, tmp_path / "fresh.sqlite3")
    env = {**os.environ, "DEBUG": "1", "DATABASE_URL": f"sqlite:///{database}"}
    manage = [sys.executable, str(REPO_ROOT / "manage.py")]

    result = subprocess.run(
        [*manage, "load_cases", str(copy)], env=env, cwd=tmp_path, capture_output=True, text=True
    )

    assert result.returncode != 0
    assert f"cases/{SEED_CASE}.yaml: case '{SEED_CASE}': field 'sources[" in result.stderr
    assert "'not-a-url' is not a valid http(s) URL" in result.stderr
    with sqlite3.connect(database) as written:
        assert written.execute("SELECT count(*) FROM incidents_case").fetchone() == (0,)
        assert written.execute("SELECT count(*) FROM incidents_facetvalue").fetchone() == (0,)


def test_site_folder_holds_no_python() -> None:
    assert not list((REPO_ROOT / "site").rglob("*.py"))


def test_the_readme_examples_name_values_and_entries_that_exist() -> None:
    """fixtures/README.md is copied from: its examples must use the library's real slugs."""
    data = read_library([FIXTURES])
    values = {(v.facet, v.slug) for v in data.vocabulary}
    shared = {(s.kind, s.slug) for s in data.shared}
    blocks = re.findall(r"```yaml\n(.*?)```", (FIXTURES / "README.md").read_text(), re.S)
    examples = [yaml.safe_load(block) for block in blocks]
    case = next(e for e in examples if isinstance(e, dict) and "title" in e)
    value = next(e[0] for e in examples if isinstance(e, list) and "name" in e[0])
    entry = next(e[0] for e in examples if isinstance(e, list) and "text" in e[0])

    named = [(spec.facet, slug) for spec in FACETS for slug in case[spec.fixture_key]]
    named += [("symptom", value["slug"]), ("symptom", value["parent"])]
    refs = [(kind, item["ref"]) for kind in SHARED_KINDS for item in case[kind]]
    refs.append(("remediations", entry["slug"]))
    assert [n for n in named if n not in values] == []
    assert [r for r in refs if r not in shared] == []


def test_the_near_duplicate_values_stay_resolved() -> None:
    """One word for one thing: the near-duplicate pairs found in the vocabulary stay resolved.

    Three pairs named the same thing and were merged into the first slug; the fourth is a cause
    and its symptom, kept apart in two facets, and each description points at the other side.
    """
    data = read_library([FIXTURES])
    by_slug = {(v.facet, v.slug): v for v in data.vocabulary}
    slugs = {v.slug for v in data.vocabulary}
    merged = {
        "unsafe-default-setting": "unsafe-defaults-left-in-place",
        "control-plane-overload": "api-server-overload",
        "overheating": "high-thermal-load",
    }
    assert [kept for kept in merged if kept not in slugs] == []
    assert [dropped for dropped in merged.values() if dropped in slugs] == []

    cause = by_slug[("root_cause", "training-instability")]
    symptom = by_slug[("symptom", "loss-spike")]
    assert "loss-spike" in cause.description
    assert "training-instability" in symptom.description
