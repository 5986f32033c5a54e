"""What checks see: the snapshot plus the joins most checks need (GPU nodes, training workloads).

The views here are computed once per audit and cached, so a check is a few lines over ready-made
lists. Kubernetes semantics (quantities, conditions, owners, taints) live in :mod:`.k8s`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property, partial
from typing import Any

from .k8s import Obj, is_finished, is_gpu_node, owner_key, parse_time, spec_gpus
from .kinds import KINDS
from .model import Resource
from .snapshot import Snapshot

# Kinds whose pods are evaluated through their templates rather than pod by pod.
TEMPLATE_OWNERS = {
    ("batch", "Job"): "jobs.batch",
    ("kubeflow.org", "PyTorchJob"): "pytorchjobs.kubeflow.org",
    ("kubeflow.org", "MPIJob"): "mpijobs.kubeflow.org",
    ("jobset.x-k8s.io", "JobSet"): "jobsets.jobset.x-k8s.io",
    ("batch.volcano.sh", "Job"): "jobs.batch.volcano.sh",
}
WORKLOAD_KINDS = ("pods", *TEMPLATE_OWNERS.values())
# Owners (or labels) that mark a pod as part of a training job, when its owner is not listed.
TRAINING_OWNER_KINDS = frozenset({"Job", "PyTorchJob", "MPIJob", "TFJob", "JobSet", "TrainJob"})
GANG_LABELS = (
    "training.kubeflow.org/job-name",
    "jobset.sigs.k8s.io/jobset-name",
    "volcano.sh/job-name",
)


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


@dataclass(frozen=True)
class Workload:
    """A pod template (or a standalone pod) that asks for GPUs, with the path to its pod spec."""

    resource: Resource
    spec: Obj  # projected pod spec
    path: str  # JSON-ish path of ``spec`` inside the resource
    pods: int  # replicas (templates) or pods represented (grouped pods)
    labels: dict[str, str]
    training: bool = True  # a training job (not e.g. an inference Deployment)


@dataclass(frozen=True)
class Malformed:
    """An object a check needed but could not read (say, ``replicas: "two"``)."""

    key: str
    resource: Resource
    error: str


class Context:
    """The snapshot and derived views, handed to every check function."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        # Objects whose pod templates could not be read; filled when workloads are first built.
        self.malformed: list[Malformed] = []
        # Set when a check reads the workloads, so the engine knows whose view they limited.
        self.workloads_read = False

    def items(self, key: str) -> list[Obj]:
        return self.snapshot.items(key)

    def absent(self, key: str) -> bool:
        cov = self.snapshot.coverage.get(key)
        return cov is not None and cov.status == "absent"

    def ref(self, key: str, obj: Obj) -> Resource:
        cov = self.snapshot.coverage.get(key)
        version = None
        if cov is not None and cov.api_version:
            version = cov.api_version.rsplit("/", 1)[-1]
        return ref(key, obj, version)

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
    def gpu_nodes(self) -> list[Obj]:
        return [n for n in self.items("nodes") if is_gpu_node(n)]

    @cached_property
    def nodes_by_name(self) -> dict[str, Obj]:
        return {str(n["metadata"].get("name")): n for n in self.items("nodes")}

    @cached_property
    def gpu_pods(self) -> list[Obj]:
        return [p for p in self.items("pods") if spec_gpus(p.get("spec") or {}) > 0]

    @cached_property
    def pods_by_node(self) -> dict[str, list[Obj]]:
        out: dict[str, list[Obj]] = {}
        for p in self.items("pods"):
            node_name = (p.get("spec") or {}).get("nodeName")
            if node_name:
                out.setdefault(str(node_name), []).append(p)
        return out

    def workloads(self) -> list[Workload]:
        """Active GPU workloads: training-job templates, Jobs, and pods no listed owner explains."""
        self.workloads_read = True
        return self._workloads

    def training_workloads(self) -> list[Workload]:
        """The GPU workloads that are training jobs (checkpointing applies to them)."""
        self.workloads_read = True
        return [w for w in self._workloads if w.training]

    def is_training_pod(self, pod: Obj) -> bool:
        meta = pod.get("metadata") or {}
        owners = meta.get("ownerReferences") or []
        labels = meta.get("labels") or {}
        return bool(owners and owners[0].get("kind") in TRAINING_OWNER_KINDS) or any(
            k in labels for k in GANG_LABELS
        )

    @cached_property
    def _workloads(self) -> list[Workload]:
        return [w for w in self._iter_workloads() if spec_gpus(w.spec) > 0]

    def _iter_workloads(self) -> Iterator[Workload]:
        for key, obj, read in self._workload_sources():
            try:
                found = list(read())
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                # One odd object must not blind a check to every other object.
                self.malformed.append(
                    Malformed(key, self.ref(key, obj), f"{type(exc).__name__}: {exc}")
                )
                continue
            yield from found
        yield from self._standalone_pods()

    def _workload_sources(self) -> Iterator[tuple[str, Obj, Callable[[], Iterable[Workload]]]]:
        """(kind, object, reader of its workloads) for every active object with pod templates."""
        for job in self.items("jobs.batch"):
            if not (is_finished(job) or owner_key(job) == ("jobset.x-k8s.io", "JobSet")):
                yield "jobs.batch", job, partial(self._job_workloads, job)
        for key, field in (
            ("pytorchjobs.kubeflow.org", "pytorchReplicaSpecs"),
            ("mpijobs.kubeflow.org", "mpiReplicaSpecs"),
        ):
            for job in self.items(key):
                if not is_finished(job):
                    yield key, job, partial(self._replica_workloads, key, field, job)
        for js in self.items("jobsets.jobset.x-k8s.io"):
            if not is_finished(js):
                yield "jobsets.jobset.x-k8s.io", js, partial(self._jobset_workloads, js)
        for vj in self.items("jobs.batch.volcano.sh"):
            if not is_finished(vj):
                yield "jobs.batch.volcano.sh", vj, partial(self._volcano_workloads, vj)

    def _job_workloads(self, job: Obj) -> Iterator[Workload]:
        spec = job.get("spec") or {}
        yield self._template(
            "jobs.batch",
            job,
            spec.get("template"),
            "spec.template",
            int(spec.get("parallelism") or 1),
        )

    def _replica_workloads(self, key: str, field: str, job: Obj) -> Iterator[Workload]:
        for role, rs in sorted(((job.get("spec") or {}).get(field) or {}).items()):
            path = f"spec.{field}.{role}.template"
            yield self._template(key, job, rs.get("template"), path, rs.get("replicas", 1))

    def _jobset_workloads(self, js: Obj) -> Iterator[Workload]:
        for i, rj in enumerate((js.get("spec") or {}).get("replicatedJobs") or []):
            jspec = (rj.get("template") or {}).get("spec") or {}
            path = f"spec.replicatedJobs[{i}].template.spec.template"
            count = int(rj.get("replicas") or 1) * int(jspec.get("parallelism") or 1)
            yield self._template("jobsets.jobset.x-k8s.io", js, jspec.get("template"), path, count)

    def _volcano_workloads(self, vj: Obj) -> Iterator[Workload]:
        for i, task in enumerate((vj.get("spec") or {}).get("tasks") or []):
            path = f"spec.tasks[{i}].template"
            yield self._template(
                "jobs.batch.volcano.sh", vj, task.get("template"), path, task.get("replicas", 1)
            )

    def _template(self, key: str, obj: Obj, tpl: Any, path: str, count: Any) -> Workload:
        tpl = tpl or {}
        return Workload(
            self.ref(key, obj),
            tpl.get("spec") or {},
            f"{path}.spec",
            int(count or 1),
            dict((tpl.get("metadata") or {}).get("labels") or {}),
        )

    @cached_property
    def _template_owners(self) -> set[tuple[str, str, str]]:
        """(namespace, kind, name) of listed objects whose pod templates are evaluated."""
        out: set[tuple[str, str, str]] = set()
        for key in TEMPLATE_OWNERS.values():
            kind = KINDS[key].kind
            for obj in self.items(key):
                meta = obj.get("metadata") or {}
                out.add((str(meta.get("namespace", "")), kind, str(meta.get("name"))))
        return out

    def _standalone_pods(self) -> Iterator[Workload]:
        groups: dict[tuple[str, str, str], list[Obj]] = {}
        for pod in self.gpu_pods:
            if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
                continue
            meta = pod["metadata"]
            owners = meta.get("ownerReferences") or []
            okey = owner_key(pod)
            if (
                okey in TEMPLATE_OWNERS
                and (str(meta.get("namespace", "")), okey[1], str(owners[0].get("name")))
                in self._template_owners
            ):
                continue  # its owner's template is evaluated instead
            group_key = (
                str(meta.get("namespace", "")),
                f"{owners[0].get('kind')}/{owners[0].get('name')}" if owners else "",
                "" if owners else str(meta.get("name")),
            )
            groups.setdefault(group_key, []).append(pod)
        for (namespace, owner, _), pods in sorted(groups.items()):
            pods.sort(key=lambda p: str(p["metadata"].get("name")))
            first = pods[0]
            if owner:
                o = first["metadata"]["ownerReferences"][0]
                resource = Resource(
                    str(o.get("apiVersion")), str(o.get("kind")), str(o.get("name")), namespace
                )
            else:
                resource = self.ref("pods", first)
            labels = dict(first["metadata"].get("labels") or {})
            yield Workload(
                resource,
                first.get("spec") or {},
                "spec",
                len(pods),
                labels,
                training=resource.kind in TRAINING_OWNER_KINDS
                or any(k in labels for k in GANG_LABELS),
            )
