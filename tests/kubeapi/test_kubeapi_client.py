"""kubegap's client against a real API server: paging, discovery, credentials and TLS."""

from __future__ import annotations

import json
import shlex
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs
from urllib.parse import urlsplit

import gpu_crds as crds
import gpu_objects as g
import pytest
import yaml
from kube_client import KubeClient
from kubeapi_harness import ApiServer
from kubeapi_harness import KubegapIdentity
from kubeapi_harness import write_kubeconfig
from kubegap_run import audit
from kubegap_run import check_statuses
from kubegap_run import coverage
from kubegap_run import kubegap_requests

from incidents.audit.checks import ALL_CHECKS
from incidents.audit.cli import main

pytestmark = pytest.mark.apiserver

# Three pages of CHUNK (--chunk-size; the default of 500 is paged against the fake API server in
# tests/audit/test_client.py): a tenth of the objects the default would need.
CHUNK = 50
CONFIGMAPS = 2 * CHUNK + 1


@pytest.fixture(scope="module")
def bulk_configmaps(admin: KubeClient) -> int:
    """Enough ConfigMaps for three pages (created four at a time: a third less waiting)."""
    admin.create(g.namespace("bulk"))
    admin.resource("v1", "ConfigMap")  # discovered once, before the threads share the client

    def create(i: int) -> None:
        admin.create(g.configmap(f"job-config-{i:04d}", "bulk", {"config.yaml": f"step: {i}\n"}))

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(create, range(CONFIGMAPS)))
    return CONFIGMAPS


def test_lists_are_paged_with_continue_tokens(
    apiserver: ApiServer, bulk_configmaps: int, kubegap_identity: KubegapIdentity, tmp_path: Path
) -> None:
    before = len(apiserver.audit_events())

    code, report = audit(
        kubegap_identity.kubeconfig, tmp_path / "report.json", "--chunk-size", str(CHUNK)
    )

    cov = coverage(report)["configmaps"]
    assert (cov["status"], cov["count"], cov["pages"]) == ("listed", CONFIGMAPS, 3)
    lists = [
        parse_qs(urlsplit(ev["requestURI"]).query)
        for ev in kubegap_requests(apiserver.audit_events()[before:], kubegap_identity.username)
        if ev["verb"] == "list" and ev["objectRef"]["resource"] == "configmaps"
    ]
    assert [q["limit"] for q in lists] == [[str(CHUNK)]] * 3
    assert ["continue" in q for q in lists] == [False, True, True]
    assert code == 0  # no GPU nodes, no workloads: nothing fails, and nothing was hidden
    assert report["summary"]["coverage_complete"] is True


def test_a_crd_served_only_at_an_unknown_version_is_not_absent(
    admin: KubeClient, kubegap_identity: KubegapIdentity, tmp_path: Path
) -> None:
    """JobSet installed at v1alpha1 only (kubegap reads v1alpha2): its checks cannot pass."""
    crd = admin.create(crds.crd("jobset.x-k8s.io", "JobSet", "jobsets", ("v1alpha1",)))
    try:
        admin.create(g.namespace("old-jobs"))
        admin.create(
            {
                "apiVersion": "jobset.x-k8s.io/v1alpha1",
                "kind": "JobSet",
                "metadata": {"name": "pretrain", "namespace": "old-jobs"},
                "spec": {},
            }
        )
        code, report = audit(kubegap_identity.kubeconfig, tmp_path / "report.json")
    finally:
        admin.delete(crd)  # leave the server as the other tests expect it
    cov = coverage(report)["jobsets.jobset.x-k8s.io"]
    assert cov["status"] == "error"
    assert cov["message"] == (
        "served only as jobset.x-k8s.io/v1alpha1; kubegap reads jobset.x-k8s.io/v1alpha2"
    )
    readers = {c.id for c in ALL_CHECKS if "jobsets.jobset.x-k8s.io" in c.reads}
    statuses = check_statuses(report)
    assert readers and {statuses[cid] for cid in readers} == {"not_evaluated"}
    assert code == 3


