"""The harness itself: a real API server that authenticates, authorizes with RBAC and audits.

If these fail, every kubegap test in this directory is meaningless, so they pin down the
properties the others rely on: tokens map to the intended identities, RBAC denies what the
shipped ClusterRole does not grant, node status goes through /status, and the audit log
records who did what.
"""

from __future__ import annotations

import pytest
from kube_client import KubeClient
from kube_client import iter_audit_requests
from kubeapi_harness import K8S_VERSION
from kubeapi_harness import KUBEGAP_USER
from kubeapi_harness import KUBEGAP_USER_TOKEN
from kubeapi_harness import ApiServer
from kubeapi_harness import KubegapIdentity

pytestmark = pytest.mark.apiserver


def test_server_is_the_provisioned_version_and_ready(
    apiserver: ApiServer, admin: KubeClient
) -> None:
    version = admin.get("/version")
    assert version["gitVersion"] == f"v{K8S_VERSION}"
    assert admin.request("GET", "/readyz").status_code == 200
    # The client verified the self-signed serving certificate against the CA the server wrote.
    assert apiserver.url.startswith("https://127.0.0.1:")


def test_version_1_20_lacks_newer_apis(admin: KubeClient) -> None:
    """What kubegap's discovery has to cope with on this server."""
    groups = {
        g["name"]: [v["version"] for v in g["versions"]] for g in admin.get("/apis")["groups"]
    }
    assert "v1" not in groups["policy"]  # PodDisruptionBudget only in policy/v1beta1
    assert admin.served("policy/v1beta1", "PodDisruptionBudget")
    assert not admin.served("batch/v1", "CronJob")  # CronJob is batch/v1beta1 here
    assert admin.served("batch/v1beta1", "CronJob")
    assert admin.served("apiextensions.k8s.io/v1", "CustomResourceDefinition")


def test_node_status_is_set_through_the_status_subresource(admin: KubeClient) -> None:
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "harness-gpu-0", "labels": {"nvidia.com/gpu.product": "NVIDIA-H100"}},
        "status": {
            "capacity": {"nvidia.com/gpu": "8", "cpu": "96", "memory": "1Ti", "pods": "110"},
            "allocatable": {"nvidia.com/gpu": "8", "cpu": "95", "memory": "1000Gi", "pods": "110"},
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
        },
    }
    admin.create(node)
    stored = admin.get("/api/v1/nodes/harness-gpu-0")
    assert stored["status"]["capacity"]["nvidia.com/gpu"] == "8"
    assert [c["type"] for c in stored["status"]["conditions"]] == ["Ready"]
    admin.delete(node)


def test_token_user_without_bindings_is_denied(apiserver: ApiServer) -> None:
    """Authentication works (403, not 401) and RBAC grants the bare identity nothing."""
    client = apiserver.client(KUBEGAP_USER_TOKEN)
    try:
        assert client.request("GET", "/api/v1/nodes").status_code == 403
        bad = apiserver.client("not-a-token")
        assert bad.request("GET", "/api/v1/nodes").status_code == 401
        bad.close()
    finally:
        client.close()
    users = {e["user"].get("username") for e in apiserver.audit_events()}
    assert KUBEGAP_USER in users


def test_shipped_role_grants_reads_and_denies_secrets_and_writes(
    apiserver: ApiServer, kubegap_identity: KubegapIdentity
) -> None:
    client = apiserver.client(kubegap_identity.token)
    try:
        assert client.request("GET", "/api/v1/nodes?limit=1").status_code == 200
        assert client.request("GET", "/api/v1/pods?limit=1").status_code == 200
        assert client.request("GET", "/api/v1/secrets").status_code == 403
        assert client.request("GET", "/api/v1/namespaces/default/secrets").status_code == 403
        created = client.request(
            "POST",
            "/api/v1/namespaces/default/configmaps",
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "nope"}},
        )
        assert created.status_code == 403
        assert client.request("DELETE", "/api/v1/nodes/anything").status_code == 403
    finally:
        client.close()
    events = list(iter_audit_requests(apiserver.audit_events(), kubegap_identity.username))
    codes = {(e["verb"], e["objectRef"]["resource"], e["responseStatus"]["code"]) for e in events}
    assert ("list", "nodes", 200) in codes
    assert ("list", "secrets", 403) in codes
    assert ("create", "configmaps", 403) in codes
