"""Projection of the built-in kinds that are not workloads: pods, nodes, DaemonSets, CronJobs,
Events and PodDisruptionBudgets."""

from __future__ import annotations

from typing import Any

from ..k8s import Obj
from ..k8s import device_gpus
from ..k8s import is_gpu_resource
from .core import _RESOURCE_KEYS
from .core import _s
from .core import _strs
from .core import conditions
from .core import job_spec
from .core import mapping
from .core import mappings
from .core import metadata
from .core import pick
from .core import pod_spec
from .core import prune
from .core import shaped
from .core import template

EXEMPT_PREFIX = "kubegap.io/"
MAX_EVENT_MESSAGE = 300


def _container_status(cs: Obj) -> Obj:
    def term(state: Any) -> Obj | None:
        t = (state or {}).get("terminated")
        if not t:
            return None
        return {
            "terminated": prune(
                {
                    "reason": t.get("reason"),
                    "exitCode": t.get("exitCode"),
                    "finishedAt": t.get("finishedAt"),
                }
            )
        }

    state = cs.get("state") or {}
    waiting = state.get("waiting")
    state_out = term(state) or ({"waiting": {"reason": waiting.get("reason")}} if waiting else None)
    return prune(
        {
            "name": cs.get("name"),
            "ready": cs.get("ready"),
            "restartCount": cs.get("restartCount"),
            "state": state_out,
            "lastState": term(cs.get("lastState")),
            "allocatedResourcesStatus": cs.get("allocatedResourcesStatus"),
        }
    )


# Labels of pods without GPUs that checks read (the control-plane component, gang membership);
# GPU pods keep all their labels (workload identity, exemptions by label selector).
POD_LABELS = frozenset(
    {
        "training.kubeflow.org/job-name",
        "jobset.sigs.k8s.io/jobset-name",
        "volcano.sh/job-name",
        "component",
    }
)


def _asks_for_gpus(spec: Any) -> bool:
    """Whether a pod may hold GPUs: it requests a GPU resource, mounts a GPU device node from the
    host, or uses a DRA claim (whether the claim is a GPU depends on the cluster's DRA drivers,
    see k8s.container_gpus)."""
    containers = mappings(mapping(spec, "spec").get("containers"), "spec.containers")
    for i, c in enumerate(containers):
        res = mapping(c.get("resources"), f"spec.containers[{i}].resources")
        if res.get("claims"):
            return True
        if isinstance(c.get("volumeMounts"), list) and device_gpus(c):
            return True
        for part in ("limits", "requests"):
            if any(is_gpu_resource(k) for k in res.get(part) or {}):
                return True
    return False


def _slim_pod_spec(spec: Any) -> Obj:
    """Pods without GPUs: checks read only where they run and what they run (agents, etcd)."""
    spec = spec if isinstance(spec, dict) else {}
    return prune(
        {
            "nodeName": spec.get("nodeName"),
            "containers": [
                prune(
                    {
                        "name": c.get("name"),
                        "image": c.get("image"),
                        "command": _strs(c.get("command")),
                        "args": _strs(c.get("args")),
                    }
                )
                for c in spec.get("containers") or []
            ],
        }
    )


def pod(obj: Obj) -> Obj:
    status = obj.get("status") or {}
    meta = metadata(obj)
    gpus = _asks_for_gpus(obj.get("spec"))
    if not gpus:
        labels = {k: v for k, v in (meta.pop("labels", None) or {}).items() if k in POD_LABELS}
        if labels:
            meta["labels"] = labels
    # Only kubegap's own annotations (exemptions) are read on pods.
    annotations = {
        k: v
        for k, v in (meta.pop("annotations", None) or {}).items()
        if k.startswith(EXEMPT_PREFIX)
    }
    if annotations:
        meta["annotations"] = annotations
    return {
        "metadata": meta,
        "spec": pod_spec(obj.get("spec"), "spec") if gpus else _slim_pod_spec(obj.get("spec")),
        "status": prune(
            {
                "phase": status.get("phase"),
                "containerStatuses": [
                    _container_status(c) for c in status.get("containerStatuses") or []
                ]
                or None,
            }
        ),
    }


def node(obj: Obj) -> Obj:
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}

    def res(field: str) -> Obj | None:
        values = mapping(status.get(field), f"status.{field}")
        return {k: str(v) for k, v in values.items() if k in _RESOURCE_KEYS or "/" in k} or None

    info = status.get("nodeInfo") or {}
    taints = spec.get("taints")
    created = (obj.get("metadata") or {}).get("creationTimestamp")
    return {
        # When it joined: a node still starting is not judged on its GPU count (GPU-003).
        "metadata": {**metadata(obj), **({"creationTimestamp": created} if created else {})},
        "spec": prune(
            {
                "unschedulable": spec.get("unschedulable"),
                "taints": mappings(taints, "spec.taints") if taints is not None else None,
            }
        ),
        "status": prune(
            {
                "capacity": res("capacity"),
                "allocatable": res("allocatable"),
                "conditions": conditions(status.get("conditions")),
                "nodeInfo": prune({"kubeletVersion": info.get("kubeletVersion")}) or None,
            }
        ),
    }


def daemonset(obj: Obj) -> Obj:
    spec = obj.get("spec") or {}
    kept = {**pick(spec, "updateStrategy"), "template": template(spec.get("template"))}
    status = pick(
        obj.get("status"),
        "desiredNumberScheduled",
        "currentNumberScheduled",
        "numberReady",
        "numberAvailable",
    )
    return shaped(obj, kept, status)


def cronjob(obj: Obj) -> Obj:
    spec = obj.get("spec") or {}
    job_template = spec.get("jobTemplate") or {}
    kept = {
        **pick(spec, "schedule", "suspend"),
        "jobTemplate": {"spec": job_spec(job_template.get("spec"))},
    }
    return shaped(obj, kept, pick(obj.get("status"), "lastScheduleTime", "lastSuccessfulTime"))


def event(obj: Obj) -> Obj:
    """A core/v1 Event: what happened to which object, when last and how often."""
    meta = obj.get("metadata") or {}
    series = obj.get("series") or {}
    involved = obj.get("involvedObject") or obj.get("regarding") or {}
    source = obj.get("source")
    if isinstance(source, dict):
        source = source.get("component")
    last = (
        obj.get("lastTimestamp")
        or series.get("lastObservedTime")
        or obj.get("eventTime")
        or obj.get("firstTimestamp")
        or meta.get("creationTimestamp")
    )
    return prune(
        {
            "metadata": prune({"name": meta.get("name"), "namespace": meta.get("namespace")}),
            "type": obj.get("type"),
            "reason": obj.get("reason"),
            "message": _s(obj.get("message") or obj.get("note"), MAX_EVENT_MESSAGE),
            "involvedObject": prune(
                {
                    "apiVersion": involved.get("apiVersion"),
                    "kind": involved.get("kind"),
                    "name": involved.get("name"),
                    "namespace": involved.get("namespace"),
                }
            ),
            "source": source or obj.get("reportingController") or obj.get("reportingComponent"),
            "count": obj.get("count") or series.get("count"),
            "lastTimestamp": last,
        }
    )


def pod_disruption_budget(obj: Obj) -> Obj:
    spec = pick(obj.get("spec"), "selector", "minAvailable", "maxUnavailable")
    status = pick(
        obj.get("status"), "currentHealthy", "desiredHealthy", "disruptionsAllowed", "expectedPods"
    )
    return shaped(obj, spec, status)
