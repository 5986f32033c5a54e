"""Where GPU pods run: mixed hardware in one gang, pods stranded on NotReady nodes."""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..k8s import Obj
from ..k8s import not_ready
from ..model import Check
from ..model import Evidence
from ..model import Reference
from ..model import Resource
from ..model import Result
from ..workloads.index import Workload
from .common import CLUSTER
from .common import EXAMINED_SHOWN
from .common import WORKLOAD_KINDS
from .common import Gap
from .common import fail
from .common import gap
from .common import name_of
from .common import not_applicable
from .common import not_evaluated
from .common import passed
from .common import per_workload
from .common import shown

PRODUCT_LABEL = "nvidia.com/gpu.product"
DRIVER_LABELS = ("nvidia.com/cuda.driver.major", "nvidia.com/cuda.driver.minor")
HARDWARE_LABELS = (PRODUCT_LABEL, *DRIVER_LABELS)
UNBOUNDED_KEYS = ("node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready")


def _label(ctx: Context, node_name: str, label: str) -> str | None:
    node = ctx.nodes_by_name.get(node_name) or {}
    value = ((node.get("metadata") or {}).get("labels") or {}).get(label)
    return None if value is None else str(value)


def heterogeneous_gang(ctx: Context) -> Iterator[Result]:
    gangs: dict[Resource, list[Obj]] = {}
    for pod in ctx.gpu_pods:
        node_name = (pod.get("spec") or {}).get("nodeName")
        if node_name and pod["status"].get("phase") == "Running" and ctx.is_training_pod(pod):
            gangs.setdefault(ctx.workload_of(pod), []).append(pod)
    multi = {g: pods for g, pods in gangs.items() if len({p["spec"]["nodeName"] for p in pods}) > 1}
    if not multi:
        yield not_applicable(f"no running GPU training job{ctx.scope} spans more than one node")
        return
    names = sorted({p["spec"]["nodeName"] for pods in multi.values() for p in pods})
    labelled = {
        label: any(_label(ctx, n, label) is not None for n in names) for label in HARDWARE_LABELS
    }
    if not any(labelled.values()):
        yield not_evaluated(
            CLUSTER,
            f"none of the {len(names)} nodes running multi-node jobs carries GPU model or driver "
            "labels (GPU feature discovery), so their hardware cannot be compared",
            Evidence(
                f"nodes[*].metadata.labels[{PRODUCT_LABEL}]",
                "unset",
                "GPU feature discovery labels",
            ),
        )
        return
    failed = 0
    for resource, pods in sorted(multi.items(), key=lambda kv: kv[0].logical_name):
        evidence = []
        for label in HARDWARE_LABELS:
            if not labelled[label]:
                continue
            values: dict[str, list[str]] = {}
            for node_name in sorted({p["spec"]["nodeName"] for p in pods}):
                values.setdefault(_label(ctx, node_name, label) or "<unset>", []).append(node_name)
            if len(values) > 1:
                observed = {v: shown(nodes, 5) for v, nodes in sorted(values.items())}
                evidence.append(
                    Evidence(f"nodes[*].metadata.labels[{label}]", observed, "one value")
                )
        if evidence:
            failed += 1
            yield fail(
                resource,
                "one gang spans nodes with different GPU models or drivers",
                *evidence,
                members=[
                    f"pod {name_of(p)} on {p['spec']['nodeName']}"
                    for p in sorted(pods, key=name_of)
                ],
            )
    if failed:
        return
    compared = [label for label in HARDWARE_LABELS if labelled[label]]
    not_seen = [
        f"{label}: no node running these jobs carries it"
        for label in HARDWARE_LABELS
        if not labelled[label]
    ]
    what = "one GPU model" if labelled[PRODUCT_LABEL] else "GPU model unknown"
    if any(labelled[label] for label in DRIVER_LABELS):
        what += " and one driver version"
    yield passed(
        f"{len(multi)} multi-node GPU jobs{ctx.scope} each run on {what} (compared: {', '.join(compared)})",
        examined=[r.logical_name for r in sorted(multi, key=lambda r: r.logical_name)],
        not_seen=not_seen,
    )


def _node_agent(pod: Obj) -> bool:
    """A DaemonSet or static (mirror) pod: it belongs on its node and is not rescheduled anyway."""
    owners = (pod.get("metadata") or {}).get("ownerReferences") or []
    return any(o.get("kind") in ("DaemonSet", "Node") for o in owners)


