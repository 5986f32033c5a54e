"""kubegap cites the library's cases with the library's own words (no drift from fixtures/)."""

from __future__ import annotations

from incidents.audit.cases import CASES
from incidents.audit.checks import ALL_CHECKS
from incidents.services.kubegap_cases import CASES_FILE
from incidents.services.kubegap_cases import export_cases
from tests.conftest import REPO_ROOT


def test_kubegaps_case_file_matches_the_fixtures() -> None:
    expected = export_cases(REPO_ROOT / "fixtures")
    assert CASES_FILE.read_text(encoding="utf-8") == expected, (
        "incidents/audit/library_cases.json is out of date: run `manage.py export_kubegap_cases`"
    )


def test_cited_cases_carry_the_library_titles() -> None:
    cited = {slug for check in ALL_CHECKS for slug in check.cases}
    seed = CASES["acme-seren-kalos-pretraining-failures"]
    assert seed.title.startswith("Acme Seren and Kalos clusters")
    assert seed.organisation == "Shanghai AI Laboratory"
    assert cited <= set(CASES)
