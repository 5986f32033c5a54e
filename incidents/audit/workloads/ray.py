"""KubeRay (ray.io/v1): RayJob and RayCluster.

A RayCluster has a head group and worker groups (``replicas`` x ``numOfHosts`` pods each); KubeRay
recreates lost pods, and whether a Ray program survives a lost worker is up to Ray (Ray Train's
``FailureConfig``), which the API does not show. A RayJob runs one program on its own cluster;
``backoffLimit`` (default 0) retries the whole job, each retry on a new RayCluster, and
``activeDeadlineSeconds`` bounds it. A head pod's loss ends the whole Ray cluster
(https://docs.ray.io/en/latest/ray-core/fault_tolerance/nodes.html) and Ray Train's
``FailureConfig.max_failures`` defaults to 0, so with ``backoffLimit`` 0 a lost pod ends the run.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..k8s import Obj
from ..kindspec import kind_spec
from ..model import Evidence
from ..projection.core import pick
from ..projection.core import shaped
from ..projection.core import template
from .base import Adapter
from .base import Deadline
from .base import Lookup
from .base import PodTemplate
from .base import Restart
from .walk import count
from .walk import pod_template
from .walk import spec_of

CLUSTER_LABEL = "ray.io/cluster"
_FINISHED = frozenset({"Complete", "Failed", "ValidationFailed"})
# KubeRay mounts an in-memory emptyDir named shared-mem at /dev/shm in the Ray container (the
# first) of every head and worker pod that has none, sized to that container's memory limit, else
# its memory request, else unbounded (ray-operator/controllers/ray/common/pod.go: addEmptyDir,
# makeEmptyDirVolume, findMemoryReqOrLimit). The object's template does not show it; its pods do.
SHM_VOLUME = "shared-mem"
SHM_PATH = "/dev/shm"


def with_kuberay_shm(spec: Obj) -> Obj:
    """The pod spec KubeRay renders from a Ray group's ``spec``: /dev/shm added as above."""
    containers = spec.get("containers") or []
    if not containers or not isinstance(containers[0], dict):
        return spec
    ray = containers[0]
    mounts = ray.get("volumeMounts") or []
    if any(isinstance(m, dict) and m.get("mountPath") == SHM_PATH for m in mounts):
        return spec
    volumes = list(spec.get("volumes") or [])
    if not any(isinstance(v, dict) and v.get("name") == SHM_VOLUME for v in volumes):
        res = ray.get("resources") or {}
        size = ((res.get("limits") or {}).get("memory")) or (
            (res.get("requests") or {}).get("memory")
        )
        empty: Obj = {"medium": "Memory", **({"sizeLimit": size} if size else {})}
        volumes.append({"name": SHM_VOLUME, "emptyDir": empty})
    ray = {**ray, "volumeMounts": [*mounts, {"name": SHM_VOLUME, "mountPath": SHM_PATH}]}
    return {**spec, "containers": [ray, *containers[1:]], "volumes": volumes}


def _cluster_spec(spec: Any) -> Obj | None:
    if not isinstance(spec, dict):
        return None
    head = spec.get("headGroupSpec") or {}
    groups = [
        {
            **pick(g, "groupName", "replicas", "minReplicas", "maxReplicas", "numOfHosts"),
            "template": template(g.get("template")),
        }
        for g in spec.get("workerGroupSpecs") or []
    ]
    return {
        **pick(spec, "suspend"),
        "headGroupSpec": {"template": template(head.get("template"))},
        "workerGroupSpecs": groups,
    }


def project_raycluster(obj: Obj) -> Obj:
    return shaped(obj, _cluster_spec(obj.get("spec")) or {}, pick(obj.get("status"), "state"))


def project_rayjob(obj: Obj) -> Obj:
    spec = obj.get("spec") or {}
    kept = pick(spec, "activeDeadlineSeconds", "backoffLimit", "clusterSelector", "suspend")
    cluster = _cluster_spec(spec.get("rayClusterSpec"))
    if cluster is not None:
        kept["rayClusterSpec"] = cluster
    return shaped(obj, kept, pick(obj.get("status"), "jobDeploymentStatus", "jobStatus"))


def _rendered(tpl: PodTemplate) -> PodTemplate:
    return replace(tpl, spec=with_kuberay_shm(tpl.spec))


def cluster_templates(spec: Obj, prefix: str) -> list[PodTemplate]:
    """The head and worker group templates, each as KubeRay renders its pods (/dev/shm added)."""
    return [_rendered(t) for t in _group_templates(spec, prefix)]


def _group_templates(spec: Obj, prefix: str) -> list[PodTemplate]:
    head = spec.get("headGroupSpec") or {}
    out = (
        [pod_template("head", f"{prefix}.headGroupSpec.template", head.get("template"), 1)]
        if head
        else []
    )
    for i, g in enumerate(spec.get("workerGroupSpecs") or []):
        pods = count(g.get("replicas"), count(g.get("minReplicas"), 0)) * max(
            1, count(g.get("numOfHosts"))
        )
        out.append(
            pod_template(
                f"workers {g.get('groupName', i)}",
                f"{prefix}.workerGroupSpecs[{i}].template",
                g.get("template"),
                pods,
            )
        )
    return out


def _rayjob_templates(obj: Obj, objects: Lookup) -> list[PodTemplate]:
    # A RayJob with a clusterSelector runs on an existing RayCluster, judged on its own.
    return cluster_templates(spec_of(obj).get("rayClusterSpec") or {}, "spec.rayClusterSpec")


def _rayjob_restart(obj: Obj, objects: Lookup) -> Restart:
    backoff = count(spec_of(obj).get("backoffLimit"), 0)
    if backoff > 0:
        return Restart(
            True, f"backoffLimit={backoff}: each retry reruns the job on a new RayCluster"
        )
    # Ray Train's FailureConfig(max_failures) also defaults to 0, and a lost head pod ends the
    # whole Ray cluster whatever the program sets, so only backoffLimit restarts the run.
    return Restart(
        False,
        "spec.backoffLimit is 0 (the default): a lost head pod, or a lost worker unless the "
        "program sets Ray Train FailureConfig(max_failures), also 0 by default, fails the RayJob "
        "for good",
        (Evidence("spec.backoffLimit", spec_of(obj).get("backoffLimit"), "> 0"),),
    )


RAYJOB = Adapter(
    spec=kind_spec("rayjobs.ray.io", ("v1",), "RayJob", project_rayjob, crd=True),
    templates=_rayjob_templates,
    restart=_rayjob_restart,
    deadline=lambda obj, objects: Deadline(
        "spec.activeDeadlineSeconds", spec_of(obj).get("activeDeadlineSeconds")
    ),
    finished=lambda obj: (obj.get("status") or {}).get("jobDeploymentStatus") in _FINISHED,
)
RAYCLUSTER = Adapter(
    spec=kind_spec("rayclusters.ray.io", ("v1",), "RayCluster", project_raycluster, crd=True),
    templates=lambda obj, objects: cluster_templates(spec_of(obj), "spec"),
    # A long-running Ray cluster may train or serve; checkpoint checks do not assume either.
    training=False,
    gang_labels=(CLUSTER_LABEL,),
    finished=lambda obj: False,
)
