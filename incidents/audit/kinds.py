"""The Kubernetes kinds kubegap may read, and nothing else.

Each :class:`KindSpec` names a resource the way ``kubectl`` does (``resource.group``), lists the
API versions it accepts in order of preference (discovery picks the first one the server serves),
and says whether it is namespaced. Secrets, pod logs and exec are deliberately absent: a kind that
is not in :data:`KINDS` cannot be listed by the client.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KindSpec:
    """One resource kubegap can list (read-only)."""

    key: str  # "pods", "daemonsets.apps", "pytorchjobs.kubeflow.org"
    group: str  # "" for the core group
    versions: tuple[str, ...]  # preferred first
    resource: str  # plural, as in the URL
    kind: str  # singular Kind, as in objects
    namespaced: bool
    crd: bool = False  # installed by a CRD (absence is normal), not built in

    def api_version(self, version: str) -> str:
        return f"{self.group}/{version}" if self.group else version

    def list_path(self, version: str, namespace: str | None = None) -> str:
        base = f"/apis/{self.group}/{version}" if self.group else f"/api/{version}"
        if namespace and self.namespaced:
            return f"{base}/namespaces/{namespace}/{self.resource}"
        return f"{base}/{self.resource}"


def _k(
    key: str,
    group: str,
    versions: tuple[str, ...],
    kind: str,
    namespaced: bool = True,
    crd: bool = False,
) -> KindSpec:
    return KindSpec(key, group, versions, key.split(".", 1)[0], kind, namespaced, crd)


KINDS: dict[str, KindSpec] = {
    k.key: k
    for k in (
        _k("nodes", "", ("v1",), "Node", namespaced=False),
        _k("pods", "", ("v1",), "Pod"),
        _k("configmaps", "", ("v1",), "ConfigMap"),
        _k("daemonsets.apps", "apps", ("v1",), "DaemonSet"),
        _k("jobs.batch", "batch", ("v1",), "Job"),
        _k("cronjobs.batch", "batch", ("v1", "v1beta1"), "CronJob"),
        _k("pytorchjobs.kubeflow.org", "kubeflow.org", ("v1",), "PyTorchJob", crd=True),
        _k("mpijobs.kubeflow.org", "kubeflow.org", ("v2beta1", "v1"), "MPIJob", crd=True),
        _k("jobsets.jobset.x-k8s.io", "jobset.x-k8s.io", ("v1alpha2",), "JobSet", crd=True),
        _k("jobs.batch.volcano.sh", "batch.volcano.sh", ("v1alpha1",), "Job", crd=True),
        _k(
            "prometheusrules.monitoring.coreos.com",
            "monitoring.coreos.com",
            ("v1",),
            "PrometheusRule",
            crd=True,
        ),
        _k(
            "servicemonitors.monitoring.coreos.com",
            "monitoring.coreos.com",
            ("v1",),
            "ServiceMonitor",
            crd=True,
        ),
        _k(
            "podmonitors.monitoring.coreos.com",
            "monitoring.coreos.com",
            ("v1",),
            "PodMonitor",
            crd=True,
        ),
        _k(
            "clusterpolicies.nvidia.com",
            "nvidia.com",
            ("v1",),
            "ClusterPolicy",
            namespaced=False,
            crd=True,
        ),
    )
}

# Never requested, whatever a future check asks for: the client refuses any path with one of these
# segments (Secrets, pod logs, exec/attach/port-forward, the node and service proxies).
FORBIDDEN_SEGMENTS = frozenset({"secrets", "log", "exec", "attach", "portforward", "proxy"})

_BY_API_KIND: dict[tuple[str, str], KindSpec] = {
    (spec.group, spec.kind): spec for spec in KINDS.values()
}


def spec_for_object(api_version: str, kind: str) -> KindSpec | None:
    """The spec an object belongs to, from its ``apiVersion`` and ``kind`` (any version)."""
    group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
    return _BY_API_KIND.get((group, kind))
