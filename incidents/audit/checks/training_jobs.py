"""Training jobs: hang bounds, NCCL watchdog, gang restart and gang admission.

Each workload kind's semantics (what bounds it, what restarts it, what admits it) come from its
adapter in :mod:`..workloads`; these checks only judge them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml

from ..context import Context
from ..k8s import Obj
from ..model import Check
from ..model import Evidence
from ..model import Reference
from ..model import Resource
from ..model import Result
from ..model import Setting
from ..workloads import ADAPTERS
from ..workloads.index import Workload
from ..workloads.kueue import KUEUE_WORKLOAD
from ..workloads.kueue import partial_admission
from .common import WORKLOAD_KINDS
from .common import Gap
from .common import Skip
from .common import env_value
from .common import gap
from .common import per_object
from .common import per_workload

DEADLINE_KINDS = tuple(k for a in ADAPTERS if a.deadline and a.training for k in a.reads)
RESTART_KINDS = tuple(k for a in ADAPTERS if a.restart for k in a.reads)
ADMISSION_KINDS = (*(k for a in ADAPTERS if a.admission for k in a.reads), "configmaps")


def _pods(w: Workload) -> int:
    return sum(t.replicas for t in w.templates)


def wall_clock(ctx: Context) -> Iterator[Result]:
    def judge(w: Workload) -> Gap | None:
        assert w.adapter is not None and w.adapter.deadline is not None and w.obj is not None
        deadline = w.adapter.deadline(w.obj, ctx.index)
        if deadline.seconds:
            return None
        return gap(
            f"{w.resource.kind} can run (or hang) forever",
            Evidence(deadline.path, None, "a deadline in seconds"),
        )

    yield from per_workload(
        ctx,
        judge,
        ok="active GPU training jobs have a wall-clock bound",
        none="no active GPU training job with a wall-clock field (Job, PyTorchJob, MPIJob, JobSet, "
        "TrainJob, Volcano Job, RayJob, Kueue Workload)",
        training=True,
        where=lambda w: w.adapter is not None and w.adapter.deadline is not None,
    )


# (variable, value that disables protection); HEARTBEAT handled separately.
WATCHDOG_OFF = (
    ("TORCH_NCCL_ENABLE_MONITORING", "0"),
    ("TORCH_NCCL_ASYNC_ERROR_HANDLING", "0"),
    ("NCCL_ASYNC_ERROR_HANDLING", "0"),
)


def nccl_watchdog(ctx: Context) -> Iterator[Result]:
    limit = int(ctx.param("max_heartbeat_seconds"))

    def judge(w: Workload) -> Gap | None:
        evidence: list[Evidence] = []
        for t in w.templates:
            for i, c in enumerate(t.spec.get("containers") or []):
                env = c.get("env") or []
                path = f"{t.path}.containers[{i}].env"
                for var, off in WATCHDOG_OFF:
                    if env_value(env, var) == off:
                        evidence.append(Evidence(f"{path}[{var}]", off, "unset or 1"))
                beat = env_value(env, "TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC")
                if beat and beat.isdigit() and int(beat) > limit:
                    evidence.append(
                        Evidence(f"{path}[TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC]", beat, f"<= {limit}")
                    )
        return gap("NCCL hang detection switched off", *evidence) if evidence else None

    yield from per_workload(ctx, judge, ok="GPU workloads keep the NCCL watchdog on (pod env)")


def gang_restart(ctx: Context) -> Iterator[Result]:
    def judge(w: Workload) -> Gap | Skip | None:
        assert w.adapter is not None and w.adapter.restart is not None and w.obj is not None
        verdict = w.adapter.restart(w.obj, ctx.index)
        if verdict.together is None:
            return Skip(verdict.how)
        return None if verdict.together else gap(verdict.how, *verdict.evidence)

    plain = sum(1 for w in ctx.workloads() if w.adapter is None or w.adapter.restart is None)
    yield from per_object(
        (
            (w.resource, w)
            for w in ctx.workloads()
            if w.adapter is not None and w.adapter.restart is not None and _pods(w) >= 2
        ),
        judge,
        ok="multi-pod GPU gangs restart as a whole when a member fails",
        none="no active multi-pod GPU gang (PyTorchJob, MPIJob, JobSet, TrainJob, Volcano Job, "
        "RayJob, LeaderWorkerSet)",
        members=lambda w: w.members,
        not_seen=[f"{plain} other GPU workloads (Jobs, Deployments, bare pods): no gang semantics"]
        if plain
        else [],
    )


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
    items: list[tuple[Resource, tuple[str, Any]]] = []
    for w in ctx.workloads():
        if w.adapter is not None and w.adapter.admission is not None:
            items.append((w.resource, ("workload", w)))
    # Kueue Workloads of listed jobs are judged through their job elsewhere, but partial
    # admission is a setting of the Workload itself.
    listed = {w.resource for w in ctx.workloads()}
    for obj in ctx.items(KUEUE_WORKLOAD.key):
        resource = ctx.ref(KUEUE_WORKLOAD.key, obj)
        if resource not in listed and not KUEUE_WORKLOAD.finished(obj):
            items.append((resource, ("kueue", obj)))
    for cm in ctx.items("configmaps"):
        config = _kueue_config(cm)
        if config is not None:
            items.append((ctx.ref("configmaps", cm), ("config", config)))

    def judge(item: tuple[str, Any]) -> Gap | Skip | None:
        what, value = item
        if what == "config":
            wait = value.get("waitForPodsReady") or {}
            if wait.get("enable"):
                return None
            return gap(
                "Kueue admits gangs without waiting for pods",
                Evidence("data.waitForPodsReady.enable", wait.get("enable"), True),
            )
        if what == "kueue":
            admission = partial_admission(value)
        else:
            assert value.adapter is not None and value.adapter.admission is not None
            admission = value.adapter.admission(value.obj)
        if admission is None:
            return Skip("no gang admission setting")
        if admission.min_available >= admission.total:
            return None
        return gap(
            "a partial gang can start and hold GPUs",
            Evidence(admission.path, admission.min_available, admission.total),
        )

    # Under --namespace the gangs of that namespace are judged whole; the Kueue configuration
    # (a ConfigMap in Kueue's own namespace) is not seen, and the pass says so.
    ns = ctx.snapshot.namespace
    yield from per_object(
        items,
        judge,
        ok="gang configurations require the whole gang",
        none="no gang-scheduled GPU job and no Kueue configuration found" + ctx.scope,
        not_seen=[f"the Kueue configuration outside namespace {ns} (--namespace)"] if ns else [],
    )


_T2072 = Reference(
    "https://github.com/kubeflow/trainer/issues/2072", "Trainer: failed nodes leave jobs hanging"
)

CHECKS = [
    Check(
        id="JOB-001",
        title="GPU training job without a wall-clock bound",
        pass_title="GPU training jobs have a wall-clock bound",
        severity="medium",
        category="training-jobs",
        reads=DEADLINE_KINDS,
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
        ),
        why=(
            "A hung multi-node job does not fail: without a deadline, no liveness signal and no "
            "hang detector it holds every GPU of the gang until a person notices, which took "
            "hours in the BLOOM run and needed round-the-clock watching."
        ),
        remediation=(
            "Set a bound above the expected run time: runPolicy.activeDeadlineSeconds (Kubeflow), "
            "spec.activeDeadlineSeconds (Job, TrainJob, RayJob, or the JobSet's child Jobs), "
            "maximumExecutionTimeSeconds (Kueue), and resubmit from the last checkpoint when it "
            "fires."
        ),
        confidence="definitive",
        func=wall_clock,
    ),
    Check(
        id="JOB-002",
        title="NCCL watchdog or async error handling switched off",
        pass_title="The NCCL watchdog and async error handling are on",
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
            ),
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
        settings=(
            Setting("max_heartbeat_seconds", 3600, "longest TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC"),
        ),
    ),
    Check(
        id="JOB-003",
        title="Gang does not restart as a whole when a member fails",
        pass_title="Gangs restart as a whole when a member fails",
        severity="high",
        category="training-jobs",
        reads=RESTART_KINDS,
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
            "enough that a restart from checkpoint fixes them, but only a restart of every rank: "
            "restartPolicy OnFailure or ExitCode restarts the failed pod alone while the others "
            "wait in their collective until a timeout. A job that fails for good on the first "
            "lost worker needs a person for each of the dozens of restarts a long run sees."
        ),
        remediation=(
            "JobSet (and Trainer v2 runtimes): set failurePolicy.maxRestarts. PyTorchJob: an "
            "elasticPolicy with maxRestarts, or torchrun --max-restarts, so torch elastic restarts "
            "every rank. MPIJob: runPolicy.backoffLimit > 0. Volcano: a policy PodFailed/PodEvicted "
            "-> RestartJob with maxRetry > 0. RayJob: backoffLimit > 0. LeaderWorkerSet: "
            "restartPolicy RecreateGroupOnPodRestart."
        ),
        confidence="definitive",
        func=gang_restart,
    ),
    Check(
        id="JOB-004",
        title="Gang admission lets a partial gang hold GPUs",
        pass_title="Gang admission waits for the whole gang",
        severity="medium",
        category="scheduling",
        reads=ADMISSION_KINDS,
        cases=("microsoft-philly-dl-job-failures", "ai2-olmo-lumi-bringup"),
        references=(
            Reference(
                "https://github.com/kubeflow/trainer/issues/1282", "Trainer: pods pending forever"
            ),
            Reference(
                "https://kueue.sigs.k8s.io/docs/tasks/manage/setup_wait_for_pods_ready/",
                "Kueue: waitForPodsReady",
            ),
        ),
        why=(
            "A gang that starts with fewer pods than it needs cannot train, yet its running pods "
            "hold GPUs that other gangs need; two half-started gangs can deadlock a cluster."
        ),
        remediation=(
            "Set minAvailable to the full replica count (schedulingPolicy / Volcano), drop Kueue "
            "partial admission (podSets minCount) for gangs, and enable Kueue waitForPodsReady "
            "with a timeout and requeuing."
        ),
        confidence="definitive",
        func=gang_admission,
    ),
]
