"""Project full Kubernetes objects to the slim dicts the checks read.

The client projects every object while paging, so memory grows with the number of objects and not
with their size (managedFields, last-applied annotations, big ConfigMaps never stay in memory).
Projection is idempotent: projecting a projected object gives the same object, so snapshots and
test fixtures may hold either full or projected objects.

Environment variables are kept only for the names checks read (NCCL_*, TORCH_*, DP_*, checkpoint
paths); every other variable is dropped, so a snapshot does not carry credentials passed in env.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from .config import cluster_policy, configmap, monitor, prometheus_rule
from .core import Obj, daemonset, node, pod
from .workloads import cronjob, job, jobset, kubeflow_job, volcano_job

__all__ = ["Obj", "PROJECTORS", "project"]

PROJECTORS: dict[str, Callable[[Obj], Obj]] = {
    "nodes": node,
    "pods": pod,
    "configmaps": configmap,
    "daemonsets.apps": daemonset,
    "jobs.batch": job,
    "cronjobs.batch": cronjob,
    "pytorchjobs.kubeflow.org": kubeflow_job,
    "mpijobs.kubeflow.org": kubeflow_job,
    "jobsets.jobset.x-k8s.io": jobset,
    "jobs.batch.volcano.sh": volcano_job,
    "prometheusrules.monitoring.coreos.com": prometheus_rule,
    "servicemonitors.monitoring.coreos.com": monitor,
    "podmonitors.monitoring.coreos.com": monitor,
    "clusterpolicies.nvidia.com": cluster_policy,
}


def _intern(value: Any) -> Any:
    """Share repeated short strings (phases, images, label values) between objects."""
    if isinstance(value, str):
        return sys.intern(value) if len(value) <= 80 else value
    if isinstance(value, dict):
        return {k: _intern(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_intern(v) for v in value]
    return value


def project(kind_key: str, obj: Obj) -> Obj:
    """The slim form of ``obj`` for the kind ``kind_key``, its short strings interned."""
    return _intern(PROJECTORS[kind_key](obj))  # type: ignore[no-any-return]
