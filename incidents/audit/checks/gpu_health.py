"""GPU health: is anything turning GPU faults into node signals, and are the signals acted on?"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..context import Context
from ..k8s import Obj
from ..k8s import schedulable_taints
from ..k8s import spec_gpus
from ..model import Check
from ..model import Evidence
from ..model import Reference
from ..model import Resource
from ..model import Result
from .common import fail
from .common import image_pods_on_nodes
from .common import name_of
from .common import node_coverage
from .common import not_applicable
from .common import passed

HEALTH_AGENT_IMAGES = (
    "node-problem-detector",
    "nvsentinel",
    "eks-node-monitoring-agent",
    "gpud",
    "gpu-health",
    "nvidia-gpu-device-plugin",  # GKE's plugin sets XidCriticalError
    "hyperpod-health-monitoring-agent",  # SageMaker HyperPod (NvidiaErrorReboot/Terminate)
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
    # SageMaker HyperPod's health-monitoring agent: a GPU fault that needs a reboot or a
    # replacement of the instance (reason XidHardwareFailure and the like).
    "NvidiaErrorReboot": "True",
    "NvidiaErrorTerminate": "True",
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
# Pool taints by key and value: AKS's documented GPU node pool taint, sku=gpu:NoSchedule
# (https://learn.microsoft.com/azure/aks/use-node-taints), which every GPU pod there tolerates.
GPU_POOL_TAINTS = frozenset({("sku", "gpu")})


def is_gpu_pool_taint(taint: Obj) -> bool:
    key = taint.get("key")
    return key in GPU_NODE_TAINT_KEYS or (key, taint.get("value")) in GPU_POOL_TAINTS


# Taints the node lifecycle controller (and the cloud node manager) set and lift by themselves
# from the node's conditions: not-ready, unreachable, unschedulable, memory-, disk- and
# pid-pressure, network-unavailable, out-of-service. They say nothing about the GPUs and vanish
# when the kubelet reports Ready again, so they are no quarantine.
LIFECYCLE_TAINT_PREFIX = "node.kubernetes.io/"
CLOUD_TAINTS = frozenset({"node.cloudprovider.kubernetes.io/uninitialized"})


def is_lifecycle_taint(taint: Obj) -> bool:
    key = str(taint.get("key", ""))
    return key.startswith(LIFECYCLE_TAINT_PREFIX) or key in CLOUD_TAINTS


def quarantine_taints(node: Obj) -> list[Obj]:
    """NoSchedule/NoExecute taints that keep GPU work away from ``node`` because of its GPUs."""
    return [
        t
        for t in schedulable_taints(node)
        if not is_gpu_pool_taint(t) and not is_lifecycle_taint(t)
    ]


def gpu_faults(node: Obj) -> list[tuple[int, Obj]]:
    return [(i, c) for i, c in gpu_conditions(node) if c.get("status") == bad_status(c["type"])]


def _fault_evidence(node: Obj, prefix: str = "") -> list[Evidence]:
    return [
        Evidence(
            f"{prefix}status.conditions[{i}]",
            f"{c['type']}={c.get('status')}" + (f" ({c['reason']})" if c.get("reason") else ""),
            f"{c['type']}={'False' if bad_status(c['type']) == 'True' else 'True'}",
        )
        for i, c in gpu_faults(node)
    ]


def _running(pod: Obj) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Running", "Pending") and bool(
        (pod.get("spec") or {}).get("nodeName")
    )


def fault_schedulable(ctx: Context) -> Iterator[Result]:
    watched = [n for n in ctx.items("nodes") if gpu_conditions(n)]
    if not watched:
        yield not_applicable("no node carries a GPU health condition (see GPU-001)")
        return
    faulty = [n for n in watched if gpu_faults(n)]
    failed = 0
    for node in faulty:
        spec = node.get("spec") or {}
        if spec.get("unschedulable") or quarantine_taints(node):
            continue
        failed += 1
        taints = [f"{t.get('key')}:{t.get('effect')}" for t in schedulable_taints(node)]
        yield fail(
            ctx.ref("nodes", node),
            "GPU fault reported but node still schedulable",
            *_fault_evidence(node),
            Evidence("spec.unschedulable", False, True),
            Evidence(
                "spec.taints",
                taints,
                "a NoSchedule or NoExecute quarantine taint (node-lifecycle and GPU-node taints "
                "do not keep GPU work off)",
            ),
        )
    pods_seen = 0
    for node in faulty:
        node_name = name_of(node)
        on_node = [
            p
            for p in ctx.pods_by_node.get(node_name, [])
            if spec_gpus(p.get("spec") or {}, ctx.dra_gpus) and _running(p)
        ]
        pods_seen += len(on_node)
        by_workload: dict[Resource, list[str]] = {}
        for pod in on_node:
            by_workload.setdefault(ctx.workload_of(pod), []).append(name_of(pod))
        for resource, names in sorted(by_workload.items(), key=lambda kv: kv[0].logical_name):
            failed += 1
            yield fail(
                resource,
                f"GPU pods run on node {node_name}, which reports a GPU fault",
                *_fault_evidence(node, f"nodes[{node_name}]."),
                Evidence(
                    f"pods[spec.nodeName={node_name}]", sorted(names), "no pod on a faulty GPU node"
                ),
                members=[f"pod {n}" for n in sorted(names)],
            )
    if not failed:
        yield passed(
            f"no schedulable node reports a GPU fault and no GPU pod{ctx.scope} runs on a faulty "
            f"node ({len(watched)} nodes with GPU conditions, {len(faulty)} reporting a fault)",
            examined=[name_of(n) for n in watched],
            not_seen=["GPU faults that no agent turns into a node condition (see GPU-001)"],
        )


LLAMA = Reference("https://arxiv.org/abs/2407.21783", "The Llama 3 Herd of Models (§3.3.4)")
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
        pass_title="Every GPU node runs a GPU health producer",
        severity="high",
        category="gpu-health",
        reads=("nodes", "pods"),
        cases=(
            "meta-llama3-405b-interruptions",
            "acme-llm-dev-infra-failures",
            "meta-rsc-reliability-study",
        ),
        references=(
            LLAMA,
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
        title="GPU fault on a schedulable node, or GPU pods still running on a faulty node",
        pass_title="No GPU fault on a schedulable node, and no GPU pod running on a faulty one",
        severity="critical",
        category="gpu-health",
        reads=("nodes", "pods"),
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
            "work: the next job lands on the bad GPU and fails the whole synchronous gang. The "
            "node lifecycle controller's own taints (not-ready, unreachable, pressure) are no "
            "quarantine: they vanish when the kubelet reports Ready, with the GPU still broken. "
            "Pods already running there keep using the faulty GPU until someone moves them."
        ),
        remediation=(
            "Cordon and drain the node (or let a quarantine controller taint it NoSchedule), "
            "repair or replace the GPU, and uncordon only after the condition clears; restart the "
            "listed workloads elsewhere from their last checkpoint. Automate it: NVSentinel, or a "
            "controller that taints and drains on the GPU conditions."
        ),
        confidence="definitive",
        func=fault_schedulable,
    ),
]