def test_rejected_credentials_are_a_clear_configuration_error(
    apiserver: ApiServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kubeconfig = write_kubeconfig(
        tmp_path / "stale.kubeconfig", apiserver.url, apiserver.ca_pem, "kubegap", "expired-token"
    )
    capsys.readouterr()
    code = main(["audit", "--kubeconfig", str(kubeconfig), "--format", f"json={tmp_path / 'r'}"])
    assert code == 2
    err = capsys.readouterr().err
    assert "rejected the credentials (401)" in err
    assert "Traceback" not in err
    assert not (tmp_path / "r").exists()


def test_a_server_certificate_from_another_ca_is_refused(
    apiserver: ApiServer,
    kubegap_identity: KubegapIdentity,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """kubegap verifies the server against the kubeconfig's CA and sends no token otherwise."""
    other_ca = subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "/dev/null",
            "-subj",
            "/CN=some-other-cluster-ca",
            "-days",
            "1",
        ],
        check=True,
        capture_output=True,
    ).stdout
    kubeconfig = write_kubeconfig(
        tmp_path / "mitm.kubeconfig", apiserver.url, other_ca, "kubegap", kubegap_identity.token
    )
    before = len(apiserver.audit_events())
    capsys.readouterr()
    code = main(["audit", "--kubeconfig", str(kubeconfig), "--format", f"json={tmp_path / 'r'}"])
    assert code == 2
    err = capsys.readouterr().err
    assert "cannot reach the API server" in err and "CERTIFICATE_VERIFY_FAILED" in err
    assert not kubegap_requests(apiserver.audit_events()[before:], kubegap_identity.username)


