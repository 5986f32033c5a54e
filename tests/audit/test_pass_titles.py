"""A passing check reads as a pass: its title names the gap, its pass title what a pass means."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incidents.audit.checks import ALL_CHECKS
from incidents.audit.checks import REGISTRY
from incidents.audit.engine import run_checks
from incidents.audit.sarif import render_sarif
from incidents.audit.snapshot import load

from .conftest import run

REPO = Path(__file__).resolve().parents[2]
HEALTHY = REPO / "fixtures/snapshots/demo-healthy-gpu-cluster.json"
BROKEN = REPO / "fixtures/snapshots/demo-broken-gpu-cluster.json"


def test_every_check_says_what_its_pass_means() -> None:
    missing = [c.id for c in ALL_CHECKS if not c.pass_title or c.pass_title == c.title]
    assert not missing, f"checks without a pass_title: {missing}"


def test_the_text_report_prints_passes_with_their_pass_title(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "audit", "--snapshot", str(HEALTHY))
    assert code == 0
    headlines = [line for line in out.splitlines() if line.startswith("[PASS]")]
    assert "[PASS] MEM-001 GPU containers have a memory limit (medium)" in headlines
    assert "[PASS] PRE-001 A multi-node NCCL burn-in succeeded recently (medium)" in headlines
    for line in headlines:
        check = REGISTRY[line.split()[1]]
        assert check.pass_title in line and check.title not in line
    # not applicable: the gap is named as what the check looks for, not as something found
    assert "[N/A] GPU-004 checks for: Device-plugin GPU health checks disabled (high)" in out


def test_a_failing_check_keeps_the_gap_as_its_title(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "audit", "--snapshot", str(BROKEN), "--checks", "MEM-001,GPU-002")
    assert f"[FAIL] GPU-002 {REGISTRY['GPU-002'].title} (critical)" in out.splitlines()


def test_json_and_sarif_carry_the_pass_title(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "audit", "--snapshot", str(HEALTHY), "-o", "json")
    entry = next(c for c in json.loads(out)["checks"] if c["id"] == "MEM-001")
    assert entry["status"] == "pass"
    assert (entry["title"], entry["pass_title"]) == (
        "GPU containers without a memory limit",
        "GPU containers have a memory limit",
    )
    sarif = json.loads(render_sarif(run_checks(list(ALL_CHECKS), load(HEALTHY)), "high", None))
    rule = next(r for r in sarif["runs"][0]["tool"]["driver"]["rules"] if r["id"] == "MEM-001")
    assert rule["shortDescription"]["text"] == "GPU containers without a memory limit"
    assert rule["properties"]["passTitle"] == "GPU containers have a memory limit"


def test_explain_says_what_a_pass_means(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "explain", "MEM-001")
    assert "a pass means: GPU containers have a memory limit" in out.splitlines()
