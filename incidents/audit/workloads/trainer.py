"""Kubeflow Trainer v2 (trainer.kubeflow.org/v1alpha1): a TrainJob runs its runtime's JobSet.

A TrainJob names a ClusterTrainingRuntime (the default kind) or a TrainingRuntime, whose
``spec.template`` is a JobSet spec. The trainer step (the replicated Job labelled
``trainer.kubeflow.org/trainjob-ancestor-step: trainer``) runs ``trainer.numNodes`` pods (else
``mlPolicy.numNodes``), and the TrainJob's image, command, args, env and ``resourcesPerNode`` go
to its container named ``node``; ``runtimePatches`` add pod-spec fields. Restart semantics are the
JobSet's (the runtime's ``failurePolicy``); the TrainJob's ``activeDeadlineSeconds`` bounds it.
"""

from __future__ import annotations

import copy
from typing import Any

from ..k8s import Obj
from ..kindspec import kind_spec
from ..projection.core import _env
from ..projection.core import _resources
from ..projection.core import pick
from ..projection.core import pod_spec
from ..projection.core import prune
from ..projection.core import shaped
from ..projection.core import status_conditions
from .base import Adapter
from .base import Deadline
from .base import Lookup
from .base import PodTemplate
from .base import Restart
from .base import Unreadable
from .jobset import jobset_deadline
from .jobset import jobset_restart
from .jobset import project_jobset_spec
from .jobset import replicated_job_templates
from .walk import condition_true
from .walk import count
from .walk import readable
from .walk import spec_of

ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"
CLUSTER_RUNTIMES = "clustertrainingruntimes.trainer.kubeflow.org"
RUNTIMES = "trainingruntimes.trainer.kubeflow.org"


def project_runtime(obj: Obj) -> Obj:
    spec = obj.get("spec") or {}
    ml = spec.get("mlPolicy") or {}
    kept: Obj = {
        "template": {"spec": project_jobset_spec((spec.get("template") or {}).get("spec"))}
    }
    policy = {**pick(ml, "numNodes"), **{k: {} for k in ("torch", "mpi") if k in ml}}
    if policy:
        kept["mlPolicy"] = policy
    kept.update(pick(spec, "podGroupPolicy"))
    return shaped(obj, kept)


def _patch(patch: Any) -> Obj:
    rjs = (((patch.get("trainingRuntimeSpec") or {}).get("template") or {}).get("spec") or {}).get(
        "replicatedJobs"
    ) or []
    return {
        "manager": patch.get("manager"),
        "replicatedJobs": [
            {
                "name": rj.get("name"),
                "podSpec": pod_spec(
                    (((rj.get("template") or {}).get("spec") or {}).get("template") or {}).get(
                        "spec"
                    )
                ),
            }
            for rj in rjs
        ],
    }


def project_trainjob(obj: Obj) -> Obj:
    spec = obj.get("spec") or {}
    trainer = spec.get("trainer") or {}
    kept = pick(spec, "runtimeRef", "suspend", "activeDeadlineSeconds")
    if trainer:
        kept["trainer"] = prune(
            {
                **pick(trainer, "image", "command", "args", "numNodes", "numProcPerNode"),
                "env": _env(trainer.get("env")),
                "resourcesPerNode": _resources(trainer.get("resourcesPerNode")),
            }
        )
    patches = spec.get("runtimePatches")
    if isinstance(patches, list):
        # Already projected patches keep their shape (projection is idempotent).
        kept["runtimePatches"] = [p if "replicatedJobs" in p else _patch(p) for p in patches]
    return shaped(obj, kept, status_conditions(obj))


def _runtime(obj: Obj, objects: Lookup) -> tuple[str, Obj]:
    ref = spec_of(obj).get("runtimeRef") or {}
    kind = str(ref.get("kind") or "ClusterTrainingRuntime")
    name = str(ref.get("name") or "")
    if kind == "ClusterTrainingRuntime":
        runtime = objects.find(CLUSTER_RUNTIMES, None, name)
    else:
        runtime = objects.find(RUNTIMES, (obj.get("metadata") or {}).get("namespace"), name)
    if runtime is None:
        raise Unreadable(f"its runtime {kind} {name!r} is not among the listed runtimes")
    return f"{kind}/{name}", readable(runtime)


