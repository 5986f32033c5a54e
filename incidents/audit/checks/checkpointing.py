"""Checkpointing: time to save on SIGTERM, somewhere durable to save to, interruptible nodes."""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..k8s import Obj
from ..model import Check
from ..model import Evidence
from ..model import Reference
from ..model import Resource
from ..model import Result
from ..model import Setting
from ..projection.core import OBJECT_STORE
from ..wording import counted
from ..workloads.index import Workload
from ..workloads.walk import count
from .common import WORKLOAD_KINDS
from .common import Gap
from .common import Skip
from .common import fail
from .common import gap
from .common import name_of
from .common import not_applicable
from .common import passed
from .common import per_workload

DEFAULT_GRACE_SECONDS = 30
DURABLE_VOLUMES = frozenset(
    {
        "persistentVolumeClaim",
        "nfs",
        "csi",
        "cephfs",
        "glusterfs",
        "azureFile",
        "iscsi",
        "fc",
        "rbd",
    }
)
SPOT_LABELS = {
    "karpenter.sh/capacity-type": "spot",
    "eks.amazonaws.com/capacityType": "SPOT",
    "cloud.google.com/gke-spot": "true",
    "cloud.google.com/gke-preemptible": "true",
    "kubernetes.azure.com/scalesetpriority": "spot",
}


def grace(spec: Obj) -> int:
    value = spec.get("terminationGracePeriodSeconds")
    return DEFAULT_GRACE_SECONDS if value is None else int(value)


def durable_storage(spec: Obj) -> str | None:
    """What makes checkpoints durable for this pod spec, or None."""
    for v in spec.get("volumes") or []:
        kinds = sorted(set(v) & DURABLE_VOLUMES)
        if kinds:
            return f"volume {v.get('name')} ({kinds[0]})"
    for c in spec.get("containers") or []:
        # A snapshot keeps only the scheme of a checkpoint variable's object-store URL.
        for e in c.get("env") or []:
            if e.get("objectStore"):
                return (
                    f"object-store checkpoint path in env {e.get('name')} ({e['objectStore']}://)"
                )
        for word in [str(a) for a in (c.get("args") or []) + (c.get("command") or [])]:
            if OBJECT_STORE.search(word):
                return "object-store path in args"
    return None


def short_run(ctx: Context, w: Workload) -> Skip | None:
    """A run a restart cannot cost much: one GPU pod whose own deadline bounds it to
    ``short_run_seconds`` or less (an eval, a quantisation pass); rerunning it from the start
    loses at most that, so checkpointing is not asked of it. Gangs and unbounded runs are judged."""
    if sum(t.replicas for t in w.templates) > 1 or w.adapter is None or w.obj is None:
        return None
    if w.adapter.deadline is None:
        return None
    bound = w.adapter.deadline(w.obj, ctx.index)
    limit = int(ctx.param("short_run_seconds"))
    seconds = count(bound.seconds, 0)
    if 0 < seconds <= limit:
        return Skip(
            f"one GPU pod bounded by {bound.path} {seconds} (<= {limit} s): a rerun loses little"
        )
    return None


def grace_period(ctx: Context) -> Iterator[Result]:
    minimum = int(ctx.param("min_grace_seconds"))

    def judge(w: Workload) -> Gap | Skip | None:
        if (skip := short_run(ctx, w)) is not None:
            return skip
        evidence = []
        for t in w.templates:
            seconds = grace(t.spec)
            if seconds < minimum:
                observed = (
                    seconds if "terminationGracePeriodSeconds" in t.spec else f"unset ({seconds})"
                )
                evidence.append(
                    Evidence(f"{t.path}.terminationGracePeriodSeconds", observed, f">= {minimum}")
                )
        if not evidence:
            return None
        return gap("SIGKILL follows SIGTERM too soon to write a checkpoint", *evidence)

    yield from per_workload(
        ctx,
        judge,
        ok=f"GPU training workloads allow >= {minimum}s to checkpoint",
        none="no active GPU training workload",
        training=True,
    )


def checkpoint_volume(ctx: Context) -> Iterator[Result]:
    def judge(w: Workload) -> Gap | Skip | None:
        if (skip := short_run(ctx, w)) is not None:
            return skip
        evidence = []
        for t in w.templates:
            if not durable_storage(t.spec):
                kinds = sorted({k for v in t.spec.get("volumes") or [] for k in v if k != "name"})
                evidence.append(
                    Evidence(
                        f"{t.path}.volumes",
                        kinds or None,
                        "a PVC/NFS/CSI volume or an object-store path",
                    )
                )
        return gap("no durable place to write checkpoints", *evidence) if evidence else None

    yield from per_workload(
        ctx,
        judge,
        ok="GPU training workloads have durable checkpoint storage",
        none="no active GPU training workload",
        training=True,
    )


def spot_label(node: Obj) -> str | None:
    labels = (node.get("metadata") or {}).get("labels") or {}
    for key, value in SPOT_LABELS.items():
        if str(labels.get(key, "")).lower() == value.lower():
            return f"{key}={labels[key]}"
    return None


