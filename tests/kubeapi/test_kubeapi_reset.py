"""The one API server all kubeapi modules share: what one module leaves behind, the next never sees.

Each module used to get a fresh server; now :mod:`cluster_reset` puts the shared one back to its
bootstrap state after each module. These tests create what the cluster modules create (a node, a
namespace with objects in it, a CRD with a cluster-scoped custom resource, RBAC), change a
bootstrap object, reset, and check through the API (its watch cache included) and in etcd that all
of it is gone, that the CRD's endpoints are no longer served, and that the same names can be
created again, as the next module does.
"""

from __future__ import annotations

import time
from pathlib import Path

import gpu_crds as crds
import gpu_objects as g
import pytest
from cluster_reset import SharedServer
from cluster_reset import etcd_items
from cluster_reset import served_groups
from kube_client import KubeClient
from kubeapi_harness import KUBEGAP_USER
from kubeapi_harness import KUBEGAP_USER_TOKEN
from kubeapi_harness import ApiServer

pytestmark = pytest.mark.apiserver

LEFT_BEHIND = [
    g.cpu_node("leak-cpu-0"),
    g.namespace("leak"),
    g.configmap("leak-config", "leak", {"k": "v"}),
    crds.CLUSTERPOLICY_CRD,
    g.cluster_policy(),
    {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "leak-reader"},
        "rules": [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["list"]}],
    },
]


def _cached(admin: KubeClient, path: str) -> set[str]:
    """Names the API server's watch cache lists (what its informers act on)."""
    return {i["metadata"]["name"] for i in admin.get(path + "?resourceVersion=0")["items"]}


def test_a_reset_removes_everything_a_module_created(
    shared_apiserver: SharedServer, apiserver: ApiServer, admin: KubeClient
) -> None:
    baseline = shared_apiserver.baseline
    nodes, namespaces = _cached(admin, "/api/v1/nodes"), _cached(admin, "/api/v1/namespaces")
    assert "leak" not in namespaces and "default" in namespaces
    admin.create_all(LEFT_BEHIND)
    admin.call(
        "PATCH",
        "/api/v1/namespaces/default",
        {"metadata": {"labels": {"leak": "yes"}}},
        content_type="application/merge-patch+json",
    )
    assert admin.request("GET", "/apis/nvidia.com/v1/clusterpolicies").status_code == 200
    assert "nvidia.com" in served_groups(admin)

    assert shared_apiserver.reset() > len(LEFT_BEHIND)

    assert _cached(admin, "/api/v1/nodes") == nodes
    assert _cached(admin, "/api/v1/namespaces") == namespaces
    assert admin.request("GET", "/api/v1/nodes/leak-cpu-0").status_code == 404
    assert admin.request("GET", "/api/v1/namespaces/leak/configmaps/leak-config").status_code == 404
    assert not admin.get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions")["items"]
    assert admin.request("GET", "/apis/nvidia.com/v1/clusterpolicies").status_code == 404
    assert "nvidia.com" not in served_groups(admin)
    role = admin.request("GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/leak-reader")
    assert role.status_code == 404
    assert "leak-reader" not in _cached(admin, "/apis/rbac.authorization.k8s.io/v1/clusterroles")
    default = admin.get("/api/v1/namespaces/default")
    assert "leak" not in (default["metadata"].get("labels") or {})
    assert set(etcd_items(apiserver.etcd_url)) == set(baseline.items)

    # The next module creates the same names again, and its CRDs are served again.
    admin.create_all(LEFT_BEHIND)
    assert admin.request("GET", "/apis/nvidia.com/v1/clusterpolicies").status_code == 200


def test_a_module_reads_only_its_own_part_of_the_audit_log(
    shared_apiserver: SharedServer, tmp_path: Path
) -> None:
    def users(view: ApiServer) -> set[str]:
        return {e["user"].get("username") for e in view.audit_events()}

    earlier = shared_apiserver.view(tmp_path)
    client = earlier.client(KUBEGAP_USER_TOKEN)
    try:
        assert client.request("GET", "/api/v1/nodes").status_code == 403
    finally:
        client.close()
    for _ in range(100):  # the event is written as the response is sent
        if KUBEGAP_USER in users(earlier):
            break
        time.sleep(0.05)
    assert KUBEGAP_USER in users(earlier)
    later = shared_apiserver.view(tmp_path)
    assert KUBEGAP_USER not in users(later)