def stuck_on_notready(ctx: Context) -> Iterator[Result]:
    if not ctx.gpu_nodes:
        yield not_applicable("no GPU nodes")
        return
    down: dict[str, str] = {}  # NotReady GPU node -> its Ready status
    stranded: dict[Resource, list[tuple[Obj, str]]] = {}
    agents = 0
    for node in ctx.gpu_nodes:
        status = not_ready(node)
        if status is None:
            continue
        down[name_of(node)] = status
        for pod in ctx.pods_by_node.get(name_of(node), []):
            if pod["status"].get("phase") in ("Succeeded", "Failed"):
                continue
            if _node_agent(pod):
                agents += 1
                continue
            stranded.setdefault(ctx.workload_of(pod), []).append((pod, name_of(node)))
    for resource, pods in sorted(stranded.items(), key=lambda kv: kv[0].logical_name):
        nodes = sorted({node for _, node in pods})
        terminating = [p for p, _ in pods if p["metadata"].get("deletionTimestamp")]
        names = sorted(f"{p['metadata'].get('namespace')}/{name_of(p)}" for p, _ in pods)
        yield fail(
            resource,
            f"{len(pods)} pods stranded on a NotReady GPU node ({len(terminating)} stuck terminating)",
            Evidence(
                "nodes[*].status.conditions[Ready].status",
                {n: down[n] for n in nodes},
                "True",
            ),
            Evidence(
                f"pods[spec.nodeName={'|'.join(nodes)}]", shown(names), "none, or rescheduled"
            ),
            members=[
                f"pod {name_of(p)} on {node}"
                for p, node in sorted(pods, key=lambda x: name_of(x[0]))
            ],
        )
    if stranded:
        return
    not_seen = (
        [f"{agents} DaemonSet or static pods on NotReady nodes, not counted (node agents)"]
        if agents
        else []
    )
    yield passed(
        f"{len(ctx.gpu_nodes)} GPU nodes have no pods{ctx.scope} stranded while NotReady"
        + (f" ({len(down)} NotReady)" if down else ""),
        examined=sorted(name_of(n) for n in ctx.gpu_nodes)[:EXAMINED_SHOWN],
        not_seen=not_seen,
    )


def unbounded_tolerations(ctx: Context) -> Iterator[Result]:
    def judge(w: Workload) -> Gap | None:
        evidence = []
        for t in w.templates:
            for i, tol in enumerate(t.spec.get("tolerations") or []):
                key = tol.get("key")
                matches = key in UNBOUNDED_KEYS or (not key and tol.get("operator") == "Exists")
                if (
                    matches
                    and tol.get("effect") in (None, "", "NoExecute")
                    and tol.get("tolerationSeconds") is None
                ):
                    evidence.append(
                        Evidence(f"{t.path}.tolerations[{i}]", tol, "tolerationSeconds set")
                    )
        return gap("GPU pods stay forever on an unreachable node", *evidence) if evidence else None

    yield from per_workload(ctx, judge, ok="GPU workloads are evicted from unreachable nodes")


_T2072 = Reference(
    "https://github.com/kubeflow/trainer/issues/2072", "Trainer: failed nodes leave jobs hanging"
)

CHECKS = [
    Check(
        id="SCHED-001",
        title="One training gang spread over different GPU models or drivers",
        pass_title="Each training gang runs on one GPU model and driver",
        severity="high",
        category="scheduling",
        reads=("nodes", "pods"),
        cases=(
            "bytedance-megascale-mfu-decline-stragglers",
            "alibaba-falcon-fail-slow",
            "microsoft-superbench-gray-failures",
        ),
        references=(
            Reference(
                "https://github.com/NVIDIA/nccl/issues/794",
                "NCCL: allreduce hang on heterogeneous nodes",
            ),
            Reference(
                "https://github.com/NVIDIA/nccl/issues/447", "NCCL: hang with mismatched driver"
            ),
        ),
        why=(
            "A synchronous job runs at the speed of its slowest rank; mixing GPU models or driver "
            "versions creates stragglers and, across driver versions, NCCL hangs."
        ),
        remediation=(
            "Pin training jobs to one GPU product with a nodeSelector on nvidia.com/gpu.product "
            "(and keep driver versions uniform per node pool)."
        ),
        confidence="definitive",
        func=heterogeneous_gang,
    ),
    Check(
        id="NODE-001",
        title="Pods stranded on NotReady GPU nodes",
        pass_title="No pods stranded on NotReady GPU nodes",
        severity="high",
        category="node-health",
        reads=("nodes", "pods"),
        cases=(
            "bigscience-bloom176b-gpu-crash-hang",
            "alibaba-c4-error-downtime",
            "meta-opt175b-hardware-restarts",
        ),
        references=(
            _T2072,
            Reference(
                "https://github.com/kubernetes/kubernetes/issues/72226",
                "Kubernetes: pods stuck Terminating on a lost node",
            ),
        ),
        why=(
            "When a GPU node stops reporting, its pods are not rescheduled until they are evicted "
            "and deleted; a gang with one stranded pod hangs instead of restarting elsewhere."
        ),
        remediation=(
            "Drain or delete the NotReady node (force-delete pods stuck Terminating once the node "
            "is confirmed down) so the job controller recreates them, then repair the node."
        ),
        confidence="definitive",
        func=stuck_on_notready,
    ),
    Check(
        id="NODE-002",
        title="GPU pods tolerate an unreachable node forever",
        pass_title="GPU pods leave an unreachable node in bounded time",
        severity="medium",
        category="node-health",
        reads=WORKLOAD_KINDS,
        cases=("bigscience-bloom176b-gpu-crash-hang", "alibaba-c4-error-downtime"),
        references=(_T2072,),
        why=(
            "A NoExecute toleration for node.kubernetes.io/unreachable or not-ready without "
            "tolerationSeconds keeps the pod bound to a dead node forever, so the job never "
            "notices it lost a rank."
        ),
        remediation=(
            "Remove blanket `operator: Exists` tolerations from training pods, or give the "
            "unreachable/not-ready tolerations a tolerationSeconds (the default is 300)."
        ),
        confidence="definitive",
        func=unbounded_tolerations,
    ),
]
