"""Validation before work lands: multi-node NCCL burn-in and the GPU software stack."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta

from ..context import Context
from ..k8s import Obj
from ..k8s import parse_time
from ..k8s import pod_ready
from ..k8s import stack_down
from ..model import Check
from ..model import Evidence
from ..model import Reference
from ..model import Resource
from ..model import Result
from ..model import Setting
from ..workloads import ADAPTERS
from .common import CLUSTER
from .common import READ_ERRORS
from .common import WORKLOAD_KINDS
from .common import Gap
from .common import fail
from .common import gap
from .common import name_of
from .common import not_applicable
from .common import passed
from .common import per_object
from .common import runs_across_pods

NCCL_TEST = re.compile(
    r"nccl-tests|nccl_tests|all_reduce_perf|all_gather_perf|alltoall_perf|reduce_scatter_perf"
)
# The GPU stack's DaemonSets by name prefix, each with the operand of its node label: the GPU
# Operator schedules an operand on the nodes labelled ``nvidia.com/gpu.deploy.<operand>=true`` and
# leaves out a node whose label says otherwise (``false``, the driver's ``pre-installed``) or that
# is labelled ``nvidia.com/gpu.deploy.operands=false``.
STACK_COMPONENTS = {
    "nvidia-operator-validator": "operator-validator",
    "nvidia-device-plugin": "device-plugin",
    "gpu-feature-discovery": "gpu-feature-discovery",
    "nvidia-driver": "driver",
    "nvidia-container-toolkit": "container-toolkit",
}
STACK_DAEMONSETS = tuple(STACK_COMPONENTS)
DEPLOY_LABEL = "nvidia.com/gpu.deploy."
VALIDATOR = "nvidia-operator-validator"
BURN_IN_KINDS = tuple(k for a in ADAPTERS if a.training for k in a.reads)


def _mentions_nccl_test(spec: Obj) -> bool:
    for c in spec.get("containers") or []:
        words = [str(c.get("image", ""))] + [
            str(a) for a in (c.get("command") or []) + (c.get("args") or [])
        ]
        if any(NCCL_TEST.search(w) for w in words):
            return True
    return False


def _succeeded_at(obj: Obj) -> str | None:
    status = obj.get("status") or {}
    if status.get("succeeded") and status.get("completionTime"):
        return str(status["completionTime"])
    for c in status.get("conditions") or []:
        if c.get("type") in ("Succeeded", "Complete", "Completed") and c.get("status") == "True":
            return c.get("lastTransitionTime")
    return None


def _burn_in_runs(ctx: Context) -> list[tuple[str, str | None]]:
    """(object, time of its last success) for every job or CronJob that runs nccl-tests."""
    runs: list[tuple[str, str | None]] = []
    for cj in ctx.items("cronjobs.batch"):
        tpl = ((cj.get("spec") or {}).get("jobTemplate") or {}).get("spec", {}).get(
            "template"
        ) or {}
        if _mentions_nccl_test(tpl.get("spec") or {}):
            status = cj.get("status") or {}
            last = status.get("lastSuccessfulTime") or status.get("lastScheduleTime")
            runs.append((f"CronJob {cj['metadata'].get('namespace')}/{name_of(cj)}", last))
    for adapter in ADAPTERS:
        if not adapter.training:
            continue
        for obj in ctx.items(adapter.key):
            try:
                templates = adapter.templates(obj, ctx.index)
            except READ_ERRORS:
                continue  # reported by the checks that judge the object's pods
            if any(_mentions_nccl_test(t.spec) for t in templates):
                where = f"{adapter.spec.kind} {obj['metadata'].get('namespace')}/{name_of(obj)}"
                runs.append((where, _succeeded_at(obj)))
    return runs


def burn_in(ctx: Context) -> Iterator[Result]:
    if len(ctx.gpu_nodes) < 2:
        yield not_applicable("fewer than two GPU nodes")
        return
    workloads = ctx.workloads()
    if workloads and not any(runs_across_pods(w) for w in workloads):
        # An idle cluster is judged (bring-up is when a burn-in matters most); one that runs
        # only single-pod jobs and serving replicas has no collective across nodes to test.
        yield not_applicable(
            f"none of the {len(workloads)} active GPU workloads runs collectives across pods "
            "(single-pod jobs and serving replicas)"
        )
        return
    days = float(ctx.param("fresh_days"))
    runs = _burn_in_runs(ctx)
    fresh = [
        (w, t)
        for w, t in runs
        if t and (when := parse_time(t)) and ctx.now - when <= timedelta(days=days)
    ]
    expected = f"a multi-node NCCL test (nccl-tests) that succeeded in the last {days:g} days"
    path = "cronjobs,jobs and training jobs"
    if fresh:
        yield passed(
            "recent multi-node NCCL burn-in found",
            Evidence(path, sorted(fresh)[:5], expected),
            examined=[w for w, _ in runs],
            not_seen=["which nodes each run covered, and its measured bandwidth"],
        )
    elif runs:
        yield fail(
            CLUSTER,
            f"NCCL burn-in exists but has not succeeded in the last {days:g} days",
            Evidence(path, sorted(runs, key=str)[:5], expected),
        )
    else:
        yield fail(
            CLUSTER,
            f"no multi-node NCCL burn-in found for {len(ctx.gpu_nodes)} GPU nodes",
            Evidence(path, "none", expected),
        )


def _stack_daemonsets(ctx: Context) -> list[Obj]:
    return [ds for ds in ctx.items("daemonsets.apps") if name_of(ds).startswith(STACK_DAEMONSETS)]


def _component(ds: Obj) -> str:
    """The stack component a DaemonSet runs: the name prefix it matched."""
    return next(p for p in STACK_DAEMONSETS if name_of(ds).startswith(p))


def _meant_for(node: Obj, component: str) -> bool:
    """Whether a GPU node should run ``component``: its deploy labels do not leave it out."""
    labels = (node.get("metadata") or {}).get("labels") or {}
    if labels.get(f"{DEPLOY_LABEL}operands") == "false":
        return False
    value = labels.get(f"{DEPLOY_LABEL}{STACK_COMPONENTS[component]}")
    return value is None or value == "true"


def _scheduled(status: Obj) -> int:
    return int(status.get("desiredNumberScheduled", 0))


def _coverage(ctx: Context, daemonsets: list[Obj]) -> dict[str, tuple[int, int]]:
    """Per component: (nodes its DaemonSets are scheduled on, GPU nodes meant to run it)."""
    out: dict[str, tuple[int, int]] = {}
    for ds in daemonsets:
        component = _component(ds)
        scheduled, meant = out.get(component, (0, 0))
        if component not in out:
            meant = sum(1 for n in ctx.gpu_nodes if _meant_for(n, component))
        out[component] = (scheduled + _scheduled(ds.get("status") or {}), meant)
    return out


def _unready_on_down_nodes(ctx: Context, ds: Obj) -> list[str]:
    """Nodes whose pod of this DaemonSet is not Ready because the node itself is down: NotReady,
    cordoned while the upgrade controller reloads its driver, or under a MIG reconfiguration
    (``k8s.stack_down``)."""
    out = []
    namespace = ds["metadata"].get("namespace")
    for pod in ctx.items("pods"):
        meta = pod.get("metadata") or {}
        owned = any(
            o.get("kind") == "DaemonSet" and o.get("name") == name_of(ds)
            for o in meta.get("ownerReferences") or []
        )
        if not owned or meta.get("namespace") != namespace or pod_ready(pod):
            continue
        node = ctx.nodes_by_name.get(str((pod.get("spec") or {}).get("nodeName")))
        if node is not None and stack_down(node) is not None:
            out.append(name_of(node))
    return sorted(out)


def _shortfall_explained(ctx: Context, daemonsets: list[Obj]) -> list[str] | None:
    """The nodes that explain every stack DaemonSet's missing Ready pods (None when some pod is
    not Ready on a node that is up and not being upgraded): the ClusterPolicy's state follows
    its operands, so it is not ready for as long as they are."""
    nodes: set[str] = set()
    for ds in daemonsets:
        status = ds.get("status") or {}
        desired, ready = _scheduled(status), int(status.get("numberReady", 0))
        if ready < desired:
            down = _unready_on_down_nodes(ctx, ds)
            if ready + len(down) < desired:
                return None
            nodes.update(down)
    return sorted(nodes)


def gpu_stack(ctx: Context) -> Iterator[Result]:
    daemonsets = _stack_daemonsets(ctx)
    policies = ctx.items("clusterpolicies.nvidia.com")
    items: list[tuple[Resource, tuple[str, Obj]]] = [
        (ctx.ref("clusterpolicies.nvidia.com", cp), ("policy", cp)) for cp in policies
    ]
    items += [(ctx.ref("daemonsets.apps", ds), ("daemonset", ds)) for ds in daemonsets]
    coverage = _coverage(ctx, daemonsets)

    def judge(item: tuple[str, Obj]) -> Gap | None:
        what, obj = item
        status = obj.get("status") or {}
        if what == "policy":
            state = status.get("state")
            if state == "ready":
                return None
            down = _shortfall_explained(ctx, daemonsets)
            if down:
                not_seen.append(
                    f"ClusterPolicy {name_of(obj)} state {state}: its only not-Ready operands are "
                    f"on nodes down or reloading their driver ({', '.join(down)})"
                )
                return None
            return gap("GPU Operator stack is not ready", Evidence("status.state", state, "ready"))
        desired, ready = _scheduled(status), int(status.get("numberReady", 0))
        problems: list[str] = []
        evidence: list[Evidence] = []
        if ready < desired:
            down = _unready_on_down_nodes(ctx, obj)
            if ready + len(down) >= desired:
                # The node is down or mid-upgrade, not the stack (NODE-001 judges what is
                # stranded on a NotReady node; the upgrade controller validates the new driver).
                not_seen.append(
                    f"DaemonSet {name_of(obj)} on nodes down or reloading their driver "
                    f"{', '.join(down)}"
                )
            else:
                problems.append(f"{desired - ready - len(down)} GPU stack pods not Ready")
                evidence.append(Evidence("status.numberReady", ready, desired))
                if down:
                    evidence.append(
                        Evidence(
                            "pods[not Ready, on a node down or upgrading]", down, "not counted"
                        )
                    )
        component = _component(obj)
        scheduled, meant = coverage[component]
        if scheduled < meant:
            others = sum(1 for ds in daemonsets if _component(ds) == component) - 1
            whose = f" (with its {others} other {component} DaemonSets)" if others else ""
            problems.append(
                f"{component} is scheduled on {scheduled} of the {meant} GPU nodes meant to run "
                f"it{whose}: {meant - scheduled} run without it"
            )
            evidence.append(
                Evidence(
                    "status.desiredNumberScheduled",
                    scheduled,
                    f"at least {meant}: one per GPU node not left out by its "
                    f"{DEPLOY_LABEL}{STACK_COMPONENTS[component]} label",
                )
            )
        return gap("; ".join(problems), *evidence) if problems else None

    not_seen = [
        "what the stack's pods checked: kubegap reads their Ready state, not their logs",
        "which nodes each DaemonSet is scheduled on: its status counts them (GPU or not)",
    ]
    if not any(_component(ds) == VALIDATOR for ds in daemonsets):
        not_seen.insert(
            0,
            "whether the driver, toolkit and CUDA work on each node: no nvidia-operator-validator "
            "DaemonSet runs (its Ready pods are the only API sign of a working stack)",
        )
    yield from per_object(
        items,
        judge,
        ok="GPU stack components report ready (ClusterPolicy state, stack DaemonSets' pods "
        "Ready) and are scheduled on every GPU node meant to run them",
        none="no GPU Operator ClusterPolicy or GPU stack DaemonSet found",
        not_seen=not_seen,
    )


CHECKS = [
    Check(
        id="PRE-001",
        title="No recent multi-node NCCL burn-in",
        pass_title="A multi-node NCCL burn-in succeeded recently",
        severity="medium",
        category="preflight",
        reads=tuple(dict.fromkeys(("nodes", "cronjobs.batch", *BURN_IN_KINDS, *WORKLOAD_KINDS))),
        cases=(
            "acme-seren-kalos-pretraining-failures",
            "meta-opt175b-hardware-restarts",
            "microsoft-superbench-gray-failures",
            "meta-opt175b-cloud-cluster-deletion",
        ),
        references=(
            Reference(
                "https://raw.githubusercontent.com/NVIDIA/cluster-readiness-engine/main/README.md",
                "NVIDIA Cluster Readiness Engine",
            ),
            Reference(
                "https://imbue.com/research/70b-infrastructure/",
                "Imbue: 70B infrastructure burn-in",
            ),
        ),
        why=(
            "Some faulty GPUs, NICs and links show up only under real collective load. Acme found "
            "faulty nodes with an NCCL allgather test; OPT-175B relied on burn-in and IB tests. "
            "Without a recurring multi-node test the first job to hit a bad node finds it."
        ),
        remediation=(
            "Run nccl-tests (all_reduce_perf/all_gather_perf) across node groups as a CronJob or "
            "MPIJob at bring-up and every few weeks, and cordon nodes that underperform."
        ),
        confidence="heuristic",
        func=burn_in,
        cluster_wide=True,
        settings=(Setting("fresh_days", 30, "how recent a successful burn-in must be"),),
    ),
    Check(
        id="PRE-002",
        title="GPU software stack not validated",
        pass_title="GPU stack components are Ready on every GPU node meant to run them",
        severity="high",
        category="preflight",
        reads=("nodes", "pods", "daemonsets.apps", "clusterpolicies.nvidia.com"),
        cases=("ai2-olmo-lumi-bringup", "meta-opt175b-cloud-cluster-deletion"),
        references=(
            Reference("https://github.com/Azure/AKS/issues/4256", "AKS: GPU driver never comes up"),
        ),
        why=(
            "Nodes whose driver, container toolkit or device plugin never came up still join the "
            "cluster; jobs placed there fail at start or hang in rendezvous."
        ),
        remediation=(
            "Fix the failing operand (see the ClusterPolicy conditions and the not-Ready pods of "
            "the listed DaemonSet), and schedule each stack DaemonSet on every GPU node (its "
            "nodeSelector and tolerations, or the nodes' nvidia.com/gpu.deploy.* labels); keep "
            "the node tainted until nvidia-operator-validator passes."
        ),
        confidence="definitive",
        func=gpu_stack,
        cluster_wide=True,
    ),
]
