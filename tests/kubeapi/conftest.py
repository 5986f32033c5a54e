"""Fixtures for kubegap's tests against a real kube-apiserver + etcd on loopback.

The binaries come from ``tests/kubeapi/provision.sh``. When they are missing, the tests are
skipped with a message saying how to provision them; with ``KUBEGAP_REQUIRE_APISERVER=1``
(CI sets it) they fail instead, so a missing provisioning step cannot turn CI green.

One API server serves every test module of a process (starting one takes 4-11 s); after each
module it is put back to its bootstrap state straight in etcd (:mod:`cluster_reset`), so the
cluster-scoped objects one module creates (nodes, CRDs, ClusterPolicy, namespaces, RBAC) never
leak into another's audit, and each module reads only its own part of the audit log.
tests/scheduling.py runs all these modules on one pytest-xdist process, so the server starts
once per run.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from cluster_reset import SharedServer
from kube_client import KubeClient
from kube_client import load_manifest
from kubeapi_harness import ADMIN_TOKEN
from kubeapi_harness import ApiServer
from kubeapi_harness import Binaries
from kubeapi_harness import KubegapIdentity
from kubeapi_harness import find_binaries

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


@pytest.fixture(scope="session")
def shared_apiserver(
    kube_binaries: Binaries, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SharedServer]:
    """The etcd + kube-apiserver of this process, started on first use, stopped at the end."""
    shared = SharedServer(kube_binaries, lambda: tmp_path_factory.mktemp("kubeapi"))
    SHARED.append(shared)
    try:
        yield shared
    finally:
        shared.stop()
        SHARED.remove(shared)


SHARED: list[SharedServer] = []  # the process's server, for the hook below


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Stop the server once the process has no more tests for it (with tests/scheduling.py, when
    the last kubeapi module is done; it is started again if one comes later)."""
    try:
        return (yield)
    finally:
        if nextitem is None or nextitem.path.parent != item.path.parent:
            for shared in SHARED:
                shared.stop()


@pytest.fixture(scope="module")
def apiserver(
    shared_apiserver: SharedServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ApiServer]:
    """The API server as this test module sees it (as if fresh: bootstrap objects only, an
    audit log from now on), put back to its bootstrap state at the module's end."""
    view = shared_apiserver.view(tmp_path_factory.mktemp("kubeapi-module"))
    try:
        yield view
    finally:
        shared_apiserver.reset()


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
