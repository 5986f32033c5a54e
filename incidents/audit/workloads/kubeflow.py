"""Kubeflow training-operator jobs: PyTorchJob (kubeflow.org/v1) and MPIJob (v2beta1, v1).

Restart semantics, from the projects' API types and controllers:

- PyTorchJob replicas restart one pod at a time: ``OnFailure`` (the default) restarts the failed
  container in place and ``ExitCode`` recreates the failed pod, while every other rank stays in its
  collective until it times out. The whole gang restarts only through an elastic launcher: an
  ``elasticPolicy`` with ``maxRestarts`` (the operator passes it as ``PET_MAX_RESTARTS`` to
  torchrun) or torchrun started with ``--max-restarts`` > 0 (torchrun's default is 0).
- MPIJob v2beta1 runs ``mpirun`` in a launcher Job whose ``backoffLimit`` is
  ``runPolicy.backoffLimit`` (Kubernetes' default 6 when unset): each retry restarts every rank.
  MPIJob v1 (training-operator) restarts the launcher pod by its ``restartPolicy`` (default Never).
"""

from __future__ import annotations

import re
from typing import Any

from ..k8s import Obj
from ..k8s import container_gpus
from ..kindspec import kind_spec
from ..model import Evidence
from ..projection.core import pick
from ..projection.core import shaped
from ..projection.core import status_conditions
from ..projection.core import template
from .base import Adapter
from .base import Admission
from .base import Deadline
from .base import Lookup
from .base import PodTemplate
from .base import Restart
from .walk import count
from .walk import pod_template
from .walk import spec_of

JOB_NAME_LABEL = "training.kubeflow.org/job-name"
_LAUNCHER = re.compile(r"\b(torchrun|torch\.distributed\.(run|launch))\b")
_MAX_RESTARTS = re.compile(r"--max[-_]restarts(?:=|\s+)(\d+)")


def _replica_specs(specs: Any) -> Obj | None:
    if not isinstance(specs, dict):
        return None
    return {
        role: {
            **pick(rs, "replicas", "restartPolicy"),
            "template": template((rs or {}).get("template")),
        }
        for role, rs in specs.items()
    }


def project_kubeflow_job(obj: Obj) -> Obj:
    spec = obj.get("spec") or {}
    kept = pick(spec, "runPolicy", "elasticPolicy")
    for field in ("pytorchReplicaSpecs", "mpiReplicaSpecs"):
        if (roles := _replica_specs(spec.get(field))) is not None:
            kept[field] = roles
    # training-operator v1 MPIJob keeps runPolicy fields at the top level.
    kept.update(pick(spec, "activeDeadlineSeconds", "backoffLimit", "cleanPodPolicy"))
    status = {**status_conditions(obj), **pick(obj.get("status"), "startTime")}
    out = shaped(obj, kept, status)
    if obj.get("apiVersion"):
        out["apiVersion"] = obj["apiVersion"]
    return out


def _roles(obj: Obj, field: str) -> dict[str, Obj]:
    roles = spec_of(obj).get(field) or {}
    return dict(sorted(roles.items())) if isinstance(roles, dict) else {}


def _templates(field: str) -> Any:
    def walk(obj: Obj, objects: Lookup) -> list[PodTemplate]:
        return [
            pod_template(
                role,
                f"spec.{field}.{role}.template",
                rs.get("template"),
                count(rs.get("replicas")),
                rs.get("restartPolicy"),
            )
            for role, rs in _roles(obj, field).items()
        ]

    return walk


def _run_policy(obj: Obj) -> Obj:
    spec = spec_of(obj)
    policy = dict(spec.get("runPolicy") or {})
    for legacy in ("activeDeadlineSeconds", "backoffLimit"):
        if legacy in spec and legacy not in policy:
            policy[legacy] = spec[legacy]
    return policy


def _deadline(obj: Obj, objects: Lookup) -> Deadline:
    return Deadline(
        "spec.runPolicy.activeDeadlineSeconds", _run_policy(obj).get("activeDeadlineSeconds")
    )


def _admission(field: str) -> Any:
    def admission(obj: Obj) -> Admission | None:
        sched = _run_policy(obj).get("schedulingPolicy") or {}
        if sched.get("minAvailable") is None:
            return None
        roles = _roles(obj, field)
        total = sum(count(rs.get("replicas")) for rs in roles.values())
        elastic = spec_of(obj).get("elasticPolicy") or {}
        if isinstance(elastic, dict) and elastic.get("minReplicas") is not None:
            # An elastic job trains with minReplicas workers by design (torchrun
            # --nnodes=min:max), so its whole gang is that minimum plus the other roles.
            others = sum(count(rs.get("replicas")) for r, rs in roles.items() if r != "Worker")
            total = min(total, count(elastic["minReplicas"]) + others)
        return Admission(
            "spec.runPolicy.schedulingPolicy.minAvailable", count(sched["minAvailable"]), total
        )

    return admission


