"""Putting a shared API server back to its bootstrap state between test modules.

Every kubeapi test module used to start its own etcd + kube-apiserver (4-11 s each), so that the
cluster-scoped objects one module creates (nodes, CRDs, ClusterPolicy, namespaces, RBAC) never
reach another module's audit. One server now serves them all, and this module keeps that
isolation:

- :func:`record` takes the bootstrap state once the server is ready: etcd's whole key set with
  values, the API groups the server serves, and the names of every object of every kind it
  serves, as its watch cache lists them.
- :func:`reset` deletes, straight in etcd (the v3 HTTP gateway), every key that is not in that
  baseline, in transactions of up to 128 operations, and writes back the bootstrap value of every baseline key a module
  changed. Nothing goes through the API: no finalizers run, a namespace is gone at once (no
  namespace controller runs to finish its deletion), and a CRD goes with its custom resources.
- It then waits until the API server agrees: the caches the authorizer, admission, discovery and
  the CRD handlers read follow etcd through watches, a moment later. The reset ends only when
  etcd holds the baseline keys again, the served groups (a deleted CRD's endpoints) and every
  kind's cached list equal the baseline, and raises :class:`ResetLeak` if they do not in time.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from kube_client import KubeClient
from kubeapi_harness import ADMIN_TOKEN
from kubeapi_harness import ApiServer
from kubeapi_harness import Binaries
from kubeapi_harness import HarnessError

# Keys the server itself rewrites while it runs (its lease, refreshed every 10 s with a TTL).
SERVER_MAINTAINED = ("/registry/masterleases/",)
# Listed kinds that are not objects in etcd (componentstatuses probes the other control-plane
# components; none run here).
NOT_STORED = {"componentstatuses"}
# What the server writes while starting, some of it after /readyz answers (the bootstrap
# controller's namespaces and service, the master lease); the baseline waits for all of it.
BOOTSTRAP_KEYS = (
    "/registry/namespaces/default",
    "/registry/namespaces/kube-system",
    "/registry/namespaces/kube-public",
    "/registry/namespaces/kube-node-lease",
    "/registry/services/specs/default/kubernetes",
    "/registry/masterleases/127.0.0.1",
    "/registry/clusterroles/cluster-admin",
    "/registry/priorityclasses/system-node-critical",
    "/registry/flowschemas/catch-all",
)
MAX_TXN_OPS = 128  # etcd's default --max-txn-ops

Names = frozenset[tuple[str, str]]


class ResetLeak(HarnessError):
    """The server did not come back to its bootstrap state: something would leak."""


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def etcd_items(etcd_url: str) -> dict[str, tuple[int, str]]:
    """Every key in etcd: its mod revision and its value (base64, as the gateway sends it)."""
    everything = {"key": _b64(b"\0"), "range_end": _b64(b"\0")}
    r = httpx.post(f"{etcd_url}/v3/kv/range", json=everything, timeout=30)
    r.raise_for_status()
    return {
        base64.b64decode(kv["key"]).decode(): (int(kv.get("mod_revision", 0)), kv.get("value", ""))
        for kv in r.json().get("kvs", [])
    }


def _txn(etcd_url: str, ops: list[dict[str, Any]]) -> None:
    for start in range(0, len(ops), MAX_TXN_OPS):
        r = httpx.post(
            f"{etcd_url}/v3/kv/txn", json={"success": ops[start : start + MAX_TXN_OPS]}, timeout=30
        )
        r.raise_for_status()


def served_groups(admin: KubeClient) -> dict[str, list[str]]:
    """The API groups the server serves, with their versions (what discovery tells clients)."""
    return {
        g["name"]: sorted(v["groupVersion"] for v in g["versions"])
        for g in admin.get("/apis")["groups"]
    }


def _list_paths(admin: KubeClient, groups: dict[str, list[str]]) -> list[str]:
    """A list path for every kind stored, at each group's versions (one is enough, but a kind
    may be served at one version only)."""
    paths: dict[tuple[str, str], str] = {}
    for group_version in ["v1", *(gv for gvs in groups.values() for gv in gvs)]:
        prefix = "/api/" if group_version == "v1" else "/apis/"
        group = group_version.rpartition("/")[0]
        for res in admin.get(prefix + group_version)["resources"]:
            name = res["name"]
            if "/" in name or "list" not in res.get("verbs", []) or name in NOT_STORED:
                continue
            paths.setdefault((group, name), f"{prefix}{group_version}/{name}")
    return sorted(paths.values())


def _cached_names(admin: KubeClient, path: str) -> Names:
    """The objects the API server's watch cache lists at ``path`` (resourceVersion=0)."""
    items = admin.get(path + "?resourceVersion=0")["items"]
    return frozenset((i["metadata"].get("namespace", ""), i["metadata"]["name"]) for i in items)


@dataclass(frozen=True)
class Baseline:
    """What a freshly started server holds, in etcd and as its API serves it."""

    items: dict[str, tuple[int, str]]
    groups: dict[str, list[str]]
    listed: dict[str, Names]


