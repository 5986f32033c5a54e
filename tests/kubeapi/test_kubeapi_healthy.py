"""kubegap against a healthy GPU cluster on a real 1.20 API server, as the shipped identity.

A healthy cluster must audit clean (exit 0): every check passes or says exactly why it does not
apply, every kind the checks need is listed or known to be absent, and the API server's own
audit log shows kubegap only reading, and never touching Secrets.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cluster_healthy import HEALTHY_ABSENT
from cluster_healthy import HEALTHY_NODES
from cluster_healthy import HEALTHY_NOT_APPLICABLE
from cluster_healthy import build_healthy
from kube_client import KubeClient
from kube_client import load_manifest
from kubeapi_harness import KUBEGAP_USER
from kubeapi_harness import KUBEGAP_USER_TOKEN
from kubeapi_harness import ApiServer
from kubeapi_harness import KubegapIdentity
from kubegap_run import Report
from kubegap_run import audit
from kubegap_run import audit_subprocess
from kubegap_run import check_statuses
from kubegap_run import coverage
from kubegap_run import kubegap_requests
from kubegap_run import verbs_by_resource

from incidents.audit.checks import ALL_CHECKS
from incidents.audit.checks import REGISTRY
from incidents.audit.cli import main
from incidents.audit.engine import needed_kinds
from incidents.audit.kinds import KINDS

pytestmark = pytest.mark.apiserver
RBAC_MANIFEST = Path(__file__).resolve().parents[2] / "site" / "k8s" / "kubegap-rbac.yaml"


@pytest.fixture(scope="module")
def healthy(admin: KubeClient, kubegap_identity: KubegapIdentity) -> KubegapIdentity:
    build_healthy(admin)
    return kubegap_identity


@pytest.fixture(scope="module")
def live_report(healthy: KubegapIdentity) -> tuple[int, Report, str]:
    """``python -m incidents.audit audit --format json`` run once, as a user would."""
    return audit_subprocess(healthy.kubeconfig)


def test_healthy_cluster_audits_clean(live_report: tuple[int, Report, str]) -> None:
    code, report, stderr = live_report
    assert code == 0, stderr
    assert report["summary"]["exit_code"] == 0
    assert report["source"]["server_version"] == "v1.20.2"
    statuses = check_statuses(report)
    assert set(statuses) == set(REGISTRY)
    expected = {
        cid: "not_applicable" if cid in HEALTHY_NOT_APPLICABLE else "pass" for cid in REGISTRY
    }
    assert statuses == expected
    assert not [f for f in report["findings"] if f["status"] in ("fail", "not_evaluated")]


def test_not_applicable_says_why(live_report: tuple[int, Report, str]) -> None:
    _, report, _ = live_report
    reasons = {
        f["check_id"]: f["message"] for f in report["findings"] if f["status"] == "not_applicable"
    }
    assert reasons == HEALTHY_NOT_APPLICABLE


def test_coverage_is_exact_and_uses_what_1_20_serves(
    live_report: tuple[int, Report, str], admin: KubeClient
) -> None:
    _, report, _ = live_report
    cov = coverage(report)
    assert set(cov) == set(needed_kinds(ALL_CHECKS))
    assert {k for k, c in cov.items() if c["status"] == "absent"} == HEALTHY_ABSENT & set(cov)
    assert {c["status"] for k, c in cov.items() if k not in HEALTHY_ABSENT} == {"listed"}
    # 1.20 serves CronJob only as batch/v1beta1: discovery must fall back to it.
    assert cov["cronjobs.batch"]["api_version"] == "batch/v1beta1"
    assert cov["cronjobs.batch"]["count"] == 1
    assert cov["nodes"]["count"] == HEALTHY_NODES
    assert cov["pytorchjobs.kubeflow.org"]["count"] == 1
    assert cov["clusterpolicies.nvidia.com"]["count"] == 1
    pods = admin.get("/api/v1/pods")["items"]
    assert cov["pods"]["count"] == len(pods)
    # kubegap 2's kinds, as 1.20 serves them: a TrainJob on its runtime, PDBs in policy/v1beta1,
    # and only the Warning events (the server filters type=Warning; a Normal event exists too).
    assert cov["trainjobs.trainer.kubeflow.org"]["count"] == 1
    assert cov["clustertrainingruntimes.trainer.kubeflow.org"]["count"] == 1
    assert cov["poddisruptionbudgets.policy"]["api_version"] == "policy/v1beta1"
    assert cov["events"]["count"] == 1
    assert len(admin.get("/api/v1/events")["items"]) == 2


def test_kubegap_only_reads_and_never_touches_secrets(
    live_report: tuple[int, Report, str], apiserver: ApiServer, healthy: KubegapIdentity
) -> None:
    _, report, _ = live_report
    requests = kubegap_requests(apiserver.audit_events(), healthy.username)
    assert requests, "the API server recorded no request from kubegap's identity"
    verbs = {ev["verb"] for ev in requests}
    assert verbs <= {"get", "list", "watch"}, verbs
    assert all(ev["userAgent"].startswith("kubegap/") for ev in requests)
    touched = verbs_by_resource(requests)
    assert not [k for k in touched if "secrets" in k[1]]
    assert not [ev for ev in requests if "/log" in ev["requestURI"] or "/exec" in ev["requestURI"]]
    assert {ev["responseStatus"]["code"] for ev in requests} == {200}
    listed = {KINDS[k].resource for k, c in coverage(report).items() if c["status"] == "listed"}
    assert listed <= {resource for verb, resource in touched if verb == "list"}


def test_collect_then_snapshot_audit_matches_live(healthy: KubegapIdentity, tmp_path: Path) -> None:
    live_code, live = audit(healthy.kubeconfig, tmp_path / "live.json")
    snapshot = tmp_path / "cluster.json.gz"
    assert (
        main(["collect", "--kubeconfig", str(healthy.kubeconfig), "--output-file", str(snapshot)])
        == 0
    )
    snap_code, offline = audit(
        Path("/nonexistent"), tmp_path / "offline.json", "--snapshot", str(snapshot)
    )
    assert (snap_code, offline["summary"]) == (live_code, live["summary"])
    assert offline["checks"] == live["checks"]
    assert offline["coverage"] == live["coverage"]
    assert offline["findings"] == live["findings"]


def test_a_kind_the_identity_may_not_list_is_not_evaluated(
    apiserver: ApiServer,
    admin: KubeClient,
    healthy: KubegapIdentity,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Take ConfigMaps away from the shipped role: their checks must not read as healthy."""
    role = next(o for o in load_manifest(RBAC_MANIFEST) if o["kind"] == "ClusterRole")
    rules = []
    for rule in role["rules"]:
        resources = [
            r for r in rule["resources"] if not (rule["apiGroups"] == [""] and r == "configmaps")
        ]
        if resources:
            rules.append({**rule, "resources": resources})
    admin.create({**role, "metadata": {"name": "kubegap-no-configmaps"}, "rules": rules})
    admin.create(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": "kubegap-no-configmaps"},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": "kubegap-no-configmaps",
            },
            "subjects": [
                {"kind": "User", "name": KUBEGAP_USER, "apiGroup": "rbac.authorization.k8s.io"}
            ],
        }
    )
    kubeconfig = apiserver.kubeconfig("restricted", KUBEGAP_USER, KUBEGAP_USER_TOKEN)
    code, report = audit(kubeconfig, tmp_path / "restricted.json")
    assert code == 3
    assert report["summary"]["coverage_complete"] is False
    assert coverage(report)["configmaps"]["status"] == "forbidden"
    readers = {c.id for c in ALL_CHECKS if "configmaps" in c.reads}
    assert readers, "no check reads configmaps any more; pick another kind"
    statuses = check_statuses(report)
    assert {cid for cid, s in statuses.items() if s == "not_evaluated"} == readers
    for cid in readers:
        [finding] = [f for f in report["findings"] if f["check_id"] == cid]
        assert finding["evidence"] == [
            {"path": "coverage.configmaps", "observed": "forbidden", "expected": "listed or absent"}
        ]

    # --preflight asks the server the same question up front (SelfSubjectAccessReview).
    capsys.readouterr()
    assert main(["audit", "--preflight", "--kubeconfig", str(kubeconfig)]) == 3
    lines = capsys.readouterr().out.splitlines()
    assert "DENIED   list configmaps" in lines
    assert len(lines) == len(coverage(report))
    assert sum(line.startswith("allowed ") for line in lines) == len(lines) - 1
    # The review is the one write kubegap ever sends, and only when --preflight is asked for.
    writes = {
        (ev["verb"], ev["objectRef"]["resource"])
        for ev in kubegap_requests(apiserver.audit_events(), KUBEGAP_USER)
        if ev["verb"] not in ("get", "list", "watch")
    }
    assert writes == {("create", "selfsubjectaccessreviews")}
    # ...with kubegap's own user agent and the same credentials as every other request.
    reviews = [
        ev
        for ev in kubegap_requests(apiserver.audit_events(), KUBEGAP_USER)
        if ev["verb"] == "create"
    ]
    assert reviews and all(ev["userAgent"].startswith("kubegap/") for ev in reviews)


