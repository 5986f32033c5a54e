"""Operator control: exemptions by annotation and by config file, checks off, thresholds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from incidents.audit.cli import main

from .conftest import FIXTURES

MEM_FAIL = FIXTURES / "MEM-001/fail-no-limit.yaml"


def _audit(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any], str]:
    code = main(["audit", *argv])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.startswith("{") else {}, err


def _snapshot(tmp_path: Path, source: Path, annotate: dict[str, str] | None = None) -> Path:
    """A copy of a fixture snapshot whose first object carries ``annotate``."""
    doc = yaml.safe_load(source.read_text())
    if annotate:
        doc["items"][0]["metadata"].setdefault("annotations", {}).update(annotate)
    path = tmp_path / "snapshot.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def _fail_resource() -> dict[str, Any]:
    return yaml.safe_load(MEM_FAIL.read_text())["expect"]["resource"]


def test_an_annotation_exempts_the_object_and_says_why(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    snap = _snapshot(
        tmp_path,
        MEM_FAIL,
        {
            "kubegap.io/exempt": "mem-001, JOB-002",
            "kubegap.io/exempt-reason": "sized by the operator",
        },
    )
    code, doc, _ = _audit(
        capsys, "--snapshot", str(snap), "--checks", "MEM-001", "-o", "json", "--fail-on", "low"
    )
    [exempted] = [f for f in doc["findings"] if f["status"] == "exempted"]
    assert exempted["resource"]["name"] == _fail_resource()["name"]
    assert exempted["exemption"] == {
        "source": "annotation",
        "reason": "sized by the operator",
        "rule": "kubegap.io/exempt: mem-001, JOB-002",
    }
    # Not silently dropped: the check passes and names what it excused.
    assert {c["id"]: c["status"] for c in doc["checks"]} == {"MEM-001": "pass"}
    [passed] = [f for f in doc["findings"] if f["status"] == "pass"]
    assert passed["examined"] == [exempted["resource"]["namespace"] + "/PyTorchJob/llm"]
    assert doc["summary"]["findings_by_status"]["exempted"] == 1
    assert code == 0


def test_an_annotation_for_another_check_exempts_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    snap = _snapshot(tmp_path, MEM_FAIL, {"kubegap.io/exempt": "JOB-002"})
    _, doc, _ = _audit(capsys, "--snapshot", str(snap), "--checks", "MEM-001", "-o", "json")
    assert {f["status"] for f in doc["findings"]} == {"fail"}


def test_exempted_findings_show_in_text_and_as_sarif_suppressions(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    snap = _snapshot(
        tmp_path, MEM_FAIL, {"kubegap.io/exempt": "*", "kubegap.io/exempt-reason": "lab"}
    )
    sarif = tmp_path / "out.sarif"
    main(
        [
            "audit",
            "--snapshot",
            str(snap),
            "--checks",
            "MEM-001",
            "--no-color",
            "-o",
            "text",
            "--format",
            f"sarif={sarif}",
        ]
    )
    text = capsys.readouterr().out
    assert "exempted: lab (kubegap.io/exempt: *)" in text
    assert "1 finding exempted" in text
    [result] = json.loads(sarif.read_text())["runs"][0]["results"]
    assert result["kind"] == "fail"
    assert result["suppressions"] == [
        {"kind": "inSource", "status": "accepted", "justification": "lab (kubegap.io/exempt: *)"}
    ]


def _config(tmp_path: Path, doc: Any) -> str:
    path = tmp_path / "kubegap.yaml"
    path.write_text(doc if isinstance(doc, str) else yaml.safe_dump(doc))
    return str(path)


def test_config_exemptions_by_namespace_selector_and_resource(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    res = _fail_resource()
    rules = [
        {"checks": ["MEM-001"], "namespaces": [res["namespace"]], "reason": "by namespace"},
        {"checks": ["*"], "selector": {"matchLabels": {"team": "infra"}}, "reason": "by label"},
        {"checks": ["MEM-001"], "resources": [f"*/PyTorchJob/{res['name']}"], "reason": "by name"},
    ]
    for i, rule in enumerate(rules):
        labels = {"team": "infra"} if "selector" in rule else None
        snap = tmp_path / f"s{i}.yaml"
        doc = yaml.safe_load(MEM_FAIL.read_text())
        if labels:
            doc["items"][0]["metadata"]["labels"] = labels
        snap.write_text(yaml.safe_dump(doc))
        config = _config(tmp_path, {"exemptions": [rule]})
        _, out, _ = _audit(
            capsys, "--snapshot", str(snap), "--checks", "MEM-001", "--config", config, "-o", "json"
        )
        [f] = [f for f in out["findings"] if f["status"] == "exempted"]
        assert f["exemption"] == {
            "source": "config",
            "reason": rule["reason"],
            "rule": f"{config}: exemptions[0]",
        }
        assert out["source"]["config"] == config


def test_a_rule_that_does_not_match_exempts_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = _config(
        tmp_path,
        {
            "exemptions": [
                {"checks": ["MEM-001"], "namespaces": ["elsewhere"], "reason": "x"},
                {
                    "checks": ["MEM-001"],
                    "selector": {"matchLabels": {"team": "infra"}},
                    "reason": "x",
                },
            ]
        },
    )
    _, doc, _ = _audit(
        capsys, "--snapshot", str(MEM_FAIL), "--checks", "MEM-001", "--config", config, "-o", "json"
    )
    assert {f["status"] for f in doc["findings"]} == {"fail"}


def test_config_turns_checks_off_and_changes_thresholds(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    grace = FIXTURES / "CKPT-001/pass-long-grace.yaml"
    seconds = min(
        t["template"]["spec"].get("terminationGracePeriodSeconds", 30)
        for item in yaml.safe_load(grace.read_text())["items"]
        for t in (item.get("spec", {}).get("pytorchReplicaSpecs") or {}).values()
    )
    config = _config(
        tmp_path,
        {
            "checks": {
                "CKPT-001": {"min_grace_seconds": seconds + 1},
                "ckpt-002": {"enabled": False},
            }
        },
    )
    code, doc, _ = _audit(
        capsys,
        "--snapshot",
        str(grace),
        "--checks",
        "CKPT-001,CKPT-002",
        "--config",
        config,
        "-o",
        "json",
        "--fail-on",
        "low",
    )
    assert [c["id"] for c in doc["checks"]] == ["CKPT-001"]
    assert doc["summary"]["disabled_checks"] == ["CKPT-002"]
    [f] = doc["findings"]
    assert f["status"] == "fail" and f["evidence"][0]["expected"] == f">= {seconds + 1}"
    assert code == 1


@pytest.mark.parametrize(
    "doc,words",
    [
        ("checks: [\n", "is not valid YAML (line 2)"),
        ("- a\n", "the top level must be a mapping"),
        ({"exemption": []}, "exemption: unknown key (known: checks, exemptions)"),
        ({"checks": {"NOPE-1": {"enabled": False}}}, "checks.NOPE-1: unknown check id"),
        (
            {"checks": {"CKPT-001": {"min_grace": 5}}},
            "checks.CKPT-001.min_grace: unknown setting (known: enabled, min_grace_seconds, short_run_seconds)",
        ),
        (
            {"checks": {"CKPT-001": {"min_grace_seconds": "soon"}}},
            "checks.CKPT-001.min_grace_seconds: must be a number",
        ),
        (
            {"checks": {"CKPT-001": {"enabled": "no"}}},
            "checks.CKPT-001.enabled: must be true or false",
        ),
        (
            {"exemptions": [{"checks": ["MEM-001"], "namespaces": ["a"]}]},
            "exemptions[0].reason: required",
        ),
        (
            {"exemptions": [{"checks": ["MEM-001"], "reason": "r"}]},
            "exemptions[0]: needs namespaces, selector or resources",
        ),
        ({"exemptions": [{"reason": "r", "namespaces": ["a"]}]}, "exemptions[0].checks: required"),
        (
            {"exemptions": [{"checks": ["XX-1"], "reason": "r", "namespaces": ["a"]}]},
            "exemptions[0].checks: unknown check id XX-1",
        ),
        (
            {"exemptions": [{"checks": ["*"], "reason": "r", "namespace": ["a"]}]},
            "exemptions[0].namespace: unknown key",
        ),
        (
            {"exemptions": [{"checks": ["*"], "reason": "r", "selector": {"app": "x"}}]},
            "exemptions[0].selector: must be a label selector",
        ),
    ],
)
def test_a_bad_config_exits_2_naming_the_key(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, doc: Any, words: str
) -> None:
    config = _config(tmp_path, doc)
    code, out, err = _audit(capsys, "--snapshot", str(MEM_FAIL), "--config", config, "-o", "json")
    assert code == 2 and not out
    assert err.startswith(f"kubegap: error: config {config}")
    assert words in err and "Traceback" not in err and err.count("\n") == 1


def test_a_missing_config_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = _audit(
        capsys, "--snapshot", str(MEM_FAIL), "--config", str(tmp_path / "none.yaml")
    )
    assert code == 2 and "cannot read config" in err
