"""JobSet (jobset.x-k8s.io): replicated Jobs, restarted as a whole by failurePolicy.

Semantics from the v1alpha2 API: ``failurePolicy.maxRestarts`` recreates every child Job when one
fails (``RestartJobSet``, the action for failures no rule matches); a rule may instead fail the
JobSet or restart only the failed Job (``RestartJob``), and ``RestartJobSetAndIgnoreMaxRestarts``
restarts it without a limit. Kubeflow Trainer v2 runtimes embed the same JobSet spec.
"""

from __future__ import annotations

from typing import Any

from ..k8s import Obj
from ..kindspec import kind_spec
from ..model import Evidence
from ..projection.core import job_spec
from ..projection.core import pick
from ..projection.core import shaped
from ..projection.core import status_conditions
from .base import Adapter
from .base import Deadline
from .base import PodTemplate
from .base import Restart
from .walk import condition_true
from .walk import count
from .walk import pod_template
from .walk import spec_of

NAME_LABEL = "jobset.sigs.k8s.io/jobset-name"
_NOT_WHOLE = ("FailJobSet", "RestartJob", "RestartJobAndIgnoreMaxRestarts")


def project_jobset_spec(spec: Any) -> Obj:
    spec = spec if isinstance(spec, dict) else {}
    jobs = []
    for rj in spec.get("replicatedJobs") or []:
        tpl = rj.get("template") or {}
        labels = pick(tpl.get("metadata"), "labels")
        jobs.append(
            {
                **pick(rj, "name", "replicas"),
                "template": {
                    **({"metadata": labels} if labels else {}),
                    "spec": job_spec(tpl.get("spec")),
                },
            }
        )
    return {**pick(spec, "failurePolicy", "suspend"), "replicatedJobs": jobs}


def project_jobset(obj: Obj) -> Obj:
    status = obj.get("status") or {}
    kept = {**status_conditions(obj), **pick(status, "restarts")}
    return shaped(obj, project_jobset_spec(obj.get("spec")), kept)


def replicated_job_templates(spec: Obj, prefix: str = "spec") -> list[PodTemplate]:
    """The pod template of each replicated Job, standing for replicas x parallelism pods."""
    out = []
    for i, rj in enumerate(spec.get("replicatedJobs") or []):
        jspec = (rj.get("template") or {}).get("spec") or {}
        pods = count(rj.get("replicas")) * count(jspec.get("parallelism"))
        role = f"replicatedJobs[{rj.get('name', i)}]"
        path = f"{prefix}.replicatedJobs[{i}].template.spec.template"
        out.append(pod_template(role, path, jspec.get("template"), pods))
    return out


def jobset_restart(spec: Obj, prefix: str = "spec") -> Restart:
    """Whether a failed child Job restarts every Job of the set (the whole gang)."""
    policy = spec.get("failurePolicy") or {}
    rules = policy.get("rules") or []
    actions = [str(r.get("action")) for r in rules]
    where = f"{prefix}.failurePolicy"
    if "RestartJobSetAndIgnoreMaxRestarts" in actions:
        return Restart(True, "failurePolicy rule RestartJobSetAndIgnoreMaxRestarts")
    max_restarts = count(policy.get("maxRestarts"), 0)
    catch_all = next(
        (
            r
            for r in rules
            if not r.get("onJobFailureReasons")
            and not r.get("onJobFailureMessagePatterns")
            and not r.get("targetReplicatedJobs")
        ),
        None,
    )
    if max_restarts > 0 and not (catch_all and catch_all.get("action") in _NOT_WHOLE):
        return Restart(True, f"failurePolicy.maxRestarts={max_restarts} (RestartJobSet)")
    if max_restarts > 0 and catch_all:
        return Restart(
            False,
            f"a failurePolicy rule for every failure does {catch_all.get('action')}, not RestartJobSet",
            (Evidence(f"{where}.rules", actions, "RestartJobSet for worker failures"),),
        )
    return Restart(
        False,
        "any failure fails the JobSet without a restart",
        (Evidence(f"{where}.maxRestarts", policy.get("maxRestarts"), "> 0"),),
    )


def jobset_deadline(spec: Obj, prefix: str = "spec") -> Deadline:
    deadlines = [
        ((rj.get("template") or {}).get("spec") or {}).get("activeDeadlineSeconds")
        for rj in spec.get("replicatedJobs") or []
    ]
    found = [d for d in deadlines if d]
    return Deadline(
        f"{prefix}.replicatedJobs[*].template.spec.activeDeadlineSeconds",
        min(found) if found else None,
    )


def _finished(obj: Obj) -> bool:
    return condition_true(obj, "Completed", "Failed")


JOBSET = Adapter(
    spec=kind_spec("jobsets.jobset.x-k8s.io", ("v1alpha2",), "JobSet", project_jobset, crd=True),
    templates=lambda obj, objects: replicated_job_templates(spec_of(obj)),
    gang_labels=(NAME_LABEL,),
    restart=lambda obj, objects: jobset_restart(spec_of(obj)),
    deadline=lambda obj, objects: jobset_deadline(spec_of(obj)),
    finished=_finished,
)
