"""Volcano Job (batch.volcano.sh/v1alpha1): tasks with lifecycle policies.

From the Volcano API: a policy maps an event (``PodFailed``, ``PodEvicted``, ``TaskFailed``, ``*``)
to an action; ``RestartJob`` deletes and recreates every pod of the job, ``RestartTask`` those of
one task and ``RestartPod`` only the failed pod. ``maxRetry`` (default 3) bounds the restarts and
``minAvailable`` defaults to the sum of the tasks' replicas.
"""

from __future__ import annotations

from ..k8s import Obj
from ..kindspec import kind_spec
from ..model import Evidence
from ..projection.core import pick
from ..projection.core import shaped
from ..projection.core import template
from .base import Adapter
from .base import Admission
from .base import Deadline
from .base import Lookup
from .base import PodTemplate
from .base import Restart
from .walk import count
from .walk import indexed_templates
from .walk import spec_of

NAME_LABEL = "volcano.sh/job-name"
FAILURE_EVENTS = frozenset({"PodFailed", "PodEvicted", "TaskFailed", "*"})


def project_volcano_job(obj: Obj) -> Obj:
    spec = obj.get("spec") or {}
    tasks = [
        {
            **pick(t, "name", "replicas", "minAvailable", "policies"),
            "template": template(t.get("template")),
        }
        for t in spec.get("tasks") or []
    ]
    kept = {**pick(spec, "minAvailable", "maxRetry", "queue", "policies"), "tasks": tasks}
    return shaped(obj, kept, pick(obj.get("status"), "state"))


def _tasks(obj: Obj) -> list[Obj]:
    return list(spec_of(obj).get("tasks") or [])


def _templates(obj: Obj, objects: Lookup) -> list[PodTemplate]:
    return indexed_templates(_tasks(obj), "tasks", "task", "replicas")


def _on_failure(policies: object, actions: set[str]) -> bool:
    for p in policies if isinstance(policies, list) else []:
        events = {str(p.get("event") or "")} | {str(e) for e in p.get("events") or []}
        if p.get("action") in actions and events & FAILURE_EVENTS:
            return True
    return False


def _restart(obj: Obj, objects: Lookup) -> Restart:
    spec = spec_of(obj)
    tasks = _tasks(obj)
    whole = {"RestartJob"} | ({"RestartTask"} if len(tasks) == 1 else set())
    found = _on_failure(spec.get("policies"), whole) or any(
        _on_failure(t.get("policies"), whole) for t in tasks
    )
    retries = count(spec.get("maxRetry"), 3)
    if found and retries > 0:
        return Restart(True, f"a PodFailed/PodEvicted policy restarts the job (maxRetry {retries})")
    events = sorted(
        f"{p.get('event') or ','.join(p.get('events') or [])} -> {p.get('action')}"
        for p in [
            *(spec.get("policies") or []),
            *(p for t in tasks for p in t.get("policies") or []),
        ]
    )
    evidence = [Evidence("spec.policies", events or None, "PodFailed/PodEvicted -> RestartJob")]
    if found:
        evidence.append(Evidence("spec.maxRetry", spec.get("maxRetry"), "> 0"))
    return Restart(False, "an evicted or failed pod does not restart the gang", tuple(evidence))


def _admission(obj: Obj) -> Admission:
    spec = spec_of(obj)
    total = sum(count(t.get("replicas")) for t in _tasks(obj))
    return Admission("spec.minAvailable", count(spec.get("minAvailable"), total), total)


def _deadline(obj: Obj, objects: Lookup) -> Deadline:
    found = [
        int(d)
        for t in _tasks(obj)
        if (d := ((t.get("template") or {}).get("spec") or {}).get("activeDeadlineSeconds"))
    ]
    return Deadline(
        "spec.tasks[*].template.spec.activeDeadlineSeconds", min(found) if found else None
    )


VOLCANO_JOB = Adapter(
    spec=kind_spec("jobs.batch.volcano.sh", ("v1alpha1",), "Job", project_volcano_job, crd=True),
    templates=_templates,
    gang_labels=(NAME_LABEL,),
    restart=_restart,
    deadline=_deadline,
    admission=_admission,
)