def test_an_expired_continue_token_restarts_the_list(
    apiserver: ApiServer,
    bulk_configmaps: int,
    kubegap_identity: KubegapIdentity,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """etcd compacted between two pages: the API server answers 410 Gone, kubegap starts over."""
    from incidents.audit.client import ReadOnlyClient

    original = ReadOnlyClient.get
    compacted: list[int] = []

    def get_then_compact(
        self: ReadOnlyClient, path: str, params: dict[str, str] | None = None
    ) -> Any:
        body = original(self, path, params)
        if path.endswith("/configmaps") and not compacted and body["metadata"].get("continue"):
            compacted.append(apiserver.compact_etcd())
        return body

    monkeypatch.setattr(ReadOnlyClient, "get", get_then_compact)
    before = len(apiserver.audit_events())
    code, report = audit(
        kubegap_identity.kubeconfig, tmp_path / "report.json", "--chunk-size", str(CHUNK)
    )

    assert compacted, "the test never saw a second page to expire"
    cov = coverage(report)["configmaps"]
    assert (cov["status"], cov["count"], cov["message"]) == (
        "listed",
        CONFIGMAPS,
        "restarted after 410 Gone",
    )
    codes = [
        ev["responseStatus"]["code"]
        for ev in kubegap_requests(apiserver.audit_events()[before:], kubegap_identity.username)
        if ev["verb"] == "list" and ev["objectRef"]["resource"] == "configmaps"
    ]
    assert codes == [200, 410, 200, 200, 200]
    assert code == 0


def test_namespaces_named_like_subresources_are_audited(
    admin: KubeClient,
    kubegap_identity: KubegapIdentity,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A namespace called log, exec or secrets is a namespace: kubegap lists it, no traceback."""
    for name in ("log", "exec", "secrets"):
        admin.create(g.namespace(name))
        code, report = audit(kubegap_identity.kubeconfig, tmp_path / f"{name}.json", "-n", name)
        assert report["source"]["namespace"] == name
        assert code == 3  # a namespaced run never exits clean; nothing failed, nothing crashed
    assert "Traceback" not in capsys.readouterr().err


def test_tls_server_name_is_applied(
    apiserver: ApiServer,
    kubegap_identity: KubegapIdentity,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``localhost`` is not in the serving certificate; tls-server-name names one that is."""
    port = apiserver.url.rsplit(":", 1)[1]
    kubeconfig = write_kubeconfig(
        tmp_path / "sni.kubeconfig",
        f"https://localhost:{port}",
        apiserver.ca_pem,
        "kubegap",
        kubegap_identity.token,
    )
    capsys.readouterr()
    assert (
        main(["audit", "--kubeconfig", str(kubeconfig), "--checks", "GPU-003", "-o", "json"]) == 2
    )
    assert "CERTIFICATE_VERIFY_FAILED" in capsys.readouterr().err
    doc = yaml.safe_load(kubeconfig.read_text())
    doc["clusters"][0]["cluster"]["tls-server-name"] = "kubernetes.default.svc"
    kubeconfig.write_text(yaml.safe_dump(doc))
    code, report = audit(kubeconfig, tmp_path / "sni.json", "--checks", "GPU-003")
    assert code in (0, 3) and report["coverage"][0]["status"] == "listed"


def _exec_kubeconfig(apiserver: ApiServer, tmp_path: Path, tokens: list[str], expires: str) -> Path:
    """A kubeconfig whose exec plugin hands out ``tokens`` in turn (the last one from then on)."""
    tmp_path.mkdir()
    state = tmp_path / "calls"
    state.write_text("0")
    plugin = tmp_path / "credential-plugin"
    # A shell script (a Python one cost each of the test's 8 runs of the plugin a start-up).
    status: dict[str, str] = {"token": "TOKEN"} | (
        {"expirationTimestamp": expires} if expires else {}
    )
    before, after = json.dumps(
        {
            "apiVersion": "client.authentication.k8s.io/v1",
            "kind": "ExecCredential",
            "status": status,
        }
    ).split("TOKEN")
    plugin.write_text(
        "#!/bin/sh\n"
        f"n=$(cat {shlex.quote(str(state))}); echo $((n + 1)) > {shlex.quote(str(state))}\n"
        # tokens[min(n, len(tokens) - 1)]
        f"i=0; for t in {' '.join(shlex.quote(t) for t in tokens)}; do\n"
        '  token=$t; [ "$i" -ge "$n" ] && break; i=$((i + 1))\n'
        "done\n"
        f'printf "%s%s%s\\n" {shlex.quote(before)} "$token" {shlex.quote(after)}\n'
    )
    plugin.chmod(0o755)
    kubeconfig = write_kubeconfig(
        tmp_path / "exec.kubeconfig", apiserver.url, apiserver.ca_pem, "kubegap", "x"
    )
    doc = yaml.safe_load(kubeconfig.read_text())
    doc["users"][0]["user"] = {
        "exec": {
            "apiVersion": "client.authentication.k8s.io/v1",
            "command": str(plugin),
            "interactiveMode": "Never",
        }
    }
    kubeconfig.write_text(yaml.safe_dump(doc))
    return kubeconfig


def test_exec_credentials_are_refreshed_on_expiry_and_on_401(
    apiserver: ApiServer, kubegap_identity: KubegapIdentity, tmp_path: Path
) -> None:
    good = kubegap_identity.token
    # Expired as soon as issued: the plugin runs again before each request.
    expiring = _exec_kubeconfig(apiserver, tmp_path / "a", [good], "2000-01-01T00:00:00Z")
    code, report = audit(expiring, tmp_path / "a.json", "--checks", "GPU-003")
    assert code in (0, 3) and coverage(report)["nodes"]["status"] == "listed"
    assert int((tmp_path / "a" / "calls").read_text()) > 3
    # A token the server rejects: kubegap asks the plugin again once, and goes on with the new one.
    rotated = _exec_kubeconfig(apiserver, tmp_path / "b", ["revoked-token", good], "")
    code, report = audit(rotated, tmp_path / "b.json", "--checks", "GPU-003")
    assert code in (0, 3) and coverage(report)["nodes"]["status"] == "listed"
    assert int((tmp_path / "b" / "calls").read_text()) == 2