def record(server: ApiServer, admin: KubeClient, timeout: float = 60) -> Baseline:
    """The bootstrap state of a server that just became ready."""
    deadline = time.monotonic() + timeout
    items = etcd_items(server.etcd_url)
    while not all(k in items for k in BOOTSTRAP_KEYS):
        if time.monotonic() > deadline:
            missing = [k for k in BOOTSTRAP_KEYS if k not in items]
            raise HarnessError(f"the API server did not create {missing}")
        time.sleep(0.1)
        items = etcd_items(server.etcd_url)
    groups = served_groups(admin)
    listed = {path: _cached_names(admin, path) for path in _list_paths(admin, groups)}
    return Baseline(items, groups, listed)


def differences(server: ApiServer, admin: KubeClient, baseline: Baseline) -> list[str]:
    """How the server differs from its baseline, in etcd and through the API (empty: none)."""
    found = []
    items = etcd_items(server.etcd_url)
    extra = _extra(items, baseline)
    if extra:
        found.append(f"etcd keys not in the baseline: {extra[:10]} ({len(extra)})")
    changed = sorted(
        k for k in _restorable(baseline) if k in items and items[k][1] != baseline.items[k][1]
    )
    if changed:
        found.append(f"etcd keys changed since the baseline: {changed}")
    missing = sorted(set(_restorable(baseline)) - set(items))
    if missing:
        found.append(f"baseline keys missing from etcd: {missing}")
    groups = served_groups(admin)
    if groups != baseline.groups:
        added = sorted(set(groups) - set(baseline.groups))
        found.append(f"served API groups differ from the baseline (added: {added})")
    for path, names in baseline.listed.items():
        now = _cached_names(admin, path)
        if now != names:
            found.append(f"{path} lists {sorted(now - names)} and lacks {sorted(names - now)}")
    return found


def _extra(items: dict[str, tuple[int, str]], baseline: Baseline) -> list[str]:
    return sorted(
        k for k in set(items) - set(baseline.items) if not k.startswith(SERVER_MAINTAINED)
    )


def _restorable(baseline: Baseline) -> list[str]:
    return [k for k in baseline.items if not k.startswith(SERVER_MAINTAINED)]


def reset(server: ApiServer, admin: KubeClient, baseline: Baseline, timeout: float = 30) -> int:
    """Bring the server back to ``baseline``; the number of keys deleted or written back.

    Raises :class:`ResetLeak` when etcd or the API server still differ after ``timeout``.
    """
    deadline = time.monotonic() + timeout
    touched = 0
    while True:
        items = etcd_items(server.etcd_url)
        ops = [
            {"request_delete_range": {"key": _b64(key.encode())}} for key in _extra(items, baseline)
        ]
        ops += [
            {"request_put": {"key": _b64(key.encode()), "value": baseline.items[key][1]}}
            for key in _restorable(baseline)
            if items.get(key, (0, None))[1] != baseline.items[key][1]
        ]
        if ops:
            _txn(server.etcd_url, ops)
            touched += len(ops)
            keys = [base64.b64decode(next(iter(op.values()))["key"]).decode() for op in ops]
            left = [f"keys to delete or write back (again): {keys[:10]} ({len(keys)})"]
        else:
            left = differences(server, admin, baseline)
            if not left:
                return touched
        if time.monotonic() > deadline:
            raise ResetLeak(f"the API server is not back to its bootstrap state: {left}")
        time.sleep(0.05)


class SharedServer:
    """One etcd + kube-apiserver for every test module of a process: started when the first
    module asks for it, reset to its bootstrap state after each module. If a reset fails, the
    module that left objects behind gets the error and the next module a fresh server."""

    def __init__(self, binaries: Binaries, workdirs: Callable[[], Path]) -> None:
        self._binaries = binaries
        self._workdirs = workdirs
        self._running: tuple[ApiServer, KubeClient, Baseline] | None = None

    def _started(self) -> tuple[ApiServer, KubeClient, Baseline]:
        if self._running is None:
            server = ApiServer(self._binaries, self._workdirs())
            try:
                server.start()
                admin = server.client(ADMIN_TOKEN)
                self._running = (server, admin, record(server, admin))
            except BaseException:
                server.stop(kill=True)
                raise
        return self._running

    @property
    def server(self) -> ApiServer:
        return self._started()[0]

    @property
    def baseline(self) -> Baseline:
        return self._started()[2]

    def view(self, workdir: Path) -> ApiServer:
        """The server as one module sees it (its own kubeconfigs and part of the audit log)."""
        return self.server.view(workdir)

    def reset(self) -> int:
        server, admin, baseline = self._started()
        try:
            return reset(server, admin, baseline)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        if self._running is not None:
            server, admin, _ = self._running
            self._running = None
            admin.close()
            server.stop(kill=True)  # nothing in it is needed any more
