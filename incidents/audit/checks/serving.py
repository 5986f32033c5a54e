"""GPU inference: is serving capacity protected from drains (PodDisruptionBudgets)?"""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..k8s import Obj
from ..k8s import scaled_int_or_percent
from ..k8s import selector_matches
from ..model import Check
from ..model import Evidence
from ..model import Reference
from ..model import Result
from ..model import Setting
from ..workloads.batch import DEPLOYMENT
from ..workloads.batch import STATEFULSET
from ..workloads.index import Workload
from ..workloads.lws import LEADERWORKERSET
from ..workloads.lws import NAME_LABEL
from ..workloads.ray import CLUSTER_LABEL
from ..workloads.ray import RAYCLUSTER
from .common import Gap
from .common import Skip
from .common import gap
from .common import name_of
from .common import per_workload

PDBS = "poddisruptionbudgets.policy"
SERVING = (DEPLOYMENT, STATEFULSET, LEADERWORKERSET)
# Labels KubeRay puts on every pod of a RayCluster (ray-operator common/pod.go, labelPod), and
# on the workers of a RayService's cluster the ray.io/serve label its Serve traffic goes by.
KUBERAY_POD_LABELS = {
    "ray.io/is-ray-node": "yes",
    "ray.io/node-type": "worker",
    "app.kubernetes.io/name": "kuberay",
    "app.kubernetes.io/created-by": "kuberay-operator",
}


def ray_serve_cluster(w: Workload) -> bool:
    """A RayCluster a RayService runs (owned by it, or labelled as created from one): its GPU
    workers are Ray Serve replicas, however the RayService itself is not listed."""
    if w.key != RAYCLUSTER.key or w.obj is None:
        return False
    meta = w.obj.get("metadata") or {}
    owners = meta.get("ownerReferences") or []
    return any(o.get("kind") == "RayService" for o in owners) or (
        (meta.get("labels") or {}).get("ray.io/originated-from-crd") == "RayService"
    )


def _pod_labels(w: Workload) -> dict[str, str]:
    labels: dict[str, str] = {}
    for t in w.templates:
        labels.update(t.labels)
    if w.key == LEADERWORKERSET.key:
        labels[NAME_LABEL] = w.resource.name
    if w.key == RAYCLUSTER.key:
        labels.update(KUBERAY_POD_LABELS)
        labels[CLUSTER_LABEL] = w.resource.name
        labels["ray.io/serve"] = "true"
    return labels


def _selects(ctx: Context, pdb: Obj, labels: dict[str, str]) -> bool:
    selector = (pdb.get("spec") or {}).get("selector")
    if selector == {}:
        # policy/v1 selects every pod of the namespace; policy/v1beta1 selects none.
        cov = ctx.snapshot.coverage.get(PDBS)
        return bool(cov and cov.api_version == "policy/v1")
    return selector_matches(selector, labels)


def allowed_disruptions(pdb: Obj, replicas: int) -> int:
    """How many of ``replicas`` pods the budget lets a drain evict at once."""
    spec = pdb.get("spec") or {}
    if spec.get("maxUnavailable") is not None:
        return scaled_int_or_percent(spec["maxUnavailable"], replicas, 0, round_up=True)
    if spec.get("minAvailable") is not None:
        return replicas - scaled_int_or_percent(spec["minAvailable"], replicas, 0, round_up=True)
    return replicas


def serving_budgets(ctx: Context) -> Iterator[Result]:
    minimum = int(ctx.param("min_replicas"))

    def judge(w: Workload) -> Gap | Skip | None:
        replicas = sum(t.replicas for t in w.templates)
        if w.key == LEADERWORKERSET.key:
            replicas = int(((w.obj or {}).get("spec") or {}).get("replicas") or 1)
        if replicas < minimum:
            return Skip(
                f"{replicas} replica(s): a budget would only block drains; run more replicas"
            )
        labels = _pod_labels(w)
        budgets = [
            p
            for p in ctx.items(PDBS)
            if p["metadata"].get("namespace") == w.resource.namespace and _selects(ctx, p, labels)
        ]
        if not budgets:
            return gap(
                f"a drain or node upgrade can evict all {replicas} GPU serving replicas at once",
                Evidence(
                    "poddisruptionbudgets",
                    "none selects its pods",
                    f"a PodDisruptionBudget allowing < {replicas} evictions",
                ),
            )
        allowed = min(allowed_disruptions(p, replicas) for p in budgets)
        if allowed < replicas:
            return None
        names = ", ".join(name_of(p) for p in budgets)
        return gap(
            f"its PodDisruptionBudget lets a drain evict all {replicas} GPU serving replicas",
            Evidence(
                f"poddisruptionbudgets[{names}].spec",
                [(p.get("spec") or {}) for p in budgets],
                f"maxUnavailable < {replicas}, or minAvailable >= 1",
            ),
        )

    yield from per_workload(
        ctx,
        judge,
        ok="GPU serving workloads have a PodDisruptionBudget that keeps replicas up",
        none="no GPU Deployment, StatefulSet, LeaderWorkerSet or RayService cluster",
        where=lambda w: w.key in {a.key for a in SERVING} or ray_serve_cluster(w),
    )


CHECKS = [
    Check(
        id="SERVE-001",
        title="GPU serving workload without a PodDisruptionBudget",
        pass_title="GPU serving workloads have a PodDisruptionBudget",
        severity="medium",
        category="serving",
        reads=("pods", PDBS, *(a.key for a in SERVING), RAYCLUSTER.key),
        cases=("openai-2024-05-21-gpt4o-cluster-drain",),
        references=(
            Reference(
                "https://kubernetes.io/docs/concepts/workloads/pods/disruptions/",
                "Kubernetes: disruptions and PodDisruptionBudgets",
            ),
            Reference(
                "https://kubernetes.io/docs/tasks/run-application/configure-pdb/",
                "Kubernetes: configure a PodDisruptionBudget",
            ),
        ),
        why=(
            "GPU serving replicas are few and slow to come back (large images, model loading), so "
            "a drain that takes them all at once is an outage: OpenAI's GPT-4o free tier lost every "
            "backend when a drain went wider than meant. Node drains, upgrades and autoscaler "
            "scale-downs respect PodDisruptionBudgets; without one they evict every replica."
        ),
        remediation=(
            "Add a PodDisruptionBudget selecting the workload's pods with maxUnavailable 1 (or a "
            "small percentage), and keep at least two replicas so drains can proceed; for a "
            "RayService, select its Serve workers (ray.io/serve=true, or the workers' template "
            "labels), as KubeRay creates no budget."
        ),
        confidence="definitive",
        func=serving_budgets,
        settings=(Setting("min_replicas", 2, "workloads with fewer replicas are not judged"),),
    ),
]
