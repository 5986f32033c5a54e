"""The report a person reads: one finding per workload, cut lists that say so, colour, formats."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from incidents.audit.text import CASES_SHOWN
from incidents.audit.text import MEMBERS_SHOWN

from .conftest import FIXTURES
from .conftest import run

MEM_FAIL = str(FIXTURES / "MEM-001/fail-no-limit.yaml")
GPU_FAIL = str(FIXTURES / "GPU-002/fail-xid-schedulable.yaml")


def test_one_finding_per_workload_with_its_replica_types_under_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = run(capsys, "audit", "--snapshot", MEM_FAIL, "--checks", "MEM-001", "-o", "json")
    [finding] = json.loads(out)["findings"]
    assert finding["resource"]["kind"] == "PyTorchJob"
    assert finding["members"] == ["Master x1", "Worker x3"]
    assert [e["path"] for e in finding["evidence"]] == [
        f"spec.pytorchReplicaSpecs.{role}.template.spec.containers[0].resources.limits.memory"
        for role in ("Master", "Worker")
    ]


def _many_pods(tmp_path: Path, n: int) -> str:
    """``n`` GPU pods of one ReplicaSet kubegap does not list, none with a memory limit."""
    pods = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": f"infer-{i:02d}",
                "namespace": "serve",
                "ownerReferences": [
                    {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "infer-7f9"}
                ],
            },
            "spec": {
                "nodeName": "gpu-1",
                "containers": [
                    {"name": "c", "image": "i", "resources": {"limits": {"nvidia.com/gpu": "1"}}}
                ],
            },
            "status": {"phase": "Running"},
        }
        for i in range(n)
    ]
    path = tmp_path / "pods.yaml"
    path.write_text(yaml.safe_dump({"collected_at": "2026-06-01T12:00:00Z", "items": pods}))
    return str(path)


def test_cut_lists_say_how_many_more(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    snapshot = _many_pods(tmp_path, 10)
    _, out, _ = run(capsys, "audit", "--snapshot", snapshot, "--checks", "MEM-001", "--no-color")
    [line] = [line for line in out.splitlines() if "made of:" in line]
    assert line.strip() == "made of: " + ", ".join(
        f"pod infer-{i:02d}" for i in range(MEMBERS_SHOWN)
    ) + (f" and {10 - MEMBERS_SHOWN} more")
    assert out.count("serve/ReplicaSet/infer-7f9") == 1  # one finding, not one per pod
    _, out, _ = run(capsys, "audit", "--snapshot", GPU_FAIL, "--checks", "GPU-002", "--no-color")
    assert "and 1 more case (kubegap explain GPU-002)" in out
    assert out.count("  case: ") == CASES_SHOWN


def test_passes_name_what_they_examined_and_could_not_see(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(FIXTURES / "PRE-002/pass-ready.yaml")
    _, out, _ = run(capsys, "audit", "--snapshot", path, "--checks", "PRE-002", "-o", "json")
    [f] = json.loads(out)["findings"]
    assert f["status"] == "pass" and f["examined"]
    assert "validated" not in f["message"]
    assert any("kubegap reads their Ready state, not their logs" in n for n in f["not_seen"])


def test_colour_only_on_a_terminal_and_never_with_no_color(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.delenv("NO_COLOR", raising=False)
    _, out, _ = run(capsys, "audit", "--snapshot", GPU_FAIL, "--checks", "GPU-002")
    assert "\033[1;31m[FAIL]\033[0m GPU-002" in out
    _, out, _ = run(capsys, "audit", "--snapshot", GPU_FAIL, "--checks", "GPU-002", "--no-color")
    assert "\033[" not in out
    monkeypatch.setenv("NO_COLOR", "1")
    _, out, _ = run(capsys, "audit", "--snapshot", GPU_FAIL, "--checks", "GPU-002")
    assert "\033[" not in out and "[FAIL] GPU-002" in out


def test_output_means_the_format_as_in_kubectl(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run(capsys, "audit", "--snapshot", GPU_FAIL, "-o", "json")
    assert code == 1 and json.loads(out)["schema"] == "kubegap-report"
    target = tmp_path / "report.sarif"
    code, out, _ = run(
        capsys, "audit", "--snapshot", GPU_FAIL, "-o", "sarif", "--output-file", str(target)
    )
    assert not out and json.loads(target.read_text())["version"] == "2.1.0"
    code, out, _ = run(
        capsys, "audit", "--snapshot", GPU_FAIL, "--output-file", str(tmp_path / "r.txt")
    )
    assert not out and "[FAIL] GPU-002" in (tmp_path / "r.txt").read_text()
    code, _, err = run(capsys, "audit", "--snapshot", GPU_FAIL, "-o", "xml")
    assert code == 2 and "invalid choice: 'xml'" in err
    code, _, err = run(capsys, "list-checks", "-o", "json")
    assert code == 0


def test_cases_link_to_their_sources_and_to_a_library_only_when_named(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KUBEGAP_LIBRARY_URL", raising=False)
    _, out, _ = run(capsys, "audit", "--snapshot", GPU_FAIL, "--checks", "GPU-002", "--no-color")
    assert "127.0.0.1" not in out and "/cases/" not in out
    assert "        https://" in out
    monkeypatch.setenv("KUBEGAP_LIBRARY_URL", "https://library.example")
    _, out, _ = run(capsys, "audit", "--snapshot", GPU_FAIL, "--checks", "GPU-002", "-o", "json")
    case = json.loads(out)["checks"][0]["cases"][0]
    assert case["library_url"] == f"https://library.example/cases/{case['slug']}/"
    assert case["source_url"].startswith("https://")


def test_alert_findings_name_the_rules_they_examined(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(FIXTURES / "ALERT-001/fail-no-thermal-alert.yaml")
    _, out, _ = run(capsys, "audit", "--snapshot", path, "--checks", "ALERT-001", "-o", "json")
    [f] = json.loads(out)["findings"]
    rules = {e["path"]: e["observed"] for e in f["evidence"]}["prometheusrules"]
    names = [
        f"{i['metadata']['namespace']}/{i['metadata']['name']}"
        for i in yaml.safe_load(Path(path).read_text())["items"]
        if i["kind"] == "PrometheusRule"
    ]
    assert names and rules == sorted(names)
    assert f"in {len(names)} PrometheusRules examined" in f["message"]


def test_main_never_shows_a_traceback(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from incidents.audit import cli

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("something kubegap did not expect")

    monkeypatch.setattr(cli, "audit_once", broken)
    monkeypatch.delenv("KUBEGAP_DEBUG", raising=False)
    code, out, err = run(capsys, "audit", "--snapshot", GPU_FAIL)
    assert code == 2 and not out
    assert err.startswith("kubegap: internal error: RuntimeError: something kubegap did not expect")
    assert "Traceback" not in err and err.count("\n") == 1


def test_mcp_says_what_it_needs_when_the_package_is_missing() -> None:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    code = "import sys; sys.modules['mcp'] = None; from incidents.audit.cli import main; sys.exit(main(['mcp']))"
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert "kubegap mcp needs the 'mcp' package" in proc.stderr and "Traceback" not in proc.stderr


def test_kinds_the_server_does_not_serve_take_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The coverage block lists each kind read on a line of its own, and every kind the server
    does not serve (a CRD not installed) on one line: the findings follow a screen, not 30 lines,
    after the command."""
    demo = Path(__file__).resolve().parents[2] / "fixtures/snapshots/demo-broken-gpu-cluster.json"
    kinds = json.loads(demo.read_text())["kinds"]
    absent = sorted(k for k, v in kinds.items() if v["coverage"]["status"] == "absent")
    listed = sorted(k for k, v in kinds.items() if v["coverage"]["status"] == "listed")
    assert len(absent) > 10
    _, out, _ = run(capsys, "audit", "--snapshot", str(demo), "--no-color")
    block = out.split("\nCoverage\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert len(block) == len(listed) + 1
    [line] = [line for line in block if line.split()[0] == "absent"]
    assert line == f"  absent     {len(absent)} kinds not served by this server: " + ", ".join(
        absent
    )
    assert [line.split()[1] for line in block if line.split()[0] == "listed"] == listed
