"""Fixtures for kubegap's tests against a real kube-apiserver + etcd on loopback.

The binaries come from ``tests/kubeapi/provision.sh``. When they are missing, the tests are
skipped with a message saying how to provision them; with ``KUBEGAP_REQUIRE_APISERVER=1``
(CI sets it) they fail instead, so a missing provisioning step cannot turn CI green.

Each test module gets its own fresh API server (about 2 s to start), so the cluster-scoped
objects one module creates (nodes, CRDs, ClusterPolicy) never leak into another's audit.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from kubeapi_harness import (
    ADMIN_TOKEN,
    ApiServer,
    Binaries,
    KubeClient,
    KubegapIdentity,
    find_binaries,
    load_manifest,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
RBAC_MANIFEST = REPO_ROOT / "site" / "k8s" / "kubegap-rbac.yaml"


@pytest.fixture(scope="session")
def kube_binaries() -> Binaries:
    found = find_binaries()
    if isinstance(found, str):
        if os.environ.get("KUBEGAP_REQUIRE_APISERVER") == "1":
            pytest.fail(f"KUBEGAP_REQUIRE_APISERVER=1 but {found}", pytrace=False)
        pytest.skip(found)
    return found


@pytest.fixture(scope="module")
def apiserver(
    kube_binaries: Binaries, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ApiServer]:
    """A fresh etcd + kube-apiserver for this test module, stopped at its end."""
    server = ApiServer(kube_binaries, tmp_path_factory.mktemp("kubeapi"))
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def admin(apiserver: ApiServer) -> Iterator[KubeClient]:
    """A client authenticated as a member of system:masters."""
    client = apiserver.client(ADMIN_TOKEN)
    yield client
    client.close()


def rbac_objects() -> list[dict[str, object]]:
    if not RBAC_MANIFEST.exists():
        pytest.fail(f"{RBAC_MANIFEST.relative_to(REPO_ROOT)} is missing", pytrace=False)
    return load_manifest(RBAC_MANIFEST)


@pytest.fixture(scope="module")
def kubegap_identity(apiserver: ApiServer, admin: KubeClient) -> KubegapIdentity:
    """Apply site/k8s/kubegap-rbac.yaml and mint a token for its ServiceAccount.

    The token comes from the TokenRequest API, so the ServiceAccount is bound by exactly the
    ClusterRoleBinding the manifest ships and by nothing else.
    """
    objs = rbac_objects()
    namespaces = {_namespace(o) for o in objs if o["kind"] == "ServiceAccount"}
    namespaces |= {_name(o) for o in objs if o["kind"] == "Namespace"}
    for ns in sorted(namespaces):
        if not admin.request("GET", f"/api/v1/namespaces/{ns}").is_success:
            admin.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    admin.create_all(o for o in objs if o["kind"] != "Namespace")
    accounts = [o for o in objs if o["kind"] == "ServiceAccount"]
    assert len(accounts) == 1, "the manifest ships exactly one ServiceAccount"
    sa = accounts[0]
    ns, name = _namespace(sa), _name(sa)
    token = admin.call(
        "POST",
        f"/api/v1/namespaces/{ns}/serviceaccounts/{name}/token",
        {
            "apiVersion": "authentication.k8s.io/v1",
            "kind": "TokenRequest",
            "spec": {"expirationSeconds": 3600},
        },
    )["status"]["token"]
    username = f"system:serviceaccount:{ns}:{name}"
    kubeconfig = apiserver.kubeconfig("kubegap", "kubegap", token)
    return KubegapIdentity(username, token, kubeconfig)


def _namespace(obj: dict[str, object]) -> str:
    meta = obj.get("metadata")
    assert isinstance(meta, dict)
    return str(meta.get("namespace", "default"))


def _name(obj: dict[str, object]) -> str:
    meta = obj.get("metadata")
    assert isinstance(meta, dict)
    return str(meta["name"])


@pytest.fixture(scope="module")
def admin_kubeconfig(apiserver: ApiServer) -> Path:
    return apiserver.kubeconfig("admin", "admin", ADMIN_TOKEN)