def spot_protection(ctx: Context) -> Iterator[Result]:
    spot = {name_of(n): spot_label(n) for n in ctx.gpu_nodes if spot_label(n)}
    if not spot:
        yield not_applicable("no spot or preemptible GPU nodes")
        return
    groups: dict[Resource, tuple[Obj, str]] = {}
    for pod in ctx.gpu_pods:
        node_name = str((pod.get("spec") or {}).get("nodeName") or "")
        if node_name not in spot or pod["status"].get("phase") in ("Succeeded", "Failed"):
            continue
        if not ctx.is_training_pod(pod):
            continue  # inference and notebooks do not checkpoint
        groups.setdefault(ctx.workload_of(pod), (pod, node_name))
    if not groups:
        yield not_applicable(f"no training pods on the {len(spot)} spot GPU nodes")
        return
    minimum = int(ctx.param("min_grace_seconds"))
    failed = 0
    for res, (pod, node_name) in sorted(groups.items(), key=lambda kv: kv[0].logical_name):
        spec = pod.get("spec") or {}
        evidence = []
        if grace(spec) < minimum:
            evidence.append(
                Evidence(
                    f"pods[{name_of(pod)}].spec.terminationGracePeriodSeconds",
                    grace(spec),
                    f">= {minimum}",
                )
            )
        if not durable_storage(spec):
            evidence.append(
                Evidence(
                    f"pods[{name_of(pod)}].spec.volumes",
                    "no durable volume",
                    "a PVC/NFS/CSI volume",
                )
            )
        if evidence:
            failed += 1
            evidence.insert(
                0,
                Evidence(
                    f"nodes[{node_name}].metadata.labels",
                    spot[node_name],
                    "on-demand node, or checkpoint protection",
                ),
            )
            yield fail(
                res, "GPU training on interruptible nodes without checkpoint protection", *evidence
            )
    if not failed:
        yield passed(
            f"{counted(len(groups), 'workload')} on spot GPU nodes can checkpoint on preemption"
        )


GRACE = Setting("min_grace_seconds", 120, "shortest terminationGracePeriodSeconds accepted")
SHORT_RUN = Setting(
    "short_run_seconds", 14400, "single-GPU-pod runs with a deadline this short are not judged"
)

_T3324 = Reference(
    "https://github.com/kubeflow/trainer/pull/3324",
    "Trainer: per-job grace period for JIT checkpoints",
)

CHECKS = [
    Check(
        id="CKPT-001",
        title="Grace period too short to checkpoint on SIGTERM",
        pass_title="Grace periods leave time to checkpoint on SIGTERM",
        severity="medium",
        category="checkpointing",
        reads=WORKLOAD_KINDS,
        cases=(
            "acme-seren-kalos-pretraining-failures",
            "bigscience-bloom176b-gpu-crash-hang",
            "meta-llama3-405b-interruptions",
        ),
        references=(
            _T3324,
            Reference(
                "https://github.com/petuum/adaptdl/issues/70",
                "AdaptDL: grace exceeded corrupts checkpoint",
            ),
        ),
        why=(
            "On drain, eviction or preemption the kubelet sends SIGTERM and kills the pod after "
            "terminationGracePeriodSeconds (30 s by default), too short to save the state of a "
            "large model; the work since the last periodic checkpoint is lost."
        ),
        remediation=(
            f"Set terminationGracePeriodSeconds to at least {GRACE.default} s (minutes for "
            "70B+ models) and save a checkpoint on SIGTERM, or a preStop hook that triggers one."
        ),
        confidence="definitive",
        func=grace_period,
        settings=(GRACE, SHORT_RUN),
    ),
    Check(
        id="CKPT-002",
        title="No durable checkpoint storage",
        pass_title="GPU training has durable checkpoint storage",
        severity="medium",
        category="checkpointing",
        reads=WORKLOAD_KINDS,
        cases=(
            "meta-opt175b-hardware-restarts",
            "ai2-olmo-lumi-bringup",
            "lablup-b200-checkpoint-io",
            "bytedance-byterobust-failure-characterization",
        ),
        references=(
            Reference(
                "https://arxiv.org/abs/2205.01068", "OPT: Open Pre-trained Transformer (restarts)"
            ),
        ),
        why=(
            "Every restart resumes from the last checkpoint. A checkpoint on emptyDir or hostPath "
            "dies with the pod or the node, so a hardware failure also loses the way back."
        ),
        remediation=(
            "Mount a PVC (ReadWriteMany for multi-node jobs) or NFS/CSI volume for checkpoints, or "
            "write them to object storage; test the restore path at full scale."
        ),
        confidence="heuristic",
        func=checkpoint_volume,
        settings=(SHORT_RUN,),
    ),
    Check(
        id="CKPT-003",
        title="GPU training on spot nodes without checkpoint protection",
        pass_title="GPU training on spot nodes can checkpoint on preemption",
        severity="high",
        category="checkpointing",
        reads=("nodes", "pods"),
        cases=("meta-opt175b-cloud-cluster-deletion", "meta-opt175b-hardware-restarts"),
        references=(
            Reference(
                "https://github.com/kubeflow/trainer/issues/1570",
                "Trainer: preemptible GKE nodes fail PyTorchJob",
            ),
            Reference(
                "https://github.com/chainer/chainer/issues/5383",
                "Chainer: checkpoint on preemption",
            ),
        ),
        why=(
            "Spot and preemptible capacity can vanish with a short notice. A training job there "
            "needs both time to save on SIGTERM and a durable place to save to, or each reclaim "
            "costs everything since the last checkpoint."
        ),
        remediation=(
            "Run long training on on-demand or reserved GPU nodes, or give the job a grace period "
            f">= {GRACE.default}s and a durable checkpoint volume and checkpoint on SIGTERM."
        ),
        confidence="definitive",
        func=spot_protection,
        settings=(GRACE,),
    ),
]