def _apply_patches(spec: Obj, rj_name: str, patches: list[Obj]) -> Obj:
    spec = copy.deepcopy(spec)
    for patch in patches:
        for rj in patch.get("replicatedJobs") or []:
            if rj.get("name") != rj_name:
                continue
            extra = rj.get("podSpec") or {}
            for key in ("volumes", "tolerations"):
                if extra.get(key):
                    spec[key] = [*(spec.get(key) or []), *extra[key]]
            for key in ("terminationGracePeriodSeconds", "nodeSelector", "affinity"):
                if key in extra:
                    spec[key] = extra[key]
            by_name = {c.get("name"): c for c in spec.get("containers") or []}
            for c in extra.get("containers") or []:
                target = by_name.get(c.get("name"))
                if target is not None:
                    for key in ("env", "volumeMounts"):
                        if c.get(key):
                            target[key] = [*(target.get(key) or []), *c[key]]
    return spec


def _trainer_container(spec: Obj, trainer: Obj) -> Obj:
    spec = copy.deepcopy(spec)
    for c in spec.get("containers") or []:
        if c.get("name") != "node":
            continue
        for key in ("image", "command", "args"):
            if trainer.get(key):
                c[key] = trainer[key]
        if trainer.get("env"):
            c["env"] = [*(c.get("env") or []), *trainer["env"]]
        if trainer.get("resourcesPerNode"):
            c["resources"] = trainer["resourcesPerNode"]
    return spec


def _templates(obj: Obj, objects: Lookup) -> list[PodTemplate]:
    where, runtime = _runtime(obj, objects)
    rspec = runtime.get("spec") or {}
    jobset = (rspec.get("template") or {}).get("spec") or {}
    trainer = spec_of(obj).get("trainer") or {}
    patches = spec_of(obj).get("runtimePatches") or []
    nodes = count(trainer.get("numNodes"), count((rspec.get("mlPolicy") or {}).get("numNodes")))
    out = []
    rjs = jobset.get("replicatedJobs") or []
    for t, rj in zip(
        replicated_job_templates(jobset, f"{where}: spec.template.spec"), rjs, strict=True
    ):
        labels = ((rj.get("template") or {}).get("metadata") or {}).get("labels") or {}
        spec = _apply_patches(t.spec, str(rj.get("name")), patches)
        if labels.get(ANCESTOR_LABEL) == "trainer":
            role = f"trainer ({rj.get('name')})"
            out.append(
                PodTemplate(role, t.path, _trainer_container(spec, trainer), nodes, t.labels)
            )
        else:
            out.append(PodTemplate(t.role, t.path, spec, t.replicas, t.labels))
    return out


def _restart(obj: Obj, objects: Lookup) -> Restart:
    where, runtime = _runtime(obj, objects)
    jobset = ((runtime.get("spec") or {}).get("template") or {}).get("spec") or {}
    return jobset_restart(jobset, f"{where}: spec.template.spec")


def _deadline(obj: Obj, objects: Lookup) -> Deadline:
    own = spec_of(obj).get("activeDeadlineSeconds")
    if own:
        return Deadline("spec.activeDeadlineSeconds", own)
    where, runtime = _runtime(obj, objects)
    jobset = ((runtime.get("spec") or {}).get("template") or {}).get("spec") or {}
    found = jobset_deadline(jobset, f"{where}: spec.template.spec")
    return found if found.seconds else Deadline("spec.activeDeadlineSeconds", None)


TRAINJOB = Adapter(
    spec=kind_spec(
        "trainjobs.trainer.kubeflow.org", ("v1alpha1",), "TrainJob", project_trainjob, crd=True
    ),
    templates=_templates,
    restart=_restart,
    deadline=_deadline,
    finished=lambda obj: condition_true(obj, "Complete", "Failed"),
    extra_kinds=(
        kind_spec(
            CLUSTER_RUNTIMES,
            ("v1alpha1",),
            "ClusterTrainingRuntime",
            project_runtime,
            namespaced=False,
            crd=True,
        ),
        kind_spec(RUNTIMES, ("v1alpha1",), "TrainingRuntime", project_runtime, crd=True),
    ),
)
