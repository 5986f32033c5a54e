"""GPU health: is anything turning GPU faults into node signals, and are the signals acted on?"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..context import Context, is_finished, node_gpus, quantity, schedulable_taints
from ..model import Check, Evidence, Reference, Result, fail, not_applicable, passed
from ..projection import Obj
from .common import env_value, image_pods_on_nodes, name_of, node_coverage

HEALTH_AGENT_IMAGES = (
    "node-problem-detector",
    "nvsentinel",
    "eks-node-monitoring-agent",
    "gpud",
    "gpu-health",
    "nvidia-gpu-device-plugin",  # GKE's plugin sets XidCriticalError
)
# Condition type -> the status that means "faulty" (polarity differs between producers).
GPU_CONDITIONS = {
    "XIDErrors": "True",
    "GPUMissing": "True",
    "NVLinkStatusInactive": "True",
    "IBLinkFlapping": "True",
    "XidCriticalError": "True",
    "SysLogsXIDError": "True",
    "SysLogsSXIDError": "True",
    "AcceleratedHardwareReady": "False",
}
_GPU_WORDS = re.compile(r"xid|gpu|nvlink|ecc|hbm|dcgm|accelerat", re.IGNORECASE)


def bad_status(ctype: str) -> str | None:
    """The status meaning "fault" for a GPU condition type, or None if not a GPU condition."""
    if ctype in GPU_CONDITIONS:
        return GPU_CONDITIONS[ctype]
    if ctype.startswith("Gcm") and ctype.endswith("Problem"):
        return "True"
    if _GPU_WORDS.search(ctype):
        return "False" if ctype.endswith(("Ready", "Healthy", "OK")) else "True"
    return None


def gpu_conditions(node: Obj) -> list[tuple[int, Obj]]:
    conds = (node.get("status") or {}).get("conditions") or []
    return [(i, c) for i, c in enumerate(conds) if bad_status(str(c.get("type"))) is not None]


def health_producer(ctx: Context) -> Iterator[Result]:
    covered = image_pods_on_nodes(ctx, HEALTH_AGENT_IMAGES)
    covered |= {name_of(n) for n in ctx.gpu_nodes if gpu_conditions(n)}
    yield from node_coverage(
        ctx,
        covered,
        "a GPU health producer",
        "pods",
        "a Ready health-agent pod (" + ", ".join(HEALTH_AGENT_IMAGES) + ") or a GPU condition",
    )


# Taints that mark a node as a GPU node (GKE puts nvidia.com/gpu=present:NoSchedule on every GPU
# node, and every GPU pod tolerates it): they keep CPU pods off, not GPU work off a faulty node.
GPU_NODE_TAINT_KEYS = frozenset({"nvidia.com/gpu", "amd.com/gpu"})


def quarantine_taints(node: Obj) -> list[Obj]:
    """NoSchedule/NoExecute taints that would keep GPU work away from ``node``."""
    return [t for t in schedulable_taints(node) if t.get("key") not in GPU_NODE_TAINT_KEYS]


def fault_schedulable(ctx: Context) -> Iterator[Result]:
    watched = [n for n in ctx.items("nodes") if gpu_conditions(n)]
    if not watched:
        yield not_applicable("no node carries a GPU health condition (see GPU-001)")
        return
    failed = 0
    for node in watched:
        faults = [
            (i, c) for i, c in gpu_conditions(node) if c.get("status") == bad_status(c["type"])
        ]
        spec = node.get("spec") or {}
        if not faults or spec.get("unschedulable") or quarantine_taints(node):
            continue
        failed += 1
        evidence = [
            Evidence(
                f"status.conditions[{i}]",
                f"{c['type']}={c.get('status')}" + (f" ({c['reason']})" if c.get("reason") else ""),
                f"{c['type']}={'False' if bad_status(c['type']) == 'True' else 'True'}",
            )
            for i, c in faults
        ]
        evidence.append(Evidence("spec.unschedulable", False, True))
        taints = [f"{t.get('key')}:{t.get('effect')}" for t in schedulable_taints(node)]
        evidence.append(
            Evidence("spec.taints", taints, "a NoSchedule or NoExecute quarantine taint")
        )
        yield fail(
            ctx.ref("nodes", node), "GPU fault reported but node still schedulable", *evidence
        )
    if not failed:
        yield passed(f"no schedulable node reports a GPU fault ({len(watched)} nodes watched)")


def missing_gpus(ctx: Context) -> Iterator[Result]:
    if not ctx.gpu_nodes:
        yield not_applicable("no GPU nodes")
        return
    pools: dict[tuple[str, str], float] = {}
    for node in ctx.gpu_nodes:
        labels = node["metadata"].get("labels") or {}
        pool = (
            labels.get("nvidia.com/gpu.product", ""),
            labels.get("node.kubernetes.io/instance-type", ""),
        )
        if all(pool):
            pools[pool] = max(pools.get(pool, 0.0), node_gpus(node))
    failed = 0
    for node in ctx.gpu_nodes:
        labels = node["metadata"].get("labels") or {}
        capacity, allocatable = node_gpus(node), node_gpus(node, "allocatable")
        evidence: list[Evidence] = []
        if allocatable < capacity:
            evidence.append(Evidence('status.allocatable["nvidia.com/gpu"]', allocatable, capacity))
        if "nvidia.com/gpu.count" in labels and quantity(labels["nvidia.com/gpu.count"]) > capacity:
            evidence.append(
                Evidence(
                    'status.capacity["nvidia.com/gpu"]',
                    capacity,
                    quantity(labels["nvidia.com/gpu.count"]),
                )
            )
        pool = (
            labels.get("nvidia.com/gpu.product", ""),
            labels.get("node.kubernetes.io/instance-type", ""),
        )
        if all(pool) and capacity < pools[pool] and not evidence:
            evidence.append(Evidence('status.capacity["nvidia.com/gpu"]', capacity, pools[pool]))
        if evidence:
            failed += 1
            yield fail(ctx.ref("nodes", node), "node advertises fewer GPUs than it has", *evidence)
    if not failed:
        yield passed(f"all {len(ctx.gpu_nodes)} GPU nodes advertise their full GPU count")


def plugin_healthchecks(ctx: Context) -> Iterator[Result]:
    seen = 0
    failed = 0
    for ds in ctx.items("daemonsets.apps"):
        containers = ((ds.get("spec") or {}).get("template") or {}).get("spec", {}).get(
            "containers"
        ) or []
        for i, c in enumerate(containers):
            if "device-plugin" not in str(c.get("image", "")):
                continue
            seen += 1
            value = env_value(c.get("env") or [], "DP_DISABLE_HEALTHCHECKS")
            if value and value.strip().lower() not in ("", "none"):
                failed += 1
                yield fail(
                    ctx.ref("daemonsets.apps", ds),
                    "device plugin has GPU health checks disabled",
                    Evidence(
                        f"spec.template.spec.containers[{i}].env[DP_DISABLE_HEALTHCHECKS]",
                        value,
                        "unset",
                    ),
                )
    for cp in ctx.items("clusterpolicies.nvidia.com"):
        plugin = (cp.get("spec") or {}).get("devicePlugin") or {}
        seen += 1
        value = env_value(plugin.get("env") or [], "DP_DISABLE_HEALTHCHECKS")
        if value and value.strip().lower() not in ("", "none"):
            failed += 1
            yield fail(
                ctx.ref("clusterpolicies.nvidia.com", cp),
                "GPU Operator disables device-plugin health checks",
                Evidence("spec.devicePlugin.env[DP_DISABLE_HEALTHCHECKS]", value, "unset"),
            )
    if not seen:
        yield not_applicable("no NVIDIA device plugin DaemonSet or ClusterPolicy found")
    elif not failed:
        yield passed(f"GPU health checks enabled in {seen} device-plugin configurations")


def unhealthy_devices(ctx: Context) -> Iterator[Result]:
    minor = ctx.server_minor
    if minor is not None and minor < 31:
        yield not_applicable(f"API server 1.{minor} does not report device health (KEP-4680)")
        return
    pods = [p for p in ctx.gpu_pods if not is_finished(p) and p["status"].get("phase") == "Running"]
    reporting = 0
    failed = 0
    for pod in pods:
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
                        ctx.ref("pods", pod),
                        "running pod is bound to a GPU reported unhealthy",
                        Evidence(
                            f"status.containerStatuses[{i}].allocatedResourcesStatus[{j}]",
                            {"name": res.get("name"), "unhealthy": bad},
                            "all devices Healthy",
                        ),
                    )
    if not reporting:
        yield not_applicable("no running GPU pod reports device health (allocatedResourcesStatus)")
    elif not failed:
        yield passed(f"{reporting} reported GPU allocations are healthy")


_LLAMA = Reference("https://arxiv.org/abs/2407.21783", "The Llama 3 Herd of Models (§3.3.4)")
_NPD833 = Reference(
    "https://github.com/kubernetes/node-problem-detector/issues/833", "NPD: GPU support request"
)
_NVS_RUNBOOK = Reference(
    "https://docs.nvidia.com/nvsentinel/runbooks/node-conditions.md",
    "NVSentinel runbook: node conditions without cordoning",
)

CHECKS = [
    Check(
        id="GPU-001",
        title="GPU nodes without a GPU health producer",
        severity="high",
        category="gpu-health",
        reads=("nodes", "pods"),
        cases=(
            "meta-llama3-405b-interruptions",
            "acme-llm-dev-infra-failures",
            "meta-rsc-reliability-study",
        ),
        references=(
            _LLAMA,
            _NPD833,
            Reference(
                "https://github.com/NVIDIA/k8s-device-plugin/issues/519",
                "k8s-device-plugin: device health is not exposed",
            ),
        ),
        why=(
            "Faulty GPUs and HBM are the largest share of interruptions in large training runs. "
            "Kubernetes itself knows nothing about XID, ECC or NVLink faults: unless an agent "
            "(node-problem-detector with GPU plugins, NVSentinel, a cloud GPU monitoring agent) "
            "turns them into node conditions or taints, a failing GPU node looks healthy."
        ),
        remediation=(
            "Run a GPU health agent as a DaemonSet on every GPU node (node-problem-detector with "
            "GPU checks, NVSentinel, the EKS node monitoring agent, gpud, or the cloud's GPU "
            "health feature) and make sure its pods are Ready on each GPU node."
        ),
        confidence="heuristic",
        func=health_producer,
        cluster_wide=True,
    ),
    Check(
        id="GPU-002",
        title="GPU fault condition on a schedulable node",
        severity="critical",
        category="gpu-health",
        reads=("nodes",),
        cases=(
            "meta-rsc-reliability-study",
            "acme-seren-kalos-pretraining-failures",
            "meta-opt175b-hardware-restarts",
            "bytedance-byterobust-failure-characterization",
        ),
        references=(
            _NVS_RUNBOOK,
            Reference(
                "https://github.com/kubeflow/trainer/issues/2185",
                "Trainer: restart on node conditions",
            ),
        ),
        why=(
            "A node that reports a GPU fault but is neither cordoned nor tainted keeps receiving "
            "work: the next job lands on the bad GPU and fails the whole synchronous gang."
        ),
        remediation=(
            "Cordon and drain the node (or let a quarantine controller taint it NoSchedule), "
            "repair or replace the GPU, and uncordon only after the condition clears. Automate "
            "it: NVSentinel, or a controller that taints on the GPU conditions."
        ),
        confidence="definitive",
        func=fault_schedulable,
    ),
    Check(
        id="GPU-003",
        title="GPU node advertises fewer GPUs than it has",
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
            "reset or replace the GPU. Alert on allocatable < capacity for nvidia.com/gpu."
        ),
        confidence="definitive",
        func=missing_gpus,
    ),
    Check(
        id="GPU-004",
        title="Device-plugin GPU health checks disabled",
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
