"""Kueue Workload (kueue.x-k8s.io v1beta2, v1beta1): the admission unit of a queued job.

Kueue creates one Workload per job it admits (owned by the job) and one per plain-pod group
(pods labelled ``kueue.x-k8s.io/pod-group-name``). kubegap judges a Workload as a workload of its
own only when its owner is not a listed kind, so a job is never counted twice. From the API:
``podSets[].count`` pods per set, ``minCount`` enables partial admission (fewer pods than
``count``), ``maximumExecutionTimeSeconds`` bounds the run, condition ``Finished`` ends it.
"""

from __future__ import annotations

from ..k8s import Obj
from ..kindspec import kind_spec
from ..projection.core import pick
from ..projection.core import shaped
from ..projection.core import status_conditions
from ..projection.core import template
from .base import Adapter
from .base import Admission
from .base import Deadline
from .base import Lookup
from .base import PodTemplate
from .walk import condition_true
from .walk import count
from .walk import indexed_templates
from .walk import spec_of

GROUP_LABEL = "kueue.x-k8s.io/pod-group-name"


def project_workload(obj: Obj) -> Obj:
    spec = obj.get("spec") or {}
    pod_sets = [
        {**pick(ps, "name", "count", "minCount"), "template": template(ps.get("template"))}
        for ps in spec.get("podSets") or []
    ]
    kept = {**pick(spec, "queueName", "maximumExecutionTimeSeconds"), "podSets": pod_sets}
    return shaped(obj, kept, status_conditions(obj))


def _pod_sets(obj: Obj) -> list[Obj]:
    return list(spec_of(obj).get("podSets") or [])


def _templates(obj: Obj, objects: Lookup) -> list[PodTemplate]:
    return indexed_templates(_pod_sets(obj), "podSets", "podSet", "count")


def partial_admission(obj: Obj) -> Admission | None:
    """The first pod set that may be admitted with fewer pods than it needs (minCount < count)."""
    for i, ps in enumerate(_pod_sets(obj)):
        if ps.get("minCount") is not None and count(ps["minCount"]) < count(ps.get("count")):
            return Admission(
                f"spec.podSets[{i}].minCount", count(ps["minCount"]), count(ps.get("count"))
            )
    return None


KUEUE_WORKLOAD = Adapter(
    spec=kind_spec(
        "workloads.kueue.x-k8s.io", ("v1beta2", "v1beta1"), "Workload", project_workload, crd=True
    ),
    templates=_templates,
    gang_labels=(GROUP_LABEL,),
    # Restarts are the owner's (or the pods') business; Kueue only admits and evicts.
    deadline=lambda obj, objects: Deadline(
        "spec.maximumExecutionTimeSeconds", spec_of(obj).get("maximumExecutionTimeSeconds")
    ),
    admission=partial_admission,
    finished=lambda obj: condition_true(obj, "Finished"),
)
