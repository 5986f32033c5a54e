"""Where GPU pods run: mixed hardware in one gang, pods stranded on NotReady nodes."""

from __future__ import annotations

from collections.abc import Iterator

from ..context import TRAINING_OWNER_KINDS, WORKLOAD_KINDS, Context
from ..k8s import Obj, condition, is_finished
from ..model import Check, Evidence, Reference, Resource, Result, fail, not_applicable, passed
from .common import name_of

GANG_LABELS = {
    "training.kubeflow.org/job-name": ("kubeflow.org/v1", "PyTorchJob"),
    "jobset.sigs.k8s.io/jobset-name": ("jobset.x-k8s.io/v1alpha2", "JobSet"),
    "volcano.sh/job-name": ("batch.volcano.sh/v1alpha1", "Job"),
}
HARDWARE_LABELS = (
    "nvidia.com/gpu.product",
    "nvidia.com/cuda.driver.major",
    "nvidia.com/cuda.driver.minor",
)
UNBOUNDED_KEYS = ("node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready")


def _gang(pod: Obj) -> Resource | None:
    meta = pod["metadata"]
    labels = meta.get("labels") or {}
    for label, (api, kind) in GANG_LABELS.items():
        if labels.get(label):
            return Resource(api, kind, str(labels[label]), meta.get("namespace"))
    owners = meta.get("ownerReferences") or []
    if owners and owners[0].get("kind") in TRAINING_OWNER_KINDS:
        o = owners[0]
        return Resource(
            str(o.get("apiVersion")), str(o.get("kind")), str(o.get("name")), meta.get("namespace")
        )
    return None


def heterogeneous_gang(ctx: Context) -> Iterator[Result]:
    gangs: dict[Resource, list[Obj]] = {}
    for pod in ctx.gpu_pods:
        node_name = (pod.get("spec") or {}).get("nodeName")
        gang = _gang(pod)
        if node_name and gang and not is_finished(pod) and pod["status"].get("phase") == "Running":
            gangs.setdefault(gang, []).append(pod)
    multi = {g: pods for g, pods in gangs.items() if len({p["spec"]["nodeName"] for p in pods}) > 1}
    if not multi:
        yield not_applicable("no running GPU job spans more than one node")
        return
    failed = 0
    for gang, pods in sorted(multi.items(), key=lambda kv: kv[0].logical_name):
        evidence = []
        for label in HARDWARE_LABELS:
            values: dict[str, list[str]] = {}
            for node_name in sorted({p["spec"]["nodeName"] for p in pods}):
                node = ctx.nodes_by_name.get(node_name) or {}
                value = ((node.get("metadata") or {}).get("labels") or {}).get(label, "<unset>")
                values.setdefault(str(value), []).append(node_name)
            if len(values) > 1:
                observed = {v: names[:5] for v, names in sorted(values.items())}
                evidence.append(
                    Evidence(f"nodes[*].metadata.labels[{label}]", observed, "one value")
                )
        if evidence:
            failed += 1
            yield fail(gang, "one gang spans nodes with different GPU models or drivers", *evidence)
    if not failed:
        yield passed(f"{len(multi)} multi-node GPU jobs run on uniform GPU model and driver")


def stuck_on_notready(ctx: Context) -> Iterator[Result]:
    if not ctx.gpu_nodes:
        yield not_applicable("no GPU nodes")
        return
    failed = 0
    for node in ctx.gpu_nodes:
        ready = condition(node, "Ready")
        if ready is None or ready.get("status") == "True":
            continue
        pods = [
            p
            for p in ctx.pods_by_node.get(name_of(node), [])
            if p["status"].get("phase") not in ("Succeeded", "Failed")
        ]
        if not pods:
            continue
        failed += 1
        terminating = sorted(name_of(p) for p in pods if p["metadata"].get("deletionTimestamp"))
        names = sorted(f"{p['metadata'].get('namespace')}/{name_of(p)}" for p in pods)
        yield fail(
            ctx.ref("nodes", node),
            f"{len(pods)} pods stranded on a NotReady GPU node ({len(terminating)} stuck terminating)",
            Evidence("status.conditions[Ready].status", ready.get("status"), "True"),
            Evidence(f"pods[spec.nodeName={name_of(node)}]", names[:10], "none, or rescheduled"),
        )
    if not failed:
        yield passed(f"no pods stranded on NotReady GPU nodes ({len(ctx.gpu_nodes)} GPU nodes)")


def unbounded_tolerations(ctx: Context) -> Iterator[Result]:
    workloads = ctx.workloads()
    if not workloads:
        yield not_applicable("no active GPU workload")
        return
    failed = 0
    for w in workloads:
        evidence = []
        for i, tol in enumerate(w.spec.get("tolerations") or []):
            key = tol.get("key")
            matches = key in UNBOUNDED_KEYS or (not key and tol.get("operator") == "Exists")
            if (
                matches
                and tol.get("effect") in (None, "", "NoExecute")
                and tol.get("tolerationSeconds") is None
            ):
                evidence.append(
                    Evidence(f"{w.path}.tolerations[{i}]", tol, "tolerationSeconds set")
                )
        if evidence:
            failed += 1
            yield fail(w.resource, "GPU pods stay forever on an unreachable node", *evidence)
    if not failed:
        yield passed(f"{len(workloads)} GPU workloads are evicted from unreachable nodes")


_T2072 = Reference(
    "https://github.com/kubeflow/trainer/issues/2072", "Trainer: failed nodes leave jobs hanging"
)

CHECKS = [
    Check(
        id="SCHED-001",
        title="One training gang spread over different GPU models or drivers",
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