def _launcher_restarts(container: Obj) -> str | None:
    words = " ".join(
        str(w) for w in (container.get("command") or []) + (container.get("args") or [])
    )
    match = _MAX_RESTARTS.search(words) if _LAUNCHER.search(words) else None
    if match and int(match.group(1)) > 0:
        return f"torchrun --max-restarts={match.group(1)}"
    env = {str(e.get("name")): str(e.get("value", "")) for e in container.get("env") or []}
    value = env.get("PET_MAX_RESTARTS", "")
    if value.isdigit() and int(value) > 0:
        return f"PET_MAX_RESTARTS={value}"
    return None


def elastic_launcher(templates: list[PodTemplate], dra: bool = False) -> str | None:
    """``torchrun --max-restarts=N`` (N > 0), or PET_MAX_RESTARTS, in every GPU container."""
    found = None
    for t in templates:
        for c in t.spec.get("containers") or []:
            if not container_gpus(c, dra):
                continue
            hit = _launcher_restarts(c)
            if hit is None:
                return None
            found = hit
    return found


def _pytorch_restart(obj: Obj, objects: Lookup) -> Restart:
    spec = spec_of(obj)
    elastic = spec.get("elasticPolicy")
    if isinstance(elastic, dict) and count(elastic.get("maxRestarts"), 0) > 0:
        return Restart(True, f"elasticPolicy.maxRestarts={elastic['maxRestarts']} (torch elastic)")
    templates = _templates("pytorchReplicaSpecs")(obj, objects)
    policies = {t.role: t.restart_policy or "OnFailure" for t in templates}
    launcher = elastic_launcher(templates, bool(getattr(objects, "dra_gpus", False)))
    if launcher and "Never" not in policies.values():
        return Restart(True, f"elastic launcher ({launcher}) restarts every rank")
    backoff = _run_policy(obj).get("backoffLimit")
    evidence = (
        Evidence(
            "spec.pytorchReplicaSpecs.*.restartPolicy",
            policies,
            "an elastic launcher restarting every rank",
        ),
        Evidence("spec.elasticPolicy.maxRestarts", (elastic or {}).get("maxRestarts"), "> 0"),
        Evidence("spec.runPolicy.backoffLimit", backoff, "> 0"),
    )
    if all(p == "Never" for p in policies.values()) or backoff == 0:
        return Restart(
            False, "one failed worker fails the whole job and nothing restarts it", evidence
        )
    return Restart(
        False,
        "a failed worker restarts alone; the rest of the gang waits in its collective until a timeout",
        evidence,
    )


def _mpi_restart(obj: Obj, objects: Lookup) -> Restart:
    backoff = _run_policy(obj).get("backoffLimit")
    legacy = str(obj.get("apiVersion", "")).endswith("/v1")
    launcher = _roles(obj, "mpiReplicaSpecs").get("Launcher") or {}
    policy = launcher.get("restartPolicy") or "Never"
    evidence = [Evidence("spec.runPolicy.backoffLimit", backoff, "> 0")]
    if legacy and policy == "Never":
        evidence.insert(
            0, Evidence("spec.mpiReplicaSpecs.Launcher.restartPolicy", policy, "OnFailure")
        )
        return Restart(
            False, "the launcher is not restarted, so a failed rank fails the job", tuple(evidence)
        )
    if backoff is not None and count(backoff, 0) == 0:
        return Restart(
            False, "the launcher is never retried, so a failed rank fails the job", tuple(evidence)
        )
    limit = backoff if backoff is not None else "6 (default)"
    return Restart(True, f"the launcher retries mpirun on every rank (backoffLimit {limit})")


PYTORCHJOB = Adapter(
    spec=kind_spec(
        "pytorchjobs.kubeflow.org", ("v1",), "PyTorchJob", project_kubeflow_job, crd=True
    ),
    templates=_templates("pytorchReplicaSpecs"),
    gang_labels=(JOB_NAME_LABEL,),
    restart=_pytorch_restart,
    deadline=_deadline,
    admission=_admission("pytorchReplicaSpecs"),
)
MPIJOB = Adapter(
    spec=kind_spec(
        "mpijobs.kubeflow.org", ("v2beta1", "v1"), "MPIJob", project_kubeflow_job, crd=True
    ),
    templates=_templates("mpiReplicaSpecs"),
    gang_labels=(JOB_NAME_LABEL,),
    restart=_mpi_restart,
    deadline=_deadline,
    admission=_admission("mpiReplicaSpecs"),
)
