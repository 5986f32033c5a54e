"""GPU devices: does every GPU show up, are device health checks on, are pods on unhealthy GPUs?"""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..k8s import DRA_GPU_PLUGIN_IMAGES
from ..k8s import MIG_STATE_LABEL
from ..k8s import UPGRADE_STATE_LABEL
from ..k8s import Obj
from ..k8s import driver_reloading
from ..k8s import is_gpu_resource
from ..k8s import mig_reconfiguring
from ..k8s import node_gpus
from ..k8s import not_ready
from ..k8s import parse_time
from ..k8s import quantity
from ..model import Check
from ..model import Evidence
from ..model import Reference
from ..model import Resource
from ..model import Result
from .common import Gap
from .common import Skip
from .common import env_value
from .common import fail
from .common import gap
from .common import name_of
from .common import not_applicable
from .common import not_evaluated
from .common import passed
from .common import per_node
from .common import per_object

# MIG mixed strategy: one resource, and one GPU feature discovery count label, per MIG profile.
MIG_PREFIX = "nvidia.com/mig-"


def _gpu_resources(node: Obj, field: str) -> dict[str, float]:
    values = (node.get("status") or {}).get(field) or {}
    return {str(k): quantity(v) for k, v in values.items() if is_gpu_resource(str(k))}


def _mig_counts(node: Obj) -> dict[str, float]:
    """MIG resources GPU feature discovery counts on a mixed-strategy node, from its
    ``nvidia.com/mig-<profile>.count`` labels."""
    labels = node["metadata"].get("labels") or {}
    return {
        k.removesuffix(".count"): quantity(v)
        for k, v in labels.items()
        if k.startswith(MIG_PREFIX) and k.endswith(".count")
    }


def _uses_mig(node: Obj) -> bool:
    """Some of the node's GPUs are MIG slices: its GPU counts are not comparable to full GPUs."""
    labels = node["metadata"].get("labels") or {}
    return (
        any(k.startswith(MIG_PREFIX) for k in _gpu_resources(node, "capacity"))
        or any(v > 0 for v in _mig_counts(node).values())
        or "-MIG-" in str(labels.get("nvidia.com/gpu.product", ""))
    )


def missing_gpus(ctx: Context) -> Iterator[Result]:
    ready = [n for n in ctx.gpu_nodes if not_ready(n) is None]
    for node in ctx.gpu_nodes:
        status = not_ready(node)
        if status is not None:
            yield not_evaluated(
                ctx.ref("nodes", node),
                "node is NotReady: until its kubelet and device plugin report, its GPU count says "
                "nothing (NODE-001 judges the pods on it)",
                Evidence("status.conditions[Ready].status", status, "True"),
            )
    pools: dict[tuple[str, str], float] = {}
    for node in ready:
        pool = _pool(node)
        if pool[1] and not _uses_mig(node):
            pools[pool] = max(pools.get(pool, 0.0), node_gpus(node))

    def judge(node: Obj) -> Gap | Skip | None:
        labels = node["metadata"].get("labels") or {}
        reloading = driver_reloading(node)
        if reloading:
            return Skip(
                f"its driver is being reloaded by the GPU Operator's upgrade controller "
                f"({UPGRADE_STATE_LABEL}={reloading}, cordoned): its GPUs are allocatable again "
                "once the new driver is validated (upgrade-failed is judged)"
            )
        mig = mig_reconfiguring(node)
        if mig:
            return Skip(
                f"the GPU Operator's MIG manager is applying a new MIG geometry "
                f"({MIG_STATE_LABEL}={mig}): its GPUs are allocatable again once the new slices "
                "are advertised (failed is judged)"
            )
        capacity = _gpu_resources(node, "capacity")
        allocatable = _gpu_resources(node, "allocatable")
        evidence: list[Evidence] = []
        for name, total in sorted(capacity.items()):
            if allocatable.get(name, 0.0) < total:
                evidence.append(
                    Evidence(f'status.allocatable["{name}"]', allocatable.get(name, 0.0), total)
                )
        for name, labelled in sorted(_mig_counts(node).items()):
            if labelled > capacity.get(name, 0.0):
                evidence.append(
                    Evidence(f'status.capacity["{name}"]', capacity.get(name, 0.0), labelled)
                )
        full = node_gpus(node)
        # the whole-GPU resource the node advertises (nvidia.com/gpu.shared when time-slicing renames it)
        whole = f'status.capacity["{next(iter(sorted(capacity)), "nvidia.com/gpu")}"]'
        labelled = quantity(labels.get("nvidia.com/gpu.count"))
        if not _uses_mig(node) and "nvidia.com/gpu.count" in labels and labelled > full:
            evidence.append(Evidence(whole, full, labelled))
        pool = _pool(node)
        if pool in pools and not _uses_mig(node) and full < pools[pool] and not evidence:
            evidence.append(Evidence(whole, full, pools[pool]))
        if not any(capacity.values()):
            starting = _not_yet_initialized(ctx, node) or _dra_gpus(ctx, node)
            if starting:
                return Skip(starting)
        if evidence:
            return gap("node advertises fewer GPUs than it has", *evidence)
        if not any(capacity.values()) and "nvidia.com/gpu.count" not in labels:
            return Skip(
                "advertises no GPU resource and nothing gives its count (device plugin not "
                "registered, or GPUs offered through DRA); see PRE-002"
            )
        return None

    yield from per_node(
        ctx,
        judge,
        ok="GPU nodes advertise their full GPU count (MIG slices against their labelled count)",
        none="no Ready GPU node",
        nodes=ready,
    )


