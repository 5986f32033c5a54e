"""kubegap against a broken GPU cluster on a real 1.20 API server, as the shipped identity.

The broken cluster (see :func:`cluster_broken.build_broken`) carries one instance of every gap the
checks look for; kubegap must report exactly those failures, on exactly those resources, and
say what it could not see. A guard test fails when a check is added without a failing case here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from cluster_broken import BROKEN_ABSENT
from cluster_broken import BROKEN_FAILURES
from cluster_broken import BROKEN_NOT_APPLICABLE
from cluster_broken import BROKEN_NOT_EVALUATED
from cluster_broken import build_broken
from kube_client import KubeClient
from kubeapi_harness import ApiServer
from kubeapi_harness import KubegapIdentity
from kubegap_run import REPO_ROOT
from kubegap_run import Report
from kubegap_run import audit
from kubegap_run import check_statuses
from kubegap_run import coverage
from kubegap_run import kubegap_requests
from kubegap_run import outcomes
from kubegap_run import resource_name
from kubegap_run import verbs_by_resource

from incidents.audit.cases import CASES
from incidents.audit.checks import REGISTRY
from incidents.audit.cli import main

pytestmark = pytest.mark.apiserver


def test_every_check_has_a_failing_case_on_the_real_server() -> None:
    """Guard: a new check needs a broken object here (or a reason it cannot apply on 1.20)."""
    covered = set(BROKEN_FAILURES) | BROKEN_NOT_APPLICABLE
    assert sorted(set(REGISTRY) - covered) == []
    assert sorted(covered - set(REGISTRY)) == []


@pytest.fixture(scope="module")
def broken(admin: KubeClient, kubegap_identity: KubegapIdentity) -> KubegapIdentity:
    build_broken(admin)
    return kubegap_identity


@pytest.fixture(scope="module")
def live(broken: KubegapIdentity, tmp_path_factory: pytest.TempPathFactory) -> tuple[int, Report]:
    return audit(broken.kubeconfig, tmp_path_factory.mktemp("broken") / "report.json")


def test_broken_cluster_reports_exactly_its_gaps(live: tuple[int, Report]) -> None:
    code, report = live
    assert code == 1
    expected = {
        (cid, "fail", resource)
        for cid, resources in BROKEN_FAILURES.items()
        for resource in resources
    } | {(cid, "not_applicable", "_cluster/Cluster/cluster") for cid in BROKEN_NOT_APPLICABLE}
    expected |= {
        (cid, "not_evaluated", resource)
        for cid, resources in BROKEN_NOT_EVALUATED.items()
        for resource in resources
    }
    got = outcomes(report)
    assert sorted(got - expected) == [], "unexpected findings"
    assert sorted(expected - got) == [], "missing findings"
    statuses = check_statuses(report)
    assert statuses == {
        cid: "not_applicable" if cid in BROKEN_NOT_APPLICABLE else "fail" for cid in REGISTRY
    }


def test_findings_carry_evidence_and_cite_library_cases(live: tuple[int, Report]) -> None:
    _, report = live
    checks = {c["id"]: c for c in report["checks"]}
    for f in report["findings"]:
        if f["status"] != "fail":
            continue
        assert f["evidence"], f"{f['check_id']} on {f['resource']} has no evidence"
        assert all(set(e) == {"path", "observed", "expected"} for e in f["evidence"])
        check = checks[f["check_id"]]
        assert check["cases"] and all(c["slug"] in CASES for c in check["cases"])
        assert check["remediation"]


def test_specific_evidence(live: tuple[int, Report]) -> None:
    """A few findings checked down to the field the API server stored."""
    _, report = live

    def evidence(cid: str, name: str) -> dict[str, object]:
        """Observed values by path, over every finding of ``cid`` on the resource ``name``."""
        found = [
            f for f in report["findings"] if (f["check_id"], f["resource"]["name"]) == (cid, name)
        ]
        assert found, (cid, name)
        return {e["path"]: e["observed"] for f in found for e in f["evidence"]}

    assert evidence("GPU-003", "gpu-b-1") == {'status.allocatable["nvidia.com/gpu"]': 7.0}
    fault = evidence("GPU-002", "gpu-b-1")
    assert fault["status.conditions[4]"] == "XIDErrors=True (XID79)"
    # Neither the GPU-node taint every GPU pod tolerates nor the lifecycle controller's
    # not-ready taint is a quarantine: the Ready node is still open to GPU work.
    assert fault["spec.taints"] == [
        "nvidia.com/gpu:NoSchedule",
        "node.kubernetes.io/not-ready:NoSchedule",
    ]
    # The pods already on the faulty node are reported on their workloads.
    on_node = evidence("GPU-002", "bert-pretrain")
    assert on_node["pods[spec.nodeName=gpu-b-1]"] == ["bert-pretrain-worker-0"]
    assert on_node["nodes[gpu-b-1].status.conditions[4]"] == "XIDErrors=True (XID79)"
    assert evidence("GPU-004", "cluster-policy") == {
        "spec.devicePlugin.env[DP_DISABLE_HEALTHCHECKS]": "all"
    }
    # The API server defaulted the notebook pod's grace period to 30 s, but a notebook is not
    # a training job; the PyTorchJob's template (a CRD, not defaulted) stays unset.
    assert not [
        f
        for f in report["findings"]
        if f["check_id"].startswith("CKPT") and f["resource"]["name"] == "notebook-0"
    ]
    assert evidence("CKPT-001", "gpt-finetune") == {
        f"spec.pytorchReplicaSpecs.{role}.template.spec.terminationGracePeriodSeconds": "unset (30)"
        for role in ("Master", "Worker")
    }
    assert evidence("JOB-003", "gpt-finetune") == {
        "spec.pytorchReplicaSpecs.*.restartPolicy": {"Master": "Never", "Worker": "Never"},
        "spec.elasticPolicy.maxRestarts": None,
        "spec.runPolicy.backoffLimit": 0,
    }
    # OnFailure restarts the failed pod alone: no gang restart, whatever the backoffLimit.
    onfailure = evidence("JOB-003", "bert-pretrain")
    assert onfailure["spec.pytorchReplicaSpecs.*.restartPolicy"] == {
        "Master": "OnFailure",
        "Worker": "OnFailure",
    }
    assert onfailure["spec.runPolicy.backoffLimit"] == 3
    assert evidence("PLAT-003", "cluster-policy") == {
        "spec.driver.upgradePolicy.maxParallelUpgrades": 0
    }
    [xid] = evidence("EVT-001", "gpu-b-1")["events[type=Warning]"]
    assert xid.startswith("XIDError: NVRM: Xid (PCI:0000:b8:00): 79") and "(x2," in xid
    [pending] = evidence("EVT-002", "bert-pretrain")["events[reason=FailedScheduling]"]
    assert "Insufficient nvidia.com/gpu" in pending and "(x12," in pending
    oom = evidence("MEM-003", "notebook-0")[
        "pods[notebook-0].status.containerStatuses[0].lastState.terminated.reason"
    ]
    assert str(oom).startswith("OOMKilled at ")
    sched = evidence("SCHED-001", "gpt-finetune")
    assert sched["nodes[*].metadata.labels[nvidia.com/gpu.product]"] == {
        "NVIDIA-A100-SXM4-80GB": ["gpu-b-3"],
        "NVIDIA-H100-80GB-HBM3": ["gpu-b-0", "gpu-b-2"],
    }


def test_absent_crds_are_reported_as_absent_not_healthy(live: tuple[int, Report]) -> None:
    _, report = live
    cov = coverage(report)
    assert {k for k, c in cov.items() if c["status"] == "absent"} == BROKEN_ABSENT & set(cov)
    assert {c["status"] for k, c in cov.items() if k not in BROKEN_ABSENT} == {"listed"}
    assert report["summary"]["coverage_complete"] is True
    [alert] = [f for f in report["findings"] if f["check_id"] == "ALERT-001"]
    assert "PrometheusRule CRD is not installed" in alert["message"]


def test_device_health_fields_are_not_expected_from_1_20(live: tuple[int, Report]) -> None:
    _, report = live
    [f] = [f for f in report["findings"] if f["check_id"] == "GPU-005"]
    assert f["status"] == "not_applicable"
    assert "1.20" in f["message"]


def test_snapshot_audit_is_identical_to_live(
    broken: KubegapIdentity, live: tuple[int, Report], tmp_path: Path
) -> None:
    snapshot = tmp_path / "broken.json.gz"
    assert (
        main(["collect", "--kubeconfig", str(broken.kubeconfig), "--output-file", str(snapshot)])
        == 0
    )
    code, offline = audit(
        Path("/nonexistent"), tmp_path / "offline.json", "--snapshot", str(snapshot)
    )
    live_code, report = live
    assert code == live_code
    for part in ("summary", "checks", "coverage", "findings"):
        assert offline[part] == report[part], part
    assert offline["source"]["type"] == "snapshot"
    assert offline["source"]["server_version"] == "v1.20.2"


def test_sarif_lists_every_failure(
    broken: KubegapIdentity, live: tuple[int, Report], tmp_path: Path
) -> None:
    sarif = tmp_path / "report.sarif"
    code = main(
        [
            "audit",
            "--kubeconfig",
            str(broken.kubeconfig),
            "--format",
            f"sarif={sarif}",
            "--fail-on",
            "critical",
        ]
    )
    assert code == 1  # GPU-002 is critical
    doc = json.loads(sarif.read_text())
    assert doc["version"] == "2.1.0"
    results = doc["runs"][0]["results"]
    _, report = live
    failures = [f for f in report["findings"] if f["status"] == "fail"]
    assert sorted(r["ruleId"] for r in results if r.get("kind", "fail") == "fail") == sorted(
        f["check_id"] for f in failures
    )


def test_mcp_audit_tool_summarises_the_live_cluster(
    broken: KubegapIdentity, live: tuple[int, Report]
) -> None:
    """``kubegap mcp`` over stdio, as an agent runs it: a bounded summary of the same audit.

    The identity's kubeconfig is not in a default location, so the server is started allowing it.
    """
    # Imported here, not at collection: mcp costs every process about 0.5 s to import.
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "incidents.audit", "mcp", "--library-url", "http://127.0.0.1:9"]
        + ["--allow-kubeconfig", str(broken.kubeconfig)],
        cwd=str(REPO_ROOT),
    )

    async def call() -> Any:
        async with Client(params) as client:
            result = await client.call_tool(
                "audit", {"kubeconfig": str(broken.kubeconfig), "fail_on": "low", "top": 5}
            )
            assert not result.is_error, result
            content = result.structured_content
            assert content is not None, "the audit tool returns structured content"
            return content.get("result", content)

    doc = anyio.run(call)
    _, report = live
    fails = [f for f in report["findings"] if f["status"] == "fail"]
    assert doc["summary"] == report["summary"]
    assert len(doc["top_findings"]) == 5
    assert doc["truncated"] == len(fails) - 5
    # GPU-002 is the one critical check: the faulty node and the pods on it come first.
    assert {f["check_id"] for f in doc["top_findings"][:3]} == {"GPU-002"}
    assert "_cluster/Node/gpu-b-1" in {f["resource"] for f in doc["top_findings"][:3]}
    assert doc["coverage_gaps"] == {k: "absent" for k in sorted(BROKEN_ABSENT)}


def test_audit_log_shows_read_only_access(
    live: tuple[int, Report], apiserver: ApiServer, broken: KubegapIdentity
) -> None:
    requests = kubegap_requests(apiserver.audit_events(), broken.username)
    assert requests
    touched = verbs_by_resource(requests)
    assert {verb for verb, _ in touched} <= {"get", "list", "watch"}
    assert not [k for k in touched if "secrets" in k[1]]
    # Absent CRDs are discovered, not probed: no request for a resource the server lacks.
    assert {ev["responseStatus"]["code"] for ev in requests} == {200}


def test_fail_on_critical_fails_on_the_faulty_node(broken: KubegapIdentity, tmp_path: Path) -> None:
    """The verdict the first try of kubegap 2 got wrong: --fail-on critical must exit 1 here."""
    code, report = audit(
        broken.kubeconfig,
        tmp_path / "critical.json",
        "--checks",
        "GPU-002",
        "--fail-on",
        "critical",
    )
    assert code == 1
    assert report["summary"]["failing_by_severity"]["critical"] == 3


def test_a_namespaced_run_claims_nothing_about_other_namespaces(
    broken: KubegapIdentity, tmp_path: Path
) -> None:
    """-n research: gpu-b-2 still strands a pod of namespace training, which kubegap cannot see."""
    code, report = audit(broken.kubeconfig, tmp_path / "research.json", "-n", "research")
    [stranded] = [f for f in report["findings"] if f["check_id"] == "NODE-001"]
    assert stranded["status"] == "pass"
    assert "no pods in namespace research stranded" in stranded["message"]
    assert "objects outside namespace research (--namespace)" in stranded["not_seen"]
    fails = {
        (f["check_id"], resource_name(f["resource"]))
        for f in report["findings"]
        if f["status"] == "fail"
    }
    # Node-level gaps stay visible; pods of other namespaces are neither blamed nor cleared.
    assert ("GPU-002", "_cluster/Node/gpu-b-1") in fails
    assert ("GPU-002", "research/Pod/notebook-0") in fails
    assert not [r for _, r in fails if r.startswith("training/")]
    assert code == 1
