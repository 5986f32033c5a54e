"""Polaris/checkov-style fixtures: tests/audit/fixtures/<CHECK-ID>/{pass,fail,na,...}-*.yaml.

Each fixture is a snapshot (``items:`` of Kubernetes objects, optional ``coverage:``) plus what the
check must report on it: the status, and for failures the resource and evidence paths.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from incidents.audit.checks import ALL_CHECKS
from incidents.audit.checks import REGISTRY
from incidents.audit.engine import run_checks
from incidents.audit.report import check_status
from incidents.audit.snapshot import load

FIXTURES = Path(__file__).parent / "fixtures"
FILES = sorted(FIXTURES.glob("*/*.yaml"))


def _expect(path: Path) -> dict[str, Any]:
    # libyaml's loader, as the snapshot reader's: the fixtures are read about 4 times each
    return dict(yaml.load(path.read_text(), Loader=yaml.CSafeLoader)["expect"])


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_check_fixture(path: Path) -> None:
    check = REGISTRY[path.parent.name]
    expect = _expect(path)
    result = run_checks([check], load(path))

    assert check_status(check, result.findings) == expect["status"], [
        (f.status, f.resource, f.message) for f in result.findings
    ]
    matching = [f for f in result.findings if f.status == expect["status"]]
    if "resource" in expect:
        want = expect["resource"]
        matching = [
            f
            for f in matching
            if f.resource.kind == want["kind"]
            and f.resource.name == want["name"]
            and f.resource.namespace == want.get("namespace")
        ]
        assert matching, f"no {expect['status']} finding on {want}: {result.findings}"
    for evidence_path in expect.get("evidence_paths", []):
        assert any(evidence_path in [e.path for e in f.evidence] for f in matching), (
            evidence_path,
            [[e.path for e in f.evidence] for f in matching],
        )
    if expect["status"] == "fail":
        # A failure names what it saw and what it expected.
        assert all(f.evidence for f in matching)


def test_every_check_has_a_pass_and_a_fail_fixture() -> None:
    missing = []
    for check in ALL_CHECKS:
        statuses = {_expect(p)["status"] for p in FIXTURES.glob(f"{check.id}/*.yaml")}
        for status in ("pass", "fail"):
            if status not in statuses:
                missing.append(f"{check.id}: no {status} fixture")
    assert not missing, missing


def test_fixture_directories_name_registered_checks() -> None:
    unknown = [d.name for d in FIXTURES.iterdir() if d.is_dir() and d.name not in REGISTRY]
    assert not unknown


def test_fixture_file_names_match_expected_status() -> None:
    prefix = {
        "pass": "pass-",
        "fail": "fail-",
        "not_applicable": "na-",
        "not_evaluated": "not-evaluated-",
    }
    wrong = [p.name for p in FILES if not p.name.startswith(prefix[_expect(p)["status"]])]
    assert not wrong
