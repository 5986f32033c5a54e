"""The kubegap command line: exit codes, formats, errors, offline == live."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from incidents.audit.cases import CASES

from .conftest import FIXTURES
from .conftest import run
from .fakeapi import FakeApiServer
from .fakeapi import FakeCluster

HIGH_FAIL = str(FIXTURES / "GPU-002/fail-xid-schedulable.yaml")  # critical finding
PASSING = str(FIXTURES / "GPU-003/pass-full-count.yaml")
FORBIDDEN = str(FIXTURES / "GPU-001/not-evaluated-pods-forbidden.yaml")


def test_help_needs_no_django_and_no_database() -> None:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    code = (
        "import sys; from incidents.audit.cli import main; rc = main(['--help']); "
        "assert not [m for m in sys.modules if m.split('.')[0] == 'django'], 'django imported'; "
        "sys.exit(rc)"
    )
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "audit" in proc.stdout and "Exit codes" in proc.stdout
    proc = subprocess.run(
        [sys.executable, "-m", "incidents.audit", "list-checks"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0 and "GPU-001" in proc.stdout


def test_list_checks_json_lists_at_least_20_checks_each_citing_known_cases(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "list-checks", "--format", "json")
    checks = json.loads(out)["checks"]
    assert code == 0 and len(checks) >= 20
    assert len({c["id"] for c in checks}) == len(checks)
    for c in checks:
        assert c["cases"] and all(case["slug"] in CASES for case in c["cases"])
        assert c["severity"] in ("critical", "high", "medium", "low", "info")
        assert c["rbac"] and all(r["verbs"] == ["get", "list", "watch"] for r in c["rbac"])


def test_explain_gives_reads_cases_fix_and_rbac(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "explain", "gpu-002", "--format", "json", "--library-url", "https://lib.example"
    )
    doc = json.loads(out)
    assert code == 0 and doc["id"] == "GPU-002"
    assert doc["reads"][0]["kind"] == "nodes" and doc["remediation"] and doc["why"]
    assert doc["cases"][0]["library_url"] == f"https://lib.example/cases/{doc['cases'][0]['slug']}/"
    assert doc["cases"][0]["title"] == CASES[doc["cases"][0]["slug"]].title
    assert doc["cases"][0]["source_url"] == CASES[doc["cases"][0]["slug"]].source_url
    code, out, _ = run(capsys, "explain", "MEM-002")
    assert code == 0 and "RBAC it needs" in out and "Cases it cites" in out


def test_explain_unknown_check_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "explain", "NOPE-1")
    assert code == 2 and "unknown check id" in err


def test_exit_codes_follow_fail_on(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "audit", "--snapshot", HIGH_FAIL, "--checks", "GPU-002")[0] == 1
    assert (
        run(
            capsys, "audit", "--snapshot", HIGH_FAIL, "--checks", "GPU-002", "--fail-on", "critical"
        )[0]
        == 1
    )
    code = run(
        capsys,
        "audit",
        "--snapshot",
        str(FIXTURES / "MEM-002/fail-no-shm.yaml"),
        "--checks",
        "MEM-002",
    )[0]
    assert code == 0  # a medium finding does not fail the default --fail-on high
    code = run(
        capsys,
        "audit",
        "--snapshot",
        str(FIXTURES / "MEM-002/fail-no-shm.yaml"),
        "--checks",
        "MEM-002",
        "--fail-on",
        "medium",
    )[0]
    assert code == 1
    assert run(capsys, "audit", "--snapshot", PASSING, "--checks", "GPU-003")[0] == 0


def test_incomplete_coverage_exits_3_without_failing_findings(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        capsys, "audit", "--snapshot", FORBIDDEN, "--checks", "GPU-001,GPU-003", "--format", "json"
    )
    doc = json.loads(out)
    assert code == 3
    assert {c["kind"]: c["status"] for c in doc["coverage"]} == {
        "nodes": "listed",
        "pods": "forbidden",
    }
    assert {c["id"]: c["status"] for c in doc["checks"]} == {
        "GPU-001": "not_evaluated",
        "GPU-003": "pass",
    }
    assert doc["summary"]["coverage_complete"] is False


def test_unreadable_snapshots_exit_2_with_a_clear_message(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad_gz = tmp_path / "bad.json.gz"
    bad_gz.write_bytes(b"\x1f\x8b\x08\x00garbage")
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"hello": 1}))
    future = tmp_path / "future.json"
    future.write_text(json.dumps({"format": "kubegap-snapshot", "version": 99, "kinds": {}}))
    for path, words in (
        (tmp_path / "missing.json", "cannot read snapshot"),
        (bad_gz, "corrupt"),
        (wrong, "not a kubegap snapshot"),
        (future, "format version 99"),
    ):
        code, out, err = run(capsys, "audit", "--snapshot", str(path))
        assert code == 2 and words in err and str(path) in err
        assert "Traceback" not in err and err.count("\n") == 1


def test_bad_kubeconfigs_exit_2_with_a_clear_message(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, write_kubeconfig: Callable[..., str]
) -> None:
    broken = tmp_path / "broken"
    broken.write_text("clusters: [\n")
    code, _, err = run(capsys, "audit", "--kubeconfig", str(broken))
    assert code == 2 and "not valid YAML" in err
    good = write_kubeconfig("https://127.0.0.1:1")
    code, _, err = run(capsys, "audit", "--kubeconfig", good, "--context", "nope")
    assert code == 2 and "context 'nope' not found" in err
    code, _, err = run(
        capsys,
        "collect",
        "--output-file",
        str(tmp_path / "x.json"),
        "--kubeconfig",
        write_kubeconfig("https://127.0.0.1:1", ca=str(tmp_path / "no-ca.crt")),
    )
    assert code == 2 and "no-ca.crt not found" in err
    code, _, err = run(capsys, "audit", "--kubeconfig", write_kubeconfig("ftp://x"))
    assert code == 2 and "no valid server URL" in err


def test_several_formats_in_one_run(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    j, s = tmp_path / "out.json", tmp_path / "out.sarif"
    code, out, _ = run(
        capsys,
        "audit",
        "--snapshot",
        HIGH_FAIL,
        "--format",
        f"json={j}",
        "--format",
        f"sarif={s}",
        "--format",
        "text",
    )
    assert code == 1
    assert "[FAIL] GPU-002" in out
    assert json.loads(j.read_text())["schema"] == "kubegap-report"
    assert json.loads(s.read_text())["version"] == "2.1.0"
    code, _, err = run(
        capsys, "audit", "--snapshot", HIGH_FAIL, "--format", "json", "--format", "sarif"
    )
    assert code == 2 and "several formats to stdout" in err
    code, _, err = run(capsys, "audit", "--snapshot", HIGH_FAIL, "--format", "xml")
    assert code == 2 and "unknown format" in err
    code, _, err = run(capsys, "audit", "--snapshot", HIGH_FAIL, "--checks", "GPU-999")
    assert code == 2 and "GPU-999" in err


def test_json_report_is_stable_and_sorted(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(FIXTURES / "GPU-003/fail-fewer-than-pool-peers.yaml")
    first = run(capsys, "audit", "--snapshot", path, "--format", "json")[1]
    second = run(capsys, "audit", "--snapshot", path, "--format", "json")[1]
    assert first == second
    doc = json.loads(first)
    assert doc["schema_version"] == "3.1" and doc["source"]["type"] == "snapshot"
    order = ["fail", "not_evaluated", "not_applicable", "pass"]
    statuses = [order.index(f["status"]) for f in doc["findings"]]
    assert statuses == sorted(statuses)
    finding = next(
        f for f in doc["findings"] if f["check_id"] == "GPU-003" and f["status"] == "fail"
    )
    assert finding["resource"] == {"apiVersion": "v1", "kind": "Node", "name": "gpu-3"}
    assert finding["evidence"] == [
        {"path": 'status.capacity["nvidia.com/gpu"]', "observed": 6.0, "expected": 8.0}
    ]
    # What the check is, its cases and fix, are said once, in its `checks` entry. No library
    # link unless --library-url (or KUBEGAP_LIBRARY_URL) names one; the source always.
    assert not {"title", "remediation", "cases", "references"} & set(finding)
    [check] = [c for c in doc["checks"] if c["id"] == "GPU-003"]
    assert check["status"] == "fail" and check["remediation"]
    assert set(check["cases"][0]) == {"slug", "title", "source_url"}
    assert check["cases"][0]["source_url"].startswith("https://")


def test_progress_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from incidents.audit import cli

    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert cli._progress() is None
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert cli._progress() is not None


def test_a_namespace_limited_audit_does_not_exit_clean(
    capsys: pytest.CaptureFixture[str],
    write_kubeconfig: Callable[..., str],
    gpu_cluster_objects: list[dict[str, Any]],
) -> None:
    cluster = FakeCluster(objects=gpu_cluster_objects, token="t0ken")
    with FakeApiServer(cluster) as server:
        code, out, _ = run(
            capsys,
            "audit",
            "--kubeconfig",
            write_kubeconfig(server.url),
            "-n",
            "train",
            "--checks",
            "MON-001",
            "--format",
            "json",
        )
    assert {c["id"]: c["status"] for c in json.loads(out)["checks"]} == {"MON-001": "not_evaluated"}
    assert code == 3  # not looked at never reads as healthy


def test_a_check_that_cannot_read_odd_data_makes_the_audit_incomplete() -> None:
    from incidents.audit.engine import run_checks
    from incidents.audit.model import Check
    from incidents.audit.report import exit_code
    from incidents.audit.snapshot import load as load_snapshot

    def broken(ctx: Any) -> Any:
        raise TypeError("replicas must be an int, not 'two'")

    check = Check(
        "TEST-001",
        "A check",
        "low",
        "test",
        ("nodes",),
        ("meta-llama3-405b-interruptions",),
        (),
        "why",
        "fix",
        "definitive",
        broken,
    )
    result = run_checks([check], load_snapshot(Path(PASSING)))
    [finding] = result.findings
    assert finding.status == "not_evaluated"
    assert "replicas must be an int" in finding.message
    assert exit_code(result, "critical") == 3


def test_one_unreadable_job_does_not_blind_a_check_to_the_others(
    capsys: pytest.CaptureFixture[str],
) -> None:
    snapshot = str(Path(__file__).parent / "data" / "malformed-pytorchjob.yaml")
    code, out, _ = run(
        capsys,
        "audit",
        "--snapshot",
        snapshot,
        "--checks",
        "MEM-001",
        "--fail-on",
        "critical",
        "--format",
        "json",
    )
    findings = {
        (f["status"], f["resource"]["kind"], f["resource"]["name"]): f
        for f in json.loads(out)["findings"]
    }
    assert set(findings) == {("fail", "Pod", "notebook"), ("not_evaluated", "PyTorchJob", "odd")}
    assert (
        "replica count 'two' is not a whole number"
        in (findings[("not_evaluated", "PyTorchJob", "odd")]["message"])
    )
    assert code == 3  # no critical finding, but one object was not looked at
