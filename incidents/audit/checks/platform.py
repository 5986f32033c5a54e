"""Kubernetes platform risks behind fleet-wide outages: all-at-once rollouts of node agents and
GPU drivers, the etcd quota."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..context import Context
from ..k8s import Obj
from ..k8s import scaled_int_or_percent
from ..model import Check
from ..model import Evidence
from ..model import Reference
from ..model import Resource
from ..model import Result
from ..model import Setting
from .common import Gap
from .common import Skip
from .common import gap
from .common import name_of
from .common import per_object

QUOTA_FLAG = re.compile(r"--quota-backend-bytes(?:=|\s+)(\d+)")
# With a config file etcd ignores every other flag and its environment
# (https://etcd.io/docs/latest/op-guide/configuration/): RKE2 and K3s start it so.
CONFIG_FLAG = re.compile(r"--config-file(?:=|\s+)(\S+)")
DEFAULT_QUOTA = 2 * 1024**3
DRIVER_IMAGE = re.compile(r"nvidia/driver|/gpu-driver|nvidia-driver")


def at_once(strategy: Obj, desired: int) -> int | None:
    """How many pods a DaemonSet rollout replaces at once (None: OnDelete, nothing automatic).

    ``maxUnavailable`` defaults to 1; the controller rounds a percentage up.
    """
    if strategy.get("type") == "OnDelete":
        return None
    raw = (strategy.get("rollingUpdate") or {}).get("maxUnavailable")
    return max(1, scaled_int_or_percent(raw, desired, 1, round_up=True))


def daemonset_rollout(ctx: Context) -> Iterator[Result]:
    min_fleet = int(ctx.param("min_fleet"))
    share = float(ctx.param("max_unavailable_percent"))

    def judge(ds: Obj) -> Gap | Skip | None:
        desired = int(ds["status"]["desiredNumberScheduled"])
        strategy = (ds.get("spec") or {}).get("updateStrategy") or {}
        count = at_once(strategy, desired)
        if count is None:
            return Skip("updateStrategy OnDelete")
        if count <= desired * share / 100:
            return None
        raw = (strategy.get("rollingUpdate") or {}).get("maxUnavailable")
        return gap(
            f"a rollout replaces {count} of {desired} node agents at once",
            Evidence(
                "spec.updateStrategy.rollingUpdate.maxUnavailable", raw, f"<= {share:g}% of nodes"
            ),
        )

    fleet = [
        ds
        for ds in ctx.items("daemonsets.apps")
        if int((ds.get("status") or {}).get("desiredNumberScheduled", 0)) >= min_fleet
    ]
    yield from per_object(
        ((ctx.ref("daemonsets.apps", ds), ds) for ds in fleet),
        judge,
        ok="fleet-wide DaemonSets roll out gradually",
        none=f"no DaemonSet runs on {min_fleet} or more nodes",
    )


def etcd_quota(ctx: Context) -> Iterator[Result]:
    etcd = [
        p
        for p in ctx.items("pods")
        if p["metadata"].get("namespace") == "kube-system"
        and (
            (p["metadata"].get("labels") or {}).get("component") == "etcd"
            or name_of(p).startswith("etcd-")
        )
    ]

    def judge(pod: Obj) -> Gap | Skip | None:
        words = " ".join(
            str(w)
            for c in pod["spec"].get("containers") or []
            for w in (c.get("command") or []) + (c.get("args") or [])
        )
        config = CONFIG_FLAG.search(words)
        if config:
            return Skip(
                f"etcd reads its settings from {config.group(1)} (--config-file), which the API "
                "does not show; etcd then ignores its other flags and environment"
            )
        match = QUOTA_FLAG.search(words)
        quota = int(match.group(1)) if match else None
        if quota is not None and quota > DEFAULT_QUOTA:
            return None
        return gap(
            "etcd runs with the default 2 GiB storage quota",
            Evidence(
                "spec.containers[etcd].command[--quota-backend-bytes]",
                quota,
                f"> {DEFAULT_QUOTA} (up to 8 GiB)",
            ),
        )

    yield from per_object(
        ((ctx.ref("pods", p), p) for p in etcd),
        judge,
        ok="etcd members have a raised storage quota",
        none=(
            "no etcd member's quota is visible"
            if etcd
            else "no etcd pod visible (managed control plane or external etcd)"
        ),
    )


def _operator_managed(ds: Obj) -> bool:
    return any(
        o.get("kind") == "ClusterPolicy" for o in ds["metadata"].get("ownerReferences") or []
    )


def _gpu_daemonset_role(ds: Obj) -> str | None:
    containers = ((ds.get("spec") or {}).get("template") or {}).get("spec", {}).get(
        "containers"
    ) or []
    images = " ".join(str(c.get("image", "")) for c in containers)
    if DRIVER_IMAGE.search(images) or name_of(ds).startswith("nvidia-driver"):
        return "driver"
    if "device-plugin" in images:
        return "device plugin"
    return None


def gpu_upgrades(ctx: Context) -> Iterator[Result]:
    gpu_nodes = len(ctx.gpu_nodes)
    items: list[tuple[Resource, tuple[str, Obj]]] = [
        (ctx.ref("clusterpolicies.nvidia.com", cp), ("policy", cp))
        for cp in ctx.items("clusterpolicies.nvidia.com")
    ]
    for ds in ctx.items("daemonsets.apps"):
        role = _gpu_daemonset_role(ds)
        if role and not _operator_managed(ds):
            items.append((ctx.ref("daemonsets.apps", ds), (role, ds)))

    def judge(item: tuple[str, Obj]) -> Gap | Skip | None:
        role, obj = item
        spec = obj.get("spec") or {}
        if role == "policy":
            return _policy_gap(spec, gpu_nodes)
        desired = int((obj.get("status") or {}).get("desiredNumberScheduled", 0)) or gpu_nodes
        strategy = spec.get("updateStrategy") or {}
        count = at_once(strategy, desired)
        if role == "driver" and count is not None:
            return gap(
                "driver pods are replaced in place on nodes with running GPU work, without a drain",
                Evidence(
                    "spec.updateStrategy.type",
                    strategy.get("type") or "RollingUpdate (default)",
                    "OnDelete, draining each node before its driver pod is replaced",
                ),
            )
        if count is not None and desired > 1 and count >= desired:
            return gap(
                f"a {role} rollout restarts it on all {desired} nodes at once",
                Evidence(
                    "spec.updateStrategy.rollingUpdate.maxUnavailable",
                    (strategy.get("rollingUpdate") or {}).get("maxUnavailable"),
                    f"< {desired} (a few nodes at a time)",
                ),
            )
        return None

    yield from per_object(
        items,
        judge,
        ok="GPU driver and device-plugin rollouts are staged (one batch of nodes at a time, drained first)",
        none="no GPU Operator ClusterPolicy, driver or device-plugin DaemonSet found",
        not_seen=["upgrades applied outside Kubernetes (host OS packages, node images)"],
    )


def _policy_gap(spec: Obj, gpu_nodes: int) -> Gap | Skip | None:
    driver = spec.get("driver") or {}
    evidence: list[Evidence] = []
    if driver.get("enabled") is not False:
        policy = driver.get("upgradePolicy") or {}
        if policy.get("autoUpgrade") is False:
            return Skip("driver upgrades are manual (driver.upgradePolicy.autoUpgrade false)")
        parallel = policy.get("maxParallelUpgrades", 1)
        if parallel == 0 or (gpu_nodes > 1 and int(parallel) >= gpu_nodes):
            evidence.append(
                Evidence(
                    "spec.driver.upgradePolicy.maxParallelUpgrades",
                    parallel,
                    f"a few of the {gpu_nodes} GPU nodes (default 1)",
                )
            )
        unavailable = policy.get("maxUnavailable", "25%")
        if (
            gpu_nodes > 1
            and scaled_int_or_percent(unavailable, gpu_nodes, 1, round_up=True) >= gpu_nodes
        ):
            evidence.append(
                Evidence(
                    "spec.driver.upgradePolicy.maxUnavailable",
                    unavailable,
                    f"< {gpu_nodes} GPU nodes",
                )
            )
    operands = spec.get("daemonsets") or {}
    if operands.get("updateStrategy", "RollingUpdate") == "RollingUpdate" and gpu_nodes > 1:
        raw = (operands.get("rollingUpdate") or {}).get("maxUnavailable")
        if scaled_int_or_percent(raw, gpu_nodes, 1, round_up=True) >= gpu_nodes:
            evidence.append(
                Evidence(
                    "spec.daemonsets.rollingUpdate.maxUnavailable", raw, f"< {gpu_nodes} GPU nodes"
                )
            )
    if not evidence:
        return None
    return gap("GPU Operator upgrades the GPU stack on every GPU node at once", *evidence)


CHECKS = [
    Check(
        id="PLAT-001",
        title="Fleet-wide DaemonSet rolls out to many nodes at once",
        pass_title="Fleet-wide DaemonSets roll out a few nodes at a time",
        severity="medium",
        category="platform",
        reads=("daemonsets.apps",),
        cases=(
            "datadog-2023-03-08-systemd-cilium",
            "openai-2024-12-11-telemetry-control-plane",
            "openai-2024-11-25-namespace-labels",
        ),
        references=(
            Reference(
                "https://kubernetes.io/docs/tasks/manage-daemon/update-daemon-set/",
                "Kubernetes: DaemonSet rolling update",
            ),
        ),
        why=(
            "A change that reaches every node at once turns one bad version into a fleet-wide "
            "outage: Datadog lost networking on tens of thousands of nodes from one update, and "
            "OpenAI's new per-node telemetry agent overloaded the API servers of its clusters."
        ),
        remediation=(
            "Roll node agents out gradually: maxUnavailable of 1 or a few percent, canary node "
            "pools first, and watch API-server load while the rollout proceeds."
        ),
        confidence="definitive",
        func=daemonset_rollout,
        cluster_wide=True,
        settings=(
            Setting("min_fleet", 20, "DaemonSets on fewer nodes are not judged"),
            Setting(
                "max_unavailable_percent", 25, "largest share of nodes a rollout may take at once"
            ),
        ),
    ),
    Check(
        id="PLAT-002",
        title="etcd runs with the default 2 GiB storage quota",
        pass_title="etcd runs with a raised storage quota",
        severity="medium",
        category="platform",
        reads=("pods",),
        cases=("openai-2018-k8s-etcd-quota-autoscaler", "openai-2018-k8s-etcd-latency"),
        references=(
            Reference("https://etcd.io/docs/latest/dev-guide/limit/", "etcd: storage size limit"),
        ),
        why=(
            "When etcd reaches its storage quota it stops accepting writes; at OpenAI this made "
            "every node fail health checks and the autoscaler terminated all workers."
        ),
        remediation=(
            "Raise --quota-backend-bytes (up to 8 GiB), keep Events in a separate etcd "
            "(--etcd-servers-overrides) and alert on etcd database size."
        ),
        confidence="definitive",
        func=etcd_quota,
        cluster_wide=True,
    ),
    Check(
        id="PLAT-003",
        title="GPU driver or device-plugin upgrades without a drain or a staged rollout",
        pass_title="GPU driver and device-plugin upgrades are drained or staged",
        severity="high",
        category="platform",
        reads=("nodes", "daemonsets.apps", "clusterpolicies.nvidia.com"),
        cases=(
            "openai-2025-06-10-gpu-host-os-update",
            "datadog-2023-03-08-systemd-cilium",
            "heroku-2025-06-10-unattended-os-update",
        ),
        references=(
            Reference(
                "https://github.com/NVIDIA/gpu-operator/blob/main/api/nvidia/v1alpha1/nvidiadriver_types.go",
                "GPU Operator: DriverUpgradePolicySpec (autoUpgrade, maxParallelUpgrades, drain)",
            ),
            Reference(
                "https://kubernetes.io/docs/tasks/manage-daemon/update-daemon-set/",
                "Kubernetes: DaemonSet update strategies (RollingUpdate, OnDelete)",
            ),
        ),
        why=(
            "Node software updated everywhere at once turns one bad version into a fleet outage: a "
            "routine host update cut the network of many of OpenAI's GPU nodes, an unattended "
            "systemd update took tens of thousands of Datadog's nodes off the network at once, and "
            "an unattended OS update left Heroku's hosts without outbound connections. A "
            "GPU driver is node software too, and it cannot be reloaded under running GPU pods: a "
            "driver DaemonSet that rolls in place kills or wedges the jobs on each node."
        ),
        remediation=(
            "Let the GPU Operator's upgrade controller reload drivers (driver.upgradePolicy."
            "autoUpgrade with maxParallelUpgrades of 1 or a few, and drain or GPU-pod deletion), "
            "or give a hand-run driver DaemonSet updateStrategy OnDelete and drain each node before "
            "replacing its driver pod; roll device plugins a few nodes at a time."
        ),
        confidence="heuristic",
        func=gpu_upgrades,
        cluster_wide=True,
    ),
]