# Karpenter labels a node initialized once its extended resources have registered
# (https://karpenter.sh/docs/concepts/disruption/); one younger than this is still starting.
STARTING_SECONDS = 15 * 60


def _dra_gpus(ctx: Context, node: Obj) -> str | None:
    """Why the node's GPUs are not counted in its resources: a GPU DRA kubelet plugin runs there."""
    for pod in ctx.pods_by_node.get(name_of(node), []):
        for c in (pod.get("spec") or {}).get("containers") or []:
            image = str(c.get("image", ""))
            if any(word in image for word in DRA_GPU_PLUGIN_IMAGES):
                return (
                    f"GPUs offered through DRA (kubelet plugin {image.rsplit('/', 1)[-1]}): they "
                    "are ResourceSlice devices, not an extended resource, and kubegap does not read "
                    "ResourceSlices"
                )
    return None


def _not_yet_initialized(ctx: Context, node: Obj) -> str | None:
    """Why a Karpenter node is still starting: registered, not initialized, and new."""
    meta = node["metadata"]
    labels = meta.get("labels") or {}
    if "karpenter.sh/nodepool" not in labels or labels.get("karpenter.sh/initialized") == "true":
        return None
    created = parse_time(meta.get("creationTimestamp"))
    if created is not None and (ctx.now - created).total_seconds() > STARTING_SECONDS:
        return None
    return (
        "Karpenter has not initialized it yet (no karpenter.sh/initialized label: its GPU "
        "resources have not registered); judged once it is, or after 15 minutes"
    )


def _pool(node: Obj) -> tuple[str, str]:
    """Nodes expected to have the same GPUs: one GPU product label (or none) on one cloud
    instance type, which fixes the GPU count (a time-sliced node's product ends in -SHARED)."""
    labels = node["metadata"].get("labels") or {}
    return (
        labels.get("nvidia.com/gpu.product", ""),
        labels.get("node.kubernetes.io/instance-type", ""),
    )


def _healthchecks_off(env: list[Obj]) -> str | None:
    value = env_value(env, "DP_DISABLE_HEALTHCHECKS")
    return value if value and value.strip().lower() not in ("", "none") else None


def plugin_healthchecks(ctx: Context) -> Iterator[Result]:
    def plugins() -> Iterator[tuple[Resource, tuple[str, list[Obj]]]]:
        for ds in ctx.items("daemonsets.apps"):
            containers = ((ds.get("spec") or {}).get("template") or {}).get("spec", {}).get(
                "containers"
            ) or []
            for i, c in enumerate(containers):
                if "device-plugin" in str(c.get("image", "")):
                    path = f"spec.template.spec.containers[{i}].env[DP_DISABLE_HEALTHCHECKS]"
                    yield ctx.ref("daemonsets.apps", ds), (path, c.get("env") or [])
        for cp in ctx.items("clusterpolicies.nvidia.com"):
            plugin = (cp.get("spec") or {}).get("devicePlugin") or {}
            path = "spec.devicePlugin.env[DP_DISABLE_HEALTHCHECKS]"
            yield ctx.ref("clusterpolicies.nvidia.com", cp), (path, plugin.get("env") or [])

    def judge(item: tuple[str, list[Obj]]) -> Gap | None:
        path, env = item
        value = _healthchecks_off(env)
        if value is None:
            return None
        return gap("device plugin has GPU health checks disabled", Evidence(path, value, "unset"))

    yield from per_object(
        plugins(),
        judge,
        ok="device-plugin configurations keep GPU health checks on",
        none="no NVIDIA device plugin DaemonSet or ClusterPolicy found",
    )


