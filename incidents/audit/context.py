"""What checks see: the snapshot plus the joins most checks need (GPU nodes, workloads, owners).

The views here are computed once per audit and cached, so a check is a few lines over ready-made
lists. Kubernetes semantics (quantities, conditions, owners, taints) live in :mod:`.k8s`; what
each workload kind means lives in its adapter (:mod:`.workloads`).
"""

from __future__ import annotations

from datetime import UTC
from datetime import datetime
from functools import cached_property
from typing import Any

from .k8s import DRA_GPU_PLUGIN_IMAGES
from .k8s import Obj
from .k8s import api_group
from .k8s import is_gpu_node
from .k8s import parse_time
from .k8s import spec_gpus
from .kinds import KINDS
from .model import Resource
from .snapshot import Snapshot
from .workloads.base import UNREADABLE
from .workloads.index import Malformed
from .workloads.index import Workload
from .workloads.index import WorkloadIndex


def ref(key: str, obj: Obj, version: str | None = None) -> Resource:
    """The resource reference of a listed object of kind ``key``."""
    spec = KINDS[key]
    meta = obj.get("metadata") or {}
    return Resource(
        spec.api_version(version or spec.versions[0]),
        spec.kind,
        str(meta.get("name", "")),
        meta.get("namespace") if spec.namespaced else None,
    )


