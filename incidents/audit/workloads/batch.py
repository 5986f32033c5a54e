"""Kubernetes Jobs, Deployments and StatefulSets: one pod template each."""

from __future__ import annotations

from ..k8s import Obj
from ..kindspec import kind_spec
from ..projection.core import job_spec
from ..projection.core import job_status
from ..projection.core import pick
from ..projection.core import shaped
from ..projection.core import template
from .base import Adapter
from .base import Deadline
from .base import Lookup
from .base import PodTemplate
from .walk import count
from .walk import pod_template
from .walk import spec_of


def project_job(obj: Obj) -> Obj:
    return shaped(obj, job_spec(obj.get("spec")), job_status(obj.get("status")))


def _job_templates(obj: Obj, objects: Lookup) -> list[PodTemplate]:
    spec = spec_of(obj)
    return [
        pod_template("pods", "spec.template", spec.get("template"), count(spec.get("parallelism")))
    ]


def _job_deadline(obj: Obj, objects: Lookup) -> Deadline:
    spec = spec_of(obj)
    pod = (spec.get("template") or {}).get("spec") or {}
    if not spec.get("activeDeadlineSeconds") and pod.get("activeDeadlineSeconds"):
        return Deadline("spec.template.spec.activeDeadlineSeconds", pod["activeDeadlineSeconds"])
    return Deadline("spec.activeDeadlineSeconds", spec.get("activeDeadlineSeconds"))


JOB = Adapter(
    spec=kind_spec("jobs.batch", ("v1",), "Job", project_job),
    templates=_job_templates,
    gang_labels=("job-name",),
    # The pods of a parallel Job need not be a gang; a Job retries its pods one by one.
    deadline=_job_deadline,
)


def project_replicated(obj: Obj) -> Obj:
    """Deployments and StatefulSets: replicas, selector and template."""
    spec = obj.get("spec") or {}
    kept = {**pick(spec, "replicas", "selector"), "template": template(spec.get("template"))}
    return shaped(obj, kept, pick(obj.get("status"), "replicas", "readyReplicas"))


def _replicated_templates(obj: Obj, objects: Lookup) -> list[PodTemplate]:
    spec = spec_of(obj)
    return [
        pod_template("pods", "spec.template", spec.get("template"), count(spec.get("replicas")))
    ]


def _never_finished(obj: Obj) -> bool:
    return False


DEPLOYMENT = Adapter(
    spec=kind_spec("deployments.apps", ("v1",), "Deployment", project_replicated),
    templates=_replicated_templates,
    training=False,
    finished=_never_finished,
)
STATEFULSET = Adapter(
    spec=kind_spec("statefulsets.apps", ("v1",), "StatefulSet", project_replicated),
    templates=_replicated_templates,
    training=False,
    finished=_never_finished,
)