def test_namespace_scoped_audit_lists_namespaced_kinds_in_that_namespace_only(
    apiserver: ApiServer, healthy: KubegapIdentity, tmp_path: Path
) -> None:
    before = len(apiserver.audit_events())
    code, report = audit(healthy.kubeconfig, tmp_path / "ns.json", "--namespace", "training")
    assert report["source"]["namespace"] == "training"
    requests = kubegap_requests(apiserver.audit_events()[before:], healthy.username)
    lists = [ev for ev in requests if ev["verb"] == "list"]
    for ev in lists:
        ref = ev["objectRef"]
        namespaced = any(
            s.resource == ref["resource"] and s.group == ref.get("apiGroup", "") and s.namespaced
            for s in KINDS.values()
        )
        assert ref.get("namespace") == ("training" if namespaced else None), ev["requestURI"]
    namespaces = {f["resource"].get("namespace") for f in report["findings"]}
    assert namespaces <= {None, "training"}
    statuses = check_statuses(report)
    # Per-workload checks still run on the namespace's workloads...
    assert statuses["MEM-001"] == statuses["JOB-001"] == "pass"
    # ...but cluster-wide ones must not pass on a partial view: the NPD and DCGM pods live in
    # other namespaces, so "every GPU node has one" cannot be judged from here.
    for cid in ("GPU-001", "MON-001", "PLAT-002"):
        [finding] = [f for f in report["findings"] if f["check_id"] == cid]
        assert finding["status"] == "not_evaluated", cid
        assert {
            "path": "source.namespace",
            "observed": "training",
            "expected": "all namespaces",
        } in (finding["evidence"])
    assert "fail" not in statuses.values()
    assert code == 3  # healthy, but not everything was looked at: never exit clean
    assert code == report["summary"]["exit_code"]


def test_in_cluster_service_account_audits_like_the_kubeconfig(
    apiserver: ApiServer,
    healthy: KubegapIdentity,
    live_report: tuple[int, Report, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """kubegap run as a pod: no kubeconfig, the mounted ServiceAccount token and CA."""
    import incidents.audit.kubeconfig as kubeconfig

    sa_dir = tmp_path / "serviceaccount"
    sa_dir.mkdir()
    (sa_dir / "token").write_text(healthy.token)
    (sa_dir / "ca.crt").write_bytes(apiserver.ca_pem)
    (sa_dir / "namespace").write_text("kubegap")
    monkeypatch.setattr(kubeconfig, "SA_DIR", sa_dir)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.kube/config
    monkeypatch.delenv("KUBECONFIG", raising=False)
    port = apiserver.url.rsplit(":", 1)[1]
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", port)

    out = tmp_path / "in-cluster.json"
    assert main(["audit", "--format", f"json={out}", "--fail-on", "low"]) == 0
    report = json.loads(out.read_text())
    _, live, _ = live_report
    assert report["source"]["context"] == "in-cluster"
    assert report["findings"] == live["findings"]
    assert report["coverage"] == live["coverage"]