class Context:
    """The snapshot and derived views, handed to every check function."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        # Set when a check reads the workloads, so the engine knows whose view they limited.
        self.workloads_read = False
        # The running check's settings (its defaults, changed by a config file).
        self.params: dict[str, Any] = {}
        self._readable: dict[str, list[Obj]] = {}

    def items(self, key: str) -> list[Obj]:
        """The objects of a kind that kubegap could read; the others are in :attr:`unreadable`
        (checks never judge an object they cannot read as if its fields were empty)."""
        if key not in self.unreadable:
            return self.snapshot.items(key)
        readable = self._readable.get(key)
        if readable is None:
            readable = self._readable[key] = [
                o for o in self.snapshot.items(key) if UNREADABLE not in o
            ]
        return readable

    def release(self) -> None:
        """Drop the derived views once the checks have run.

        The workload index refers back to this context (its ``items`` and ``ref``), a cycle only
        the cycle collector frees, and the collector is paused during an audit
        (:func:`..runner.collector_paused`): without this the views, and every object they
        hold, would outlive the audit.
        """
        for name, attr in type(self).__dict__.items():
            if isinstance(attr, cached_property):
                self.__dict__.pop(name, None)
        self._readable.clear()

    def absent(self, key: str) -> bool:
        cov = self.snapshot.coverage.get(key)
        return cov is not None and cov.status == "absent"

    def truncated(self, key: str) -> bool:
        cov = self.snapshot.coverage.get(key)
        return cov is not None and cov.truncated

    def ref(self, key: str, obj: Obj) -> Resource:
        cov = self.snapshot.coverage.get(key)
        version = None
        if cov is not None and cov.api_version:
            version = cov.api_version.rsplit("/", 1)[-1]
        return ref(key, obj, version)

    def param(self, name: str) -> Any:
        return self.params[name]

    @property
    def scope(self) -> str:
        """`` in namespace X`` under ``--namespace``, else empty: for messages about pods."""
        return f" in namespace {self.snapshot.namespace}" if self.snapshot.namespace else ""

    @cached_property
    def now(self) -> datetime:
        """The reference time: when the snapshot was collected (so offline == live)."""
        return parse_time(self.snapshot.collected_at) or datetime.now(UTC)

    @cached_property
    def server_minor(self) -> int | None:
        minor = self.snapshot.server_version.get("minor")
        version = self.snapshot.server_version.get("gitVersion", "")
        try:
            if minor:
                return int("".join(ch for ch in minor if ch.isdigit()))
            return int(version.lstrip("v").split(".")[1])
        except (ValueError, IndexError):
            return None

    @cached_property
    def dra_gpus(self) -> bool:
        """Whether GPUs are allocated through DRA here: a GPU DRA driver's kubelet plugin is
        listed (its DaemonSet or a pod of it). Pods' DRA claims then count as GPUs."""
        specs = [
            ((ds.get("spec") or {}).get("template") or {}).get("spec") or {}
            for ds in self.items("daemonsets.apps")
        ]
        specs += [p.get("spec") or {} for p in self.items("pods")]
        seen: set[int] = set()  # replicas share one containers list (see compact.py)
        for spec in specs:
            containers = spec.get("containers") or []
            if id(containers) in seen:
                continue
            seen.add(id(containers))
            for c in containers:
                if any(w in str(c.get("image", "")) for w in DRA_GPU_PLUGIN_IMAGES):
                    return True
        return False

    @cached_property
    def gpu_nodes(self) -> list[Obj]:
        return [n for n in self.items("nodes") if is_gpu_node(n)]

    @cached_property
    def nodes_by_name(self) -> dict[str, Obj]:
        return {str(n["metadata"].get("name")): n for n in self.items("nodes")}

    @cached_property
    def gpu_pods(self) -> list[Obj]:
        # Replicas read from a snapshot share one containers list (see compact.py): count each
        # list's GPUs once. The lists live as long as the snapshot, so their ids stay theirs.
        gpus_of: dict[int, float] = {}
        out = []
        for p in self.items("pods"):
            spec = p.get("spec") or {}
            key = id(spec.get("containers"))
            gpus = gpus_of.get(key)
            if gpus is None:
                gpus = gpus_of[key] = spec_gpus(spec, self.dra_gpus)
            if gpus > 0:
                out.append(p)
        return out

    @cached_property
    def pods_by_node(self) -> dict[str, list[Obj]]:
        out: dict[str, list[Obj]] = {}
        for p in self.items("pods"):
            node_name = (p.get("spec") or {}).get("nodeName")
            if node_name:
                out.setdefault(str(node_name), []).append(p)
        return out

    @cached_property
    def index(self) -> WorkloadIndex:
        """Listed workload objects and owner resolution, through the adapter registry.

        It sees the unreadable objects too: their pods still belong to them, and it reports them
        (:attr:`malformed`) instead of judging their pods as a group of their own."""
        return WorkloadIndex(self.snapshot.items, self.ref, dra_gpus=self.dra_gpus)

    @cached_property
    def unreadable(self) -> dict[str, list[Obj]]:
        """By kind key, the objects kubegap could not read (:func:`.kinds.project`): each check
        that reads their kind reports them as not evaluated."""
        out: dict[str, list[Obj]] = {}
        for key, items in self.snapshot.objects.items():
            bad = [o for o in items if UNREADABLE in o]
            if bad:
                out[key] = bad
        return out

    @property
    def malformed(self) -> list[Malformed]:
        """Objects whose pod templates could not be read; filled when workloads are built."""
        return self.index.malformed

    def workloads(self) -> list[Workload]:
        """Active GPU workloads: listed objects through their adapters, and unexplained pods."""
        self.workloads_read = True
        return self._workloads

    def training_workloads(self) -> list[Workload]:
        """The GPU workloads that are training jobs (checkpointing applies to them)."""
        return [w for w in self.workloads() if w.training]

    @cached_property
    def _workloads(self) -> list[Workload]:
        return self.index.gpu_workloads(self.gpu_pods)

    def workload_of(self, pod: Obj) -> Resource:
        """The workload a pod belongs to (the top of its listed owner chain)."""
        return self.index.pod_workload(pod)[0]

    def is_training_pod(self, pod: Obj) -> bool:
        return self.index.is_training_pod(pod)

    def object_of(self, resource: Resource) -> Obj | None:
        """The listed object behind a finding's resource, for its labels and annotations."""
        key = (
            api_group(resource.api_version),
            resource.kind,
            resource.namespace or "",
            resource.name,
        )
        return self._objects.get(key)

    @cached_property
    def _objects(self) -> dict[tuple[str, str, str, str], Obj]:
        out: dict[tuple[str, str, str, str], Obj] = {}
        for key, spec in KINDS.items():
            for obj in self.items(key):
                meta = obj.get("metadata") or {}
                out[
                    (spec.group, spec.kind, str(meta.get("namespace") or ""), str(meta.get("name")))
                ] = obj
        return out

    def labels_and_annotations(self, resource: Resource) -> tuple[dict[str, str], dict[str, str]]:
        """The labels and annotations of a finding's object (of its first pod, for pod groups)."""
        obj = self.object_of(resource)
        if obj is None and resource.kind != "Cluster":
            pods = self._pods_by_workload.get(resource)
            obj = pods[0] if pods else None
        meta = (obj or {}).get("metadata") or {}
        return dict(meta.get("labels") or {}), dict(meta.get("annotations") or {})

    @cached_property
    def _pods_by_workload(self) -> dict[Resource, tuple[Obj, ...]]:
        return {w.resource: w.pods for w in self._workloads if w.pods}

    @cached_property
    def pods_by_name(self) -> dict[tuple[str, str], list[Obj]]:
        """Pods by (namespace, name)."""
        out: dict[tuple[str, str], list[Obj]] = {}
        for p in self.items("pods"):
            meta = p.get("metadata") or {}
            out.setdefault((str(meta.get("namespace", "")), str(meta.get("name"))), []).append(p)
        return out