def unhealthy_devices(ctx: Context) -> Iterator[Result]:
    minor = ctx.server_minor
    if minor is not None and minor < 31:
        yield not_applicable(f"API server 1.{minor} does not report device health (KEP-4680)")
        return
    reporting = failed = 0
    for pod in ctx.gpu_pods:
        if (pod.get("status") or {}).get("phase") != "Running":
            continue
        for i, cs in enumerate(pod["status"].get("containerStatuses") or []):
            for j, res in enumerate(cs.get("allocatedResourcesStatus") or []):
                reporting += 1
                bad = [
                    r.get("resourceID")
                    for r in res.get("resources") or []
                    if r.get("health") == "Unhealthy"
                ]
                if bad:
                    failed += 1
                    yield fail(
                        ctx.workload_of(pod),
                        "running pods are bound to GPUs reported unhealthy",
                        Evidence(
                            f"pods[{name_of(pod)}].status.containerStatuses[{i}].allocatedResourcesStatus[{j}]",
                            {"name": res.get("name"), "unhealthy": bad},
                            "all devices Healthy",
                        ),
                        members=[f"pod {name_of(pod)}"],
                    )
    if not reporting:
        yield not_applicable(
            f"no running GPU pod{ctx.scope} reports device health (allocatedResourcesStatus)"
        )
    elif not failed:
        yield passed(f"{reporting} reported GPU allocations{ctx.scope} are healthy")


CHECKS = [
    Check(
        id="GPU-003",
        title="GPU node advertises fewer GPUs than it has",
        pass_title="GPU nodes advertise all the GPUs they have",
        severity="high",
        category="gpu-health",
        reads=("nodes",),
        cases=(
            "meta-rsc-reliability-study",
            "meta-opt175b-hardware-restarts",
            "ai2-olmo-lumi-bringup",
        ),
        references=(
            Reference(
                "https://github.com/aws/eks-node-monitoring-agent/pull/94",
                "EKS agent: GPU count mismatch made fatal (XID 79)",
            ),
            Reference(
                "https://docs.azure.cn/en-us/aks/gpu-health-monitoring",
                "AKS GPU health: GPUMissing",
            ),
        ),
        why=(
            "A GPU that fell off the bus (XID 79) or was marked unhealthy silently shrinks the "
            "node: allocatable drops below capacity, or capacity below what the hardware label "
            "says. Multi-GPU jobs then fail to schedule or land on a degraded host."
        ),
        remediation=(
            "Drain the node and check `nvidia-smi`/kernel logs for XID 79 or uncorrectable ECC; "
            "reset or replace the GPU. Alert on allocatable < capacity for nvidia.com/gpu (and "
            "each nvidia.com/mig-<profile> on MIG nodes)."
        ),
        confidence="definitive",
        func=missing_gpus,
    ),
    Check(
        id="GPU-004",
        title="Device-plugin GPU health checks disabled",
        pass_title="Device-plugin GPU health checks are on",
        severity="high",
        category="gpu-health",
        reads=("daemonsets.apps", "clusterpolicies.nvidia.com"),
        cases=("meta-llama3-405b-interruptions", "bigscience-bloom176b-gpu-crash-hang"),
        references=(
            Reference(
                "https://github.com/NVIDIA/k8s-device-plugin/issues/111",
                "k8s-device-plugin: DBE marks a GPU unhealthy; DP_DISABLE_HEALTHCHECKS turns it off",
            ),
        ),
        why=(
            "The NVIDIA device plugin withdraws a GPU from allocatable when it sees critical XIDs "
            "or double-bit ECC errors. DP_DISABLE_HEALTHCHECKS switches that off, so a broken GPU "
            "keeps being handed to new pods."
        ),
        remediation=(
            "Remove DP_DISABLE_HEALTHCHECKS from the device-plugin DaemonSet (or from "
            "ClusterPolicy.spec.devicePlugin.env); if specific XIDs are noisy, list only those."
        ),
        confidence="definitive",
        func=plugin_healthchecks,
        cluster_wide=True,
    ),
    Check(
        id="GPU-005",
        title="Running pods bound to GPUs reported unhealthy",
        pass_title="No running pod is bound to a GPU reported unhealthy",
        severity="high",
        category="gpu-health",
        reads=("pods",),
        cases=("meta-llama3-405b-interruptions", "bigscience-bloom176b-gpu-crash-hang"),
        references=(
            Reference(
                "https://www.kubernetes.dev/resources/keps/4680/",
                "KEP-4680: resource health status",
            ),
        ),
        why=(
            "Marking a device unhealthy does not stop the pods already using it: a job can keep "
            "running, hung or producing errors, on a GPU the kubelet already knows is bad."
        ),
        remediation=(
            "Delete or restart the affected pods so the job reschedules onto healthy GPUs, and "
            "drain the node for repair; automate it with a controller watching "
            "allocatedResourcesStatus."
        ),
        confidence="definitive",
        func=unhealthy_devices,
    ),
]
