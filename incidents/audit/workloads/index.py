"""Which workload each pod belongs to, and the GPU workloads of a snapshot, through the adapters.

A pod's workload is the top of its owner chain among the listed workload objects (a pod of a Job
of a JobSet of a TrainJob belongs to the TrainJob); pods of a ReplicaSet belong to the listed
Deployment that made it. An object owned by another listed workload is judged through its owner,
so a job is never counted twice. GPU pods no listed object explains are grouped by their owner
reference (or gang label) and judged from their own spec.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from functools import cached_property

from ..k8s import Obj
from ..k8s import api_group
from ..k8s import spec_gpus
from ..model import Resource
from . import ADAPTERS
from .base import Adapter
from .base import PodTemplate

# Owner kinds (or labels) that mark pods as part of a training job when the owner is not listed.
TRAINING_OWNER_KINDS = frozenset(
    {"Job", "PyTorchJob", "MPIJob", "TFJob", "JobSet", "TrainJob", "RayJob", "Workload"}
)
_ERRORS = (KeyError, TypeError, ValueError, AttributeError)
ObjKey = tuple[str, str, str, str]  # (namespace, group, kind, name)


@dataclass(frozen=True)
class Workload:
    """A workload that asks for GPUs: a listed object (through its adapter) or a group of pods.

    ``templates`` are its pod templates that request GPUs; ``pods`` its live pods.
    """

    resource: Resource
    key: str  # kind key; "pods" for a group of pods no listed object explains
    adapter: Adapter | None
    obj: Obj | None
    templates: tuple[PodTemplate, ...]
    pods: tuple[Obj, ...] = ()
    training: bool = True

    @cached_property
    def members(self) -> tuple[str, ...]:
        """Its replica types (``Worker x3``) and pods, for reports (worked out once)."""
        roles = tuple(f"{t.role} x{t.replicas}" for t in self.templates if t.role != "pods")
        pods = tuple(f"pod {(p.get('metadata') or {}).get('name')}" for p in self.pods)
        return roles + pods


@dataclass(frozen=True)
class Malformed:
    """An object a check needed but could not read (say, ``replicas: "two"``)."""

    key: str
    resource: Resource
    error: str


@dataclass
class WorkloadIndex:
    """Listed workload objects by identity; owner resolution; the GPU workloads of a snapshot."""

    items: Callable[[str], list[Obj]]
    ref: Callable[[str, Obj], Resource]
    malformed: list[Malformed] = field(default_factory=list)
    dra_gpus: bool = False  # GPUs are claimed through DRA (see k8s.container_gpus)

    def __post_init__(self) -> None:
        self._by_pod: dict[int, tuple[Resource, Adapter | None]] = {}
        self._refs: dict[int, Resource] = {}  # listed objects' references, by object id
        self._objects: dict[ObjKey, tuple[Adapter, Obj]] = {}
        for adapter in ADAPTERS:
            spec = adapter.spec
            for obj in self.items(adapter.key):
                meta = obj.get("metadata") or {}
                ns = str(meta.get("namespace", "")) if spec.namespaced else ""
                self._objects[(ns, spec.group, spec.kind, str(meta.get("name")))] = (adapter, obj)

    def find(self, key: str, namespace: str | None, name: str) -> Obj | None:
        """A listed object of any kind by kind key, namespace and name."""
        for obj in self.items(key):
            meta = obj.get("metadata") or {}
            if meta.get("name") == name and (
                namespace is None or meta.get("namespace") == namespace
            ):
                return obj
        return None

    @cached_property
    def _pods(self) -> dict[tuple[str, str], Obj]:
        out: dict[tuple[str, str], Obj] = {}
        for pod in self.items("pods"):
            meta = pod.get("metadata") or {}
            out[(str(meta.get("namespace", "")), str(meta.get("name")))] = pod
        return out

    def _listed_owner(self, obj: Obj, depth: int = 0) -> tuple[Adapter, Obj] | None:
        """The listed workload that owns ``obj``, directly or through a listed Pod (a
        LeaderWorkerSet's worker StatefulSet is owned by its group's leader Pod)."""
        meta = obj.get("metadata") or {}
        ns = str(meta.get("namespace", ""))
        for owner in meta.get("ownerReferences") or []:
            group, kind, name = (
                api_group(str(owner.get("apiVersion", ""))),
                str(owner.get("kind")),
                str(owner.get("name")),
            )
            if (group, kind) == ("", "Pod") and depth < 2:
                pod = self._pods.get((ns, name))
                through = None if pod is None else self._listed_owner(pod, depth + 1)
                if through is not None:
                    return through
                continue
            for namespace in (ns, ""):
                found = self._objects.get((namespace, group, kind, name))
                if found is not None:
                    return found
            if (group, kind) == ("apps", "ReplicaSet") and "-" in name:
                found = self._objects.get((ns, "apps", "Deployment", name.rsplit("-", 1)[0]))
                if found is not None:
                    return found
        return None

    def top(self, adapter: Adapter, obj: Obj) -> tuple[Adapter, Obj]:
        """The outermost listed workload owning ``obj`` (``obj`` itself when none does)."""
        seen = 0
        while (owner := self._listed_owner(obj)) is not None and seen < 8:
            adapter, obj = owner
            seen += 1
        return adapter, obj

    def pod_workload(self, pod: Obj) -> tuple[Resource, Adapter | None]:
        """The workload a pod belongs to: a listed object, else its owner or gang, else itself."""
        key = id(pod)  # pods live as long as the snapshot this index reads
        found = self._by_pod.get(key)
        if found is None:
            found = self._by_pod[key] = self._resolve(pod)
        return found

    def _listed_by_gang_label(self, pod: Obj) -> tuple[Adapter, Obj] | None:
        """A listed workload a pod's gang label names, for a pod whose owner is not listed (a
        JobSet's pods are owned by its Jobs; with Jobs forbidden or left out, the pods'
        ``jobset.sigs.k8s.io/jobset-name`` still names the JobSet)."""
        meta = pod.get("metadata") or {}
        labels = meta.get("labels") or {}
        for adapter in ADAPTERS:
            spec = adapter.spec
            ns = str(meta.get("namespace", "")) if spec.namespaced else ""
            for label in adapter.gang_labels:
                found = labels.get(label) and self._objects.get(
                    (ns, spec.group, spec.kind, str(labels[label]))
                )
                if found:
                    return found
        return None

    def _resolve(self, pod: Obj) -> tuple[Resource, Adapter | None]:
        owner = self._listed_owner(pod) or self._listed_by_gang_label(pod)
        if owner is not None:
            adapter, obj = self.top(*owner)
            resource = self._refs.get(id(obj))
            if resource is None:
                resource = self._refs[id(obj)] = self.ref(adapter.key, obj)
            return resource, adapter
        meta = pod.get("metadata") or {}
        namespace = meta.get("namespace")
        owners = meta.get("ownerReferences") or []
        if owners:
            o = owners[0]
            return Resource(
                str(o.get("apiVersion")), str(o.get("kind")), str(o.get("name")), namespace
            ), None
        labels = meta.get("labels") or {}
        for adapter in ADAPTERS:
            for label in adapter.gang_labels:
                if labels.get(label):
                    spec = adapter.spec
                    return Resource(
                        spec.api_version(spec.versions[0]), spec.kind, str(labels[label]), namespace
                    ), adapter
        return self.ref("pods", pod), None

    def is_training_pod(self, pod: Obj) -> bool:
        resource, adapter = self.pod_workload(pod)
        if adapter is not None:
            return adapter.training
        return resource.kind in TRAINING_OWNER_KINDS

    def gpu_workloads(self, gpu_pods: list[Obj]) -> list[Workload]:
        """Active GPU workloads: listed objects not owned by another, then unexplained pod groups."""
        pods_of: dict[Resource, list[Obj]] = {}
        groups: dict[Resource, list[Obj]] = {}
        for pod in gpu_pods:
            if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
                continue
            resource, adapter = self.pod_workload(pod)
            if adapter is not None and self._is_listed(resource):
                pods_of.setdefault(resource, []).append(pod)
            else:
                groups.setdefault(resource, []).append(pod)
        out = list(self._listed_workloads(pods_of))
        for resource, pods in sorted(groups.items(), key=lambda kv: kv[0].logical_name):
            pods.sort(key=lambda p: str(p["metadata"].get("name")))
            first = pods[0]
            template = PodTemplate(
                "pods",
                "spec",
                first.get("spec") or {},
                len(pods),
                dict(first["metadata"].get("labels") or {}),
            )
            training = self.is_training_pod(first)
            out.append(Workload(resource, "pods", None, None, (template,), tuple(pods), training))
        return out

    def _is_listed(self, resource: Resource) -> bool:
        group = api_group(resource.api_version)
        return (resource.namespace or "", group, resource.kind, resource.name) in self._objects

    def _listed_workloads(self, pods_of: dict[Resource, list[Obj]]) -> Iterator[Workload]:
        for adapter in ADAPTERS:
            for obj in self.items(adapter.key):
                if self._listed_owner(obj) is not None or adapter.finished(obj):
                    continue
                resource = self.ref(adapter.key, obj)
                try:
                    templates = adapter.templates(obj, self)
                except _ERRORS as exc:
                    # One odd object must not blind a check to every other object.
                    self.malformed.append(
                        Malformed(adapter.key, resource, f"{type(exc).__name__}: {exc}")
                    )
                    continue
                gpu = tuple(t for t in templates if spec_gpus(t.spec, self.dra_gpus) > 0)
                if gpu:
                    pods = tuple(
                        sorted(
                            pods_of.get(resource, []), key=lambda p: str(p["metadata"].get("name"))
                        )
                    )
                    yield Workload(resource, adapter.key, adapter, obj, gpu, pods, adapter.training)
