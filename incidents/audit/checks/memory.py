"""Host memory of GPU pods: limits, /dev/shm, and OOM kills that already happened."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

from ..context import Context
from ..k8s import Obj
from ..k8s import container_gpus
from ..k8s import parse_time
from ..k8s import spec_gpus
from ..model import Check
from ..model import Evidence
from ..model import Reference
from ..model import Result
from ..model import Setting
from ..workloads.index import Workload
from .common import REPLICATED_KINDS
from .common import WORKLOAD_KINDS
from .common import Gap
from .common import Skip
from .common import fail
from .common import gap
from .common import name_of
from .common import not_applicable
from .common import passed
from .common import per_workload


def memory_limits(ctx: Context) -> Iterator[Result]:
    def judge(w: Workload) -> Gap | None:
        evidence = [
            Evidence(f"{t.path}.containers[{i}].resources.limits.memory", None, "a memory limit")
            for t in w.templates
            for i, c in enumerate(t.spec.get("containers") or [])
            if container_gpus(c, ctx.dra_gpus)
            and not ((c.get("resources") or {}).get("limits") or {}).get("memory")
        ]
        return gap("GPU container has no memory limit", *evidence) if evidence else None

    yield from per_workload(
        ctx, judge, ok="GPU workloads set a memory limit on their GPU containers"
    )


def _shm_gap(path: str, spec: Obj, dra: bool) -> Evidence | None:
    volumes = {str(v.get("name")): v for v in spec.get("volumes") or []}
    for i, c in enumerate(spec.get("containers") or []):
        if not container_gpus(c, dra):
            continue
        mount = next(
            (m for m in c.get("volumeMounts") or [] if m.get("mountPath") == "/dev/shm"), None
        )
        vol = volumes.get(str(mount.get("name"))) if mount else None
        empty = (vol or {}).get("emptyDir")
        if empty is None or empty.get("medium") != "Memory":
            return Evidence(
                f"{path}.containers[{i}].volumeMounts[/dev/shm]",
                None,
                "an emptyDir {medium: Memory, sizeLimit} at /dev/shm",
            )
        if not empty.get("sizeLimit"):
            return Evidence(
                f"{path}.volumes[{vol.get('name') if vol else ''}].emptyDir.sizeLimit",
                None,
                "a sizeLimit",
            )
    return None


# Servers documented to pass tensors through /dev/shm even on one GPU: Triton's Python backend
# (https://github.com/triton-inference-server/python_backend#managing-shared-memory).
SHM_SERVERS = ("tritonserver",)


def _single_gpu_server(w: Workload, dra: bool) -> Skip | None:
    """Serving replicas (a Deployment or StatefulSet) with one GPU per pod: no NCCL peer in the
    pod (vLLM and PyTorch use /dev/shm for tensor parallelism) and no DataLoader workers as in
    training. Bare pods (a notebook) and jobs are judged: they may train. GPUs claimed through
    DRA are judged too: how many a claim holds is in its template, which kubegap does not read."""
    if w.key not in REPLICATED_KINDS or any(spec_gpus(t.spec) > 1 for t in w.templates):
        return None
    if dra and any(
        (c.get("resources") or {}).get("claims")
        for t in w.templates
        for c in t.spec.get("containers") or []
    ):
        return None
    images = [str(c.get("image", "")) for t in w.templates for c in t.spec.get("containers") or []]
    if any(word in i for i in images for word in SHM_SERVERS):
        return None
    return Skip("serves on one GPU per pod: no tensor-parallel peer or DataLoader workers")


def dev_shm(ctx: Context) -> Iterator[Result]:
    def judge(w: Workload) -> Gap | Skip | None:
        if (skip := _single_gpu_server(w, ctx.dra_gpus)) is not None:
            return skip
        found = [
            e for t in w.templates if (e := _shm_gap(t.path, t.spec, ctx.dra_gpus)) is not None
        ]
        if not found:
            return None
        unbounded = all(e.path.endswith("sizeLimit") for e in found)
        return gap(
            "/dev/shm is unbounded" if unbounded else "/dev/shm is the 64 MiB default", *found
        )

    yield from per_workload(ctx, judge, ok="GPU workloads mount a bounded in-memory /dev/shm")


def oom_history(ctx: Context) -> Iterator[Result]:
    pods = ctx.gpu_pods
    if not pods:
        yield not_applicable(f"no GPU pods{ctx.scope}")
        return
    days = float(ctx.param("oom_window_days"))
    window = timedelta(days=days)
    failed = 0
    for pod in pods:
        evidence = []
        for i, cs in enumerate(pod["status"].get("containerStatuses") or []):
            for part in ("state", "lastState"):
                term = (cs.get(part) or {}).get("terminated") or {}
                if term.get("reason") != "OOMKilled":
                    continue
                when = parse_time(term.get("finishedAt"))
                if when is not None and ctx.now - when > window:
                    continue
                evidence.append(
                    Evidence(
                        f"pods[{name_of(pod)}].status.containerStatuses[{i}].{part}.terminated.reason",
                        f"OOMKilled at {term.get('finishedAt')}, restarts {cs.get('restartCount', 0)}",
                        "no OOM kill",
                    )
                )
        if evidence:
            failed += 1
            yield fail(
                ctx.workload_of(pod),
                f"GPU pods were OOM-killed in the last {days:g} days",
                *evidence,
                members=[f"pod {name_of(pod)}"],
            )
    if not failed:
        yield passed(
            f"no OOM kill in the last {days:g} days among {len(pods)} GPU pods{ctx.scope}",
            not_seen=["OOM kills of pods already deleted (their status is gone)"],
        )


_PT13246 = Reference(
    "https://github.com/pytorch/pytorch/issues/13246",
    "PyTorch: DataLoader copy-on-access memory growth",
)

CHECKS = [
    Check(
        id="MEM-001",
        title="GPU containers without a memory limit",
        pass_title="GPU containers have a memory limit",
        severity="medium",
        category="memory",
        reads=WORKLOAD_KINDS,
        cases=(
            "acme-seren-kalos-pretraining-failures",
            "microsoft-philly-dl-job-failures",
            "bytedance-byterobust-failure-characterization",
        ),
        references=(
            _PT13246,
            Reference(
                "https://github.com/pytorch/torchtitan/issues/1663",
                "torchtitan: OOM with workers > 0",
            ),
        ),
        why=(
            "A DataLoader memory leak grows until the node runs out of memory; without a limit "
            "the kernel OOM killer picks victims on the whole node, including other ranks or the "
            "kubelet, instead of failing the leaking container."
        ),
        remediation=(
            "Set resources.limits.memory (equal to requests for Guaranteed QoS) on every GPU "
            "container; size it from measured peak use plus DataLoader workers."
        ),
        confidence="definitive",
        func=memory_limits,
    ),
    Check(
        id="MEM-002",
        title="/dev/shm missing or unbounded on GPU pods",
        pass_title="GPU pods mount a bounded /dev/shm",
        severity="medium",
        category="memory",
        reads=WORKLOAD_KINDS,
        cases=(
            "bigscience-bloom176b-eval-dataloader-deadlock",
            "acme-seren-kalos-pretraining-failures",
        ),
        references=(
            Reference(
                "https://github.com/pytorch/pytorch/issues/16979",
                "PyTorch: bus error, insufficient shared memory",
            ),
            Reference(
                "https://github.com/pytorch/pytorch/issues/108861",
                "PyTorch: DataLoader shared memory",
            ),
        ),
        why=(
            "Containers get a 64 MiB /dev/shm by default; DataLoader workers and NCCL then die "
            "with bus errors or hang. An in-memory emptyDir without sizeLimit fixes that but lets "
            "shared memory grow against the pod's memory unnoticed."
        ),
        remediation=(
            "Mount an emptyDir {medium: Memory, sizeLimit: <N>Gi} at /dev/shm in every GPU "
            "container, and count it in the memory limit."
        ),
        confidence="definitive",
        func=dev_shm,
    ),
    Check(
        id="MEM-003",
        title="GPU pods recently OOM-killed",
        pass_title="No GPU pod was OOM-killed recently",
        severity="high",
        category="memory",
        reads=("pods",),
        cases=(
            "microsoft-philly-dl-job-failures",
            "bytedance-byterobust-failure-characterization",
            "ai2-olmo-lumi-bringup",
        ),
        references=(
            _PT13246,
            Reference(
                "https://github.com/ZettaAI/zetta_utils/issues/524",
                "Memory-pressure eviction not retried",
            ),
        ),
        why=(
            "An OOM kill of a training rank stops the whole synchronous job. Kills that already "
            "happened are the evidence that a leak or undersized limit is costing restarts now."
        ),
        remediation=(
            "Find the growing process (DataLoader workers, host-side caches), fix the leak or "
            "raise the limit, and alert on container OOM kills of GPU pods."
        ),
        confidence="definitive",
        func=oom_history,
        settings=(Setting("oom_window_days", 7, "how far back an OOM kill counts"),),
    ),
]
