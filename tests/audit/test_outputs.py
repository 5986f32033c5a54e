"""SARIF basics, the RBAC manifest kept equal to the registry, cited cases exist in the library."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from incidents.audit.cases import CASES
from incidents.audit.checks import ALL_CHECKS
from incidents.audit.engine import run_checks
from incidents.audit.kinds import KINDS
from incidents.audit.model import Check
from incidents.audit.rbac import manifest
from incidents.audit.sarif import render_sarif
from incidents.audit.snapshot import load

from .conftest import FIXTURES

REPO = Path(__file__).resolve().parents[2]
RBAC_FILE = REPO / "site/k8s/kubegap-rbac.yaml"


def test_sarif_has_rules_results_and_logical_locations() -> None:
    result = run_checks(list(ALL_CHECKS), load(FIXTURES / "GPU-002/fail-xid-schedulable.yaml"))
    doc = json.loads(render_sarif(result, "high", "https://lib.example"))
    assert doc["version"] == "2.1.0" and "sarif-2.1.0" in doc["$schema"]
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == sorted(c.id for c in ALL_CHECKS)
    for rule in rules:
        assert rule["helpUri"].startswith("https://lib.example/checks/")
        assert rule["shortDescription"]["text"] and rule["help"]["text"]
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
        assert rule["properties"]["cases"]
    fails = [r for r in run["results"] if r["kind"] == "fail"]
    assert fails
    for r in run["results"]:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
        loc = r["locations"][0]
        fqn = loc["logicalLocations"][0]["fullyQualifiedName"]
        assert fqn.count("/") == 2
        assert loc["physicalLocation"]["artifactLocation"]["uri"].endswith(fqn)
    node = next(r for r in fails if r["ruleId"] == "GPU-002")
    assert (
        node["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "_cluster/Node/gpu-1"
    )
    assert node["level"] == "error"
    assert run["invocations"][0]["exitCode"] == 1


def test_rbac_manifest_matches_the_check_registry() -> None:
    assert RBAC_FILE.read_text() == manifest(ALL_CHECKS), (
        "run: kubegap rbac -o site/k8s/kubegap-rbac.yaml"
    )
    docs = list(yaml.safe_load_all(RBAC_FILE.read_text()))
    role = next(d for d in docs if d["kind"] == "ClusterRole")
    granted = {
        (g, r) for rule in role["rules"] for g in rule["apiGroups"] for r in rule["resources"]
    }
    needed = {(KINDS[k].group, KINDS[k].resource) for c in ALL_CHECKS for k in c.reads}
    assert granted == needed
    assert all(rule["verbs"] == ["get", "list", "watch"] for rule in role["rules"])
    assert not [r for g, r in granted if r in ("secrets", "pods/log", "pods/exec", "*")]
    binding = next(d for d in docs if d["kind"] == "ClusterRoleBinding")
    sa = next(d for d in docs if d["kind"] == "ServiceAccount")
    assert binding["subjects"] == [
        {
            "kind": "ServiceAccount",
            "name": sa["metadata"]["name"],
            "namespace": sa["metadata"]["namespace"],
        }
    ]


def test_every_cited_case_is_in_the_case_list_and_the_library_fixtures() -> None:
    cited = {slug for c in ALL_CHECKS for slug in c.cases}
    assert all(c.cases for c in ALL_CHECKS)
    assert cited <= set(CASES), cited - set(CASES)
    missing = sorted(s for s in cited if not (REPO / "fixtures/cases" / f"{s}.yaml").exists())
    assert not missing, f"cited cases without fixtures/cases/<slug>.yaml: {missing}"


def test_every_check_cites_public_references_and_reads_known_kinds() -> None:
    for check in ALL_CHECKS:
        assert check.references and all(r.url.startswith("https://") for r in check.references)
        assert check.reads and set(check.reads) <= set(KINDS)
        assert check.why and check.remediation and check.title


def test_demo_snapshots_audit_as_documented() -> None:
    from incidents.audit.report import check_status
    from incidents.audit.report import exit_code

    snaps = REPO / "fixtures/snapshots"
    healthy = run_checks(list(ALL_CHECKS), load(snaps / "demo-healthy-gpu-cluster.json"))
    assert exit_code(healthy, "info") == 0
    assert not [f for f in healthy.findings if f.status in ("fail", "not_evaluated")]
    broken = run_checks(list(ALL_CHECKS), load(snaps / "demo-broken-gpu-cluster.json"))
    assert exit_code(broken, "high") == 1
    failing = {c.id for c in ALL_CHECKS if check_status(c, broken.findings) == "fail"}
    assert {
        "GPU-001",
        "GPU-002",
        "GPU-003",
        "GPU-004",
        "MON-001",
        "JOB-002",
        "JOB-003",
        "NODE-001",
        "PRE-002",  # the device plugin is scheduled on 2 of the 11 GPU nodes
    } <= failing


def test_kubegap_imports_nothing_from_django() -> None:
    import ast

    offenders = []
    for path in (REPO / "incidents/audit").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            elif isinstance(node, ast.ImportFrom) and node.level >= 2:
                names = [f"incidents.{node.module or ''}"]  # ``from ..models`` leaves the package
            offenders += [
                f"{path.name}: {n}"
                for n in names
                if n.split(".")[0] == "django" or n.startswith("incidents.models")
            ]
    assert not offenders


@pytest.mark.parametrize(
    "snapshot",
    [
        "fixtures/snapshots/demo-broken-gpu-cluster.json",
        "fixtures/snapshots/demo-healthy-gpu-cluster.json",
        "tests/audit/fixtures/GPU-001/not-evaluated-pods-forbidden.yaml",
    ],
)
def test_json_report_validates_against_the_published_schema(snapshot: str) -> None:
    import jsonschema

    from incidents.audit.report import render_json

    schema = json.loads((REPO / "incidents/audit/report.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    result = run_checks(list(ALL_CHECKS), load(REPO / snapshot))
    doc = json.loads(render_json(result, "high", "http://127.0.0.1:8000"))
    assert all(
        c["library_url"].startswith("http://127.0.0.1:8000/cases/")
        for check in doc["checks"]
        for c in check["cases"]
    )
    errors = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(doc)]
    assert not errors, errors[:5]


def test_the_published_schema_names_the_version_reports_carry() -> None:
    """A tool that caches schemas by $id must not take the 3.x schema for the 2.0 one."""
    from incidents.audit.report import SCHEMA_VERSION

    schema = json.loads((REPO / "incidents/audit/report.schema.json").read_text())
    assert schema["properties"]["schema_version"] == {"const": SCHEMA_VERSION}
    assert schema["$id"].endswith(f"/report-{SCHEMA_VERSION}.schema.json")
    assert schema["title"] == f"kubegap report {SCHEMA_VERSION}"


def test_sarif_results_keep_their_fingerprint_from_run_to_run() -> None:
    """A viewer tracks a result across runs by partialFingerprints (there is no file to hash):
    one per result, and the same for the same check and resource whatever else the run holds."""
    snap = REPO / "fixtures/snapshots/demo-broken-gpu-cluster.json"

    def prints(checks: list[Check]) -> dict[tuple[str, str], str]:
        doc = json.loads(render_sarif(run_checks(checks, load(snap)), "high", None))
        results = doc["runs"][0]["results"]
        out = {
            (r["ruleId"], r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]): r[
                "partialFingerprints"
            ]["kubegap/v1"]
            for r in results
        }
        assert len(set(out.values())) == len(results)  # one each
        return out

    everything = prints(list(ALL_CHECKS))
    one_check = prints([c for c in ALL_CHECKS if c.id == "GPU-002"])
    assert one_check and all(everything[key] == value for key, value in one_check.items())
