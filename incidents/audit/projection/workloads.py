"""Projection of job kinds: Job, CronJob, PyTorchJob/MPIJob, JobSet, Volcano Job."""

from __future__ import annotations

from typing import Any

from .core import Obj, _conditions, _prune, metadata, template


def _job_spec(spec: Any) -> Obj:
    spec = spec if isinstance(spec, dict) else {}
    return _prune(
        {
            "activeDeadlineSeconds": spec.get("activeDeadlineSeconds"),
            "backoffLimit": spec.get("backoffLimit"),
            "parallelism": spec.get("parallelism"),
            "completions": spec.get("completions"),
            "podFailurePolicy": spec.get("podFailurePolicy"),
            "template": template(spec.get("template")),
        }
    )


def _job_status(status: Any) -> Obj:
    status = status if isinstance(status, dict) else {}
    return _prune(
        {
            "conditions": _conditions(status.get("conditions")),
            "startTime": status.get("startTime"),
            "completionTime": status.get("completionTime"),
            "active": status.get("active"),
            "succeeded": status.get("succeeded"),
            "failed": status.get("failed"),
        }
    )


def job(obj: Obj) -> Obj:
    return {
        "metadata": metadata(obj),
        "spec": _job_spec(obj.get("spec")),
        "status": _job_status(obj.get("status")),
    }


def cronjob(obj: Obj) -> Obj:
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    job_template = spec.get("jobTemplate") or {}
    return {
        "metadata": metadata(obj),
        "spec": _prune(
            {
                "schedule": spec.get("schedule"),
                "suspend": spec.get("suspend"),
                "jobTemplate": {"spec": _job_spec(job_template.get("spec"))},
            }
        ),
        "status": _prune(
            {
                "lastScheduleTime": status.get("lastScheduleTime"),
                "lastSuccessfulTime": status.get("lastSuccessfulTime"),
            }
        ),
    }


def _replica_specs(specs: Any) -> Obj | None:
    if not isinstance(specs, dict):
        return None
    return {
        role: _prune(
            {
                "replicas": (rs or {}).get("replicas"),
                "restartPolicy": (rs or {}).get("restartPolicy"),
                "template": template((rs or {}).get("template")),
            }
        )
        for role, rs in specs.items()
    }


def kubeflow_job(obj: Obj) -> Obj:
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    out_spec: Obj = _prune(
        {
            "runPolicy": spec.get("runPolicy"),
            "elasticPolicy": spec.get("elasticPolicy"),
            "pytorchReplicaSpecs": _replica_specs(spec.get("pytorchReplicaSpecs")),
            "mpiReplicaSpecs": _replica_specs(spec.get("mpiReplicaSpecs")),
        }
    )
    # training-operator v1 MPIJob keeps runPolicy fields at the top level.
    for legacy in ("activeDeadlineSeconds", "backoffLimit", "cleanPodPolicy"):
        if legacy in spec:
            out_spec[legacy] = spec[legacy]
    return {
        "metadata": metadata(obj),
        "spec": out_spec,
        "status": _prune(
            {
                "conditions": _conditions(status.get("conditions")),
                "startTime": status.get("startTime"),
            }
        ),
    }


def jobset(obj: Obj) -> Obj:
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    return {
        "metadata": metadata(obj),
        "spec": _prune(
            {
                "failurePolicy": spec.get("failurePolicy"),
                "suspend": spec.get("suspend"),
                "replicatedJobs": [
                    _prune(
                        {
                            "name": rj.get("name"),
                            "replicas": rj.get("replicas"),
                            "template": {"spec": _job_spec((rj.get("template") or {}).get("spec"))},
                        }
                    )
                    for rj in spec.get("replicatedJobs") or []
                ],
            }
        ),
        "status": _prune(
            {
                "conditions": _conditions(status.get("conditions")),
                "restarts": status.get("restarts"),
            }
        ),
    }


def volcano_job(obj: Obj) -> Obj:
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    return {
        "metadata": metadata(obj),
        "spec": _prune(
            {
                "minAvailable": spec.get("minAvailable"),
                "maxRetry": spec.get("maxRetry"),
                "queue": spec.get("queue"),
                "policies": spec.get("policies"),
                "tasks": [
                    _prune(
                        {
                            "name": t.get("name"),
                            "replicas": t.get("replicas"),
                            "minAvailable": t.get("minAvailable"),
                            "policies": t.get("policies"),
                            "template": template(t.get("template")),
                        }
                    )
                    for t in spec.get("tasks") or []
                ],
            }
        ),
        "status": _prune({"state": status.get("state")}),
    }
