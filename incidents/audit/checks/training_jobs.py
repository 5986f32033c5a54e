"""Training jobs: hang bounds, NCCL watchdog, gang restart and gang admission."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml

from ..context import WORKLOAD_KINDS, Context, is_finished, spec_gpus
from ..model import Check, Evidence, Reference, Result, fail, not_applicable, passed
from ..projection import Obj
from .common import env_value

KUBEFLOW = (
    ("pytorchjobs.kubeflow.org", "pytorchReplicaSpecs"),
    ("mpijobs.kubeflow.org", "mpiReplicaSpecs"),
)
JOBSETS = "jobsets.jobset.x-k8s.io"
VOLCANO = "jobs.batch.volcano.sh"


def _replicas(spec: Obj) -> int:
    value = spec.get("replicas")
    return 1 if value is None else int(value)


def _roles(job: Obj, field: str) -> dict[str, Obj]:
    return dict((job.get("spec") or {}).get(field) or {})


def _gpu_kubeflow(ctx: Context) -> Iterator[tuple[str, Obj, dict[str, Obj]]]:
    for key, field in KUBEFLOW:
        for job in ctx.items(key):
            roles = _roles(job, field)
            if is_finished(job):
                continue
            if any(spec_gpus((r.get("template") or {}).get("spec") or {}) for r in roles.values()):
                yield key, job, roles


def _gpu_jobsets(ctx: Context) -> Iterator[tuple[int, Obj, list[Obj]]]:
    for js in ctx.items(JOBSETS):
        rjs = (js.get("spec") or {}).get("replicatedJobs") or []
        if not is_finished(js) and any(
            spec_gpus(
                ((rj.get("template") or {}).get("spec") or {}).get("template", {}).get("spec") or {}
            )
            for rj in rjs
        ):
            yield len(rjs), js, rjs


def _gpu_volcano(ctx: Context) -> Iterator[Obj]:
    for vj in ctx.items(VOLCANO):
        tasks = (vj.get("spec") or {}).get("tasks") or []
        if not is_finished(vj) and any(
            spec_gpus((t.get("template") or {}).get("spec") or {}) for t in tasks
        ):
            yield vj


def wall_clock(ctx: Context) -> Iterator[Result]:
    examined = failed = 0
    expected = "a deadline in seconds"
    for key, job, _roles in _gpu_kubeflow(ctx):
        examined += 1
        spec = job.get("spec") or {}
        deadline = (spec.get("runPolicy") or {}).get("activeDeadlineSeconds") or spec.get(
            "activeDeadlineSeconds"
        )
        if not deadline:
            failed += 1
            yield fail(ctx.ref(key, job), "training job can run (or hang) forever",
                       Evidence("spec.runPolicy.activeDeadlineSeconds", None, expected))  # fmt: skip
    for job in ctx.items("jobs.batch"):
        spec = job.get("spec") or {}
        tpl_spec = (spec.get("template") or {}).get("spec") or {}
        owners = job["metadata"].get("ownerReferences") or []
        if (
            is_finished(job)
            or not spec_gpus(tpl_spec)
            or any(o.get("kind") == "JobSet" for o in owners)
        ):
            continue
        examined += 1
        if not spec.get("activeDeadlineSeconds") and not tpl_spec.get("activeDeadlineSeconds"):
            failed += 1
            yield fail(ctx.ref("jobs.batch", job), "GPU Job can run (or hang) forever",
                       Evidence("spec.activeDeadlineSeconds", None, expected))  # fmt: skip
    for _n, js, rjs in _gpu_jobsets(ctx):
        examined += 1
        if not any(
            ((rj.get("template") or {}).get("spec") or {}).get("activeDeadlineSeconds")
            for rj in rjs
        ):
            failed += 1
            yield fail(ctx.ref(JOBSETS, js), "JobSet can run (or hang) forever",
                       Evidence("spec.replicatedJobs[*].template.spec.activeDeadlineSeconds", None,
                                expected))  # fmt: skip
    if not examined:
        yield not_applicable("no active GPU training job (PyTorchJob, MPIJob, JobSet, Job)")
    elif not failed:
        yield passed(f"{examined} active GPU training jobs have a wall-clock bound")


# (variable, value that disables protection); HEARTBEAT handled separately.
WATCHDOG_OFF = (
    ("TORCH_NCCL_ENABLE_MONITORING", "0"),
    ("TORCH_NCCL_ASYNC_ERROR_HANDLING", "0"),
    ("NCCL_ASYNC_ERROR_HANDLING", "0"),
)
MAX_HEARTBEAT_SECONDS = 3600


def nccl_watchdog(ctx: Context) -> Iterator[Result]:
    workloads = ctx.workloads()  # NCCL settings matter wherever they are set
    if not workloads:
        yield not_applicable("no active GPU workload")
        return
    failed = 0
    for w in workloads:
        evidence: list[Evidence] = []
        for i, c in enumerate(w.spec.get("containers") or []):
            env = c.get("env") or []
            for var, off in WATCHDOG_OFF:
                if env_value(env, var) == off:
                    evidence.append(
                        Evidence(f"{w.path}.containers[{i}].env[{var}]", off, "unset or 1")
                    )
            beat = env_value(env, "TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC")
            if beat and beat.isdigit() and int(beat) > MAX_HEARTBEAT_SECONDS:
                evidence.append(Evidence(f"{w.path}.containers[{i}].env[TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC]",
                                         beat, f"<= {MAX_HEARTBEAT_SECONDS}"))  # fmt: skip
        if evidence:
            failed += 1
            yield fail(w.resource, "NCCL hang detection switched off", *evidence)
    if not failed:
        yield passed(f"no NCCL watchdog override in the env of {len(workloads)} GPU workloads")


def _restart_events(policies: Any) -> set[str]:
    return {
        str(p.get("event") or "") for p in policies or []
        if p.get("action") in ("RestartJob", "RestartTask", "RestartPod")
    } | {
        str(e) for p in policies or [] if p.get("action") in ("RestartJob", "RestartTask")
        for e in p.get("events") or []
    }  # fmt: skip


def gang_restart(ctx: Context) -> Iterator[Result]:
    examined = failed = 0
    for key, job, roles in _gpu_kubeflow(ctx):
        total = sum(_replicas(r) for r in roles.values())
        if total < 2:
            continue
        examined += 1
        spec = job.get("spec") or {}
        backoff = (spec.get("runPolicy") or {}).get("backoffLimit", spec.get("backoffLimit"))
        # Unset means the operator's default (OnFailure for PyTorchJob): only an explicit Never counts.
        policies = {role: r.get("restartPolicy") for role, r in sorted(roles.items())}
        if spec.get("elasticPolicy"):
            continue
        if all(p == "Never" for p in policies.values()) or backoff == 0:
            failed += 1
            yield fail(
                ctx.ref(key, job),
                "one failed worker fails the whole gang and nothing restarts it",
                Evidence("spec.*ReplicaSpecs.*.restartPolicy", policies, "OnFailure or ExitCode"),
                Evidence("spec.runPolicy.backoffLimit", backoff, "> 0"),
            )
    for _n, js, _rjs in _gpu_jobsets(ctx):
        examined += 1
        policy = (js.get("spec") or {}).get("failurePolicy") or {}
        if not policy.get("maxRestarts"):
            failed += 1
            yield fail(ctx.ref(JOBSETS, js), "any failure fails the JobSet without a restart",
                       Evidence("spec.failurePolicy.maxRestarts", policy.get("maxRestarts"), "> 0"))  # fmt: skip
    for vj in _gpu_volcano(ctx):
        examined += 1
        spec = vj.get("spec") or {}
        events = _restart_events(spec.get("policies"))
        for t in spec.get("tasks") or []:
            events |= _restart_events(t.get("policies"))
        if not events & {"PodEvicted", "PodFailed", "*"}:
            failed += 1
            yield fail(ctx.ref(VOLCANO, vj), "an evicted or failed pod does not restart the gang",
                       Evidence("spec.policies", sorted(events) or None,
                                "PodEvicted/PodFailed -> RestartJob"))  # fmt: skip
    if not examined:
        yield not_applicable("no active multi-pod GPU training job")
    elif not failed:
        yield passed(f"{examined} multi-pod GPU training jobs restart as a gang")


def _kueue_config(cm: Obj) -> dict[str, Any] | None:
    for value in (cm.get("data") or {}).values():
        try:
            parsed = yaml.safe_load(value)
        except yaml.YAMLError:
            continue
        if isinstance(parsed, dict) and "config.kueue.x-k8s.io" in str(parsed.get("apiVersion")):
            return parsed
    return None


def gang_admission(ctx: Context) -> Iterator[Result]:
    examined = failed = 0
    for key, job, roles in _gpu_kubeflow(ctx):
        sched = ((job.get("spec") or {}).get("runPolicy") or {}).get("schedulingPolicy") or {}
        if "minAvailable" not in sched:
            continue
        examined += 1
        total = sum(_replicas(r) for r in roles.values())
        if int(sched["minAvailable"]) < total:
            failed += 1
            yield fail(ctx.ref(key, job), "a partial gang can start and hold GPUs",
                       Evidence("spec.runPolicy.schedulingPolicy.minAvailable", sched["minAvailable"],
                                total))  # fmt: skip
    for vj in _gpu_volcano(ctx):
        examined += 1
        spec = vj.get("spec") or {}
        total = sum(_replicas(t) for t in spec.get("tasks") or [])
        # Volcano defaults minAvailable to the sum of task replicas.
        if spec.get("minAvailable") is not None and int(spec["minAvailable"]) < total:
            failed += 1
            yield fail(ctx.ref(VOLCANO, vj), "a partial gang can start and hold GPUs",
                       Evidence("spec.minAvailable", spec.get("minAvailable"), total))  # fmt: skip
    for cm in ctx.items("configmaps"):
        config = _kueue_config(cm)
        if config is None:
            continue
        examined += 1
        wait = config.get("waitForPodsReady") or {}
        if not wait.get("enable"):
            failed += 1
            yield fail(ctx.ref("configmaps", cm), "Kueue admits gangs without waiting for pods",
                       Evidence("data.waitForPodsReady.enable", wait.get("enable"), True))  # fmt: skip
    if not examined:
        yield not_applicable("no gang-scheduled GPU job and no Kueue configuration found")
    elif not failed:
        yield passed(f"{examined} gang configurations require the whole gang")


_T2072 = Reference(
    "https://github.com/kubeflow/trainer/issues/2072", "Trainer: failed nodes leave jobs hanging"
)

CHECKS = [
    Check(
        id="JOB-001",
        title="GPU training job without a wall-clock bound",
        severity="medium",
        category="training-jobs",
        reads=("pytorchjobs.kubeflow.org", "mpijobs.kubeflow.org", JOBSETS, "jobs.batch"),
        cases=(
            "bigscience-bloom176b-gpu-crash-hang",
            "bigscience-bloom176b-eval-dataloader-deadlock",
            "acme-seren-kalos-pretraining-failures",
        ),
        references=(
            _T2072,
            Reference(
                "https://github.com/kubeflow/trainer/issues/1641",
                "Trainer: activeDeadlineSeconds and PyTorchJob startTime",
            ),
        ),  # fmt: skip
        why=(
            "A hung multi-node job does not fail: without a deadline, no liveness signal and no "
            "hang detector it holds every GPU of the gang until a person notices, which took "
            "hours in the BLOOM run and needed round-the-clock watching."
        ),
        remediation=(
            "Set runPolicy.activeDeadlineSeconds (Kubeflow), spec.activeDeadlineSeconds (Job, or "
            "the JobSet's child Jobs) to a bound above the expected run time, and resubmit from "
            "the last checkpoint when it fires."
        ),
        confidence="definitive",
        func=wall_clock,
    ),
    Check(
        id="JOB-002",
        title="NCCL watchdog or async error handling switched off",
        severity="high",
        category="training-jobs",
        reads=WORKLOAD_KINDS,
        cases=(
            "bigscience-bloom176b-gpu-crash-hang",
            "meta-llama3-405b-interruptions",
        ),
        references=(
            Reference(
                "https://github.com/pytorch/pytorch/issues/46874",
                "PyTorch RFC: DDP routinely hangs",
            ),
            Reference(
                "https://docs.pytorch.org/docs/stable/torch_nccl_environment_variables.html",
                "PyTorch NCCL environment variables",
            ),  # fmt: skip
        ),
        why=(
            "PyTorch's NCCL watchdog and async error handling turn a stuck collective into a crash "
            "that the job controller can restart. Switched off, a dead peer leaves every other rank "
            "waiting forever; BLOOM set NCCL_ASYNC_ERROR_HANDLING=1 for exactly this reason."
        ),
        remediation=(
            "Remove TORCH_NCCL_ENABLE_MONITORING=0 and *_ASYNC_ERROR_HANDLING=0 from the job env; "
            "keep TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC at minutes, not hours. Only env set in the pod "
            "spec is visible here; check the image and launcher too."
        ),
        confidence="heuristic",
        func=nccl_watchdog,
    ),
    Check(
        id="JOB-003",
        title="Gang job does not restart after a worker fails",
        severity="high",
        category="training-jobs",
        reads=("pytorchjobs.kubeflow.org", "mpijobs.kubeflow.org", JOBSETS, VOLCANO),
        cases=(
            "meta-opt175b-hardware-restarts",
            "alibaba-unicron-failure-taxonomy",
            "meta-ft-hsdp-100k-gpu",
            "microsoft-philly-dl-job-failures",
        ),
        references=(
            Reference(
                "https://github.com/kubeflow/trainer/issues/2269", "Trainer: all pods must restart"
            ),
            Reference(
                "https://github.com/kubeflow/trainer/issues/1570",
                "Trainer: graceful node shutdown fails the job",
            ),
        ),
        why=(
            "Synchronous training stops when any worker fails, and most failures are transient "
            "enough that a restart from checkpoint fixes them. A job that fails for good on the "
            "first lost worker needs a person for each of the dozens of restarts a long run sees."
        ),
        remediation=(
            "JobSet: set failurePolicy.maxRestarts. Kubeflow: use restartPolicy OnFailure/ExitCode "
            "with runPolicy.backoffLimit > 0, or elasticPolicy with torchrun. Volcano: add a "
            "policy PodEvicted/PodFailed -> RestartJob and a maxRetry."
        ),
        confidence="definitive",
        func=gang_restart,
    ),
    Check(
        id="JOB-004",
        title="Gang admission lets a partial gang hold GPUs",
        severity="medium",
        category="scheduling",
        reads=("pytorchjobs.kubeflow.org", "mpijobs.kubeflow.org", VOLCANO, "configmaps"),
        cases=("microsoft-philly-dl-job-failures", "ai2-olmo-lumi-bringup"),
        references=(
            Reference(
                "https://github.com/kubeflow/trainer/issues/1282", "Trainer: pods pending forever"
            ),
            Reference(
                "https://kueue.sigs.k8s.io/docs/tasks/manage/setup_wait_for_pods_ready/",
                "Kueue: waitForPodsReady",
            ),  # fmt: skip
        ),
        why=(
            "A gang that starts with fewer pods than it needs cannot train, yet its running pods "
            "hold GPUs that other gangs need; two half-started gangs can deadlock a cluster."
        ),
        remediation=(
            "Set minAvailable to the full replica count (schedulingPolicy / Volcano), and enable "
            "Kueue waitForPodsReady with a timeout and requeuing."
        ),
        confidence="definitive",
        func=gang_admission,
        cluster_wide=True,
    ),
]
