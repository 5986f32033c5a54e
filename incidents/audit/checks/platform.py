"""Kubernetes platform risks behind fleet-wide outages: all-at-once rollouts, etcd quota."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..context import Context
from ..model import Check, Evidence, Reference, Result, fail, not_applicable, passed
from .common import name_of

MIN_FLEET = 20
MAX_UNAVAILABLE_SHARE = 0.25
QUOTA_FLAG = re.compile(r"--quota-backend-bytes(?:=|\s+)(\d+)")
DEFAULT_QUOTA = 2 * 1024**3


def _unavailable(value: object, desired: int) -> int:
    text = str(value if value is not None else 1)
    if text.endswith("%"):
        return int(desired * float(text[:-1]) / 100)
    return int(text)


def daemonset_rollout(ctx: Context) -> Iterator[Result]:
    fleet = [
        ds
        for ds in ctx.items("daemonsets.apps")
        if int((ds.get("status") or {}).get("desiredNumberScheduled", 0)) >= MIN_FLEET
    ]
    if not fleet:
        yield not_applicable(f"no DaemonSet runs on {MIN_FLEET} or more nodes")
        return
    failed = 0
    for ds in fleet:
        desired = int(ds["status"]["desiredNumberScheduled"])
        strategy = (ds.get("spec") or {}).get("updateStrategy") or {}
        if strategy.get("type") == "OnDelete":
            continue
        raw = (strategy.get("rollingUpdate") or {}).get("maxUnavailable")
        at_once = _unavailable(raw, desired)
        if at_once > desired * MAX_UNAVAILABLE_SHARE:
            failed += 1
            yield fail(
                ctx.ref("daemonsets.apps", ds),
                f"a rollout replaces {at_once} of {desired} node agents at once",
                Evidence(
                    "spec.updateStrategy.rollingUpdate.maxUnavailable",
                    raw,
                    f"<= {int(MAX_UNAVAILABLE_SHARE * 100)}% of nodes",
                ),
            )
    if not failed:
        yield passed(f"{len(fleet)} fleet-wide DaemonSets roll out gradually")


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
    if not etcd:
        yield not_applicable("no etcd pod visible (managed control plane or external etcd)")
        return
    failed = 0
    for pod in etcd:
        words = " ".join(
            str(w)
            for c in pod["spec"].get("containers") or []
            for w in (c.get("command") or []) + (c.get("args") or [])
        )
        match = QUOTA_FLAG.search(words)
        quota = int(match.group(1)) if match else None
        if quota is None or quota <= DEFAULT_QUOTA:
            failed += 1
            yield fail(
                ctx.ref("pods", pod),
                "etcd runs with the default 2 GiB storage quota",
                Evidence(
                    "spec.containers[etcd].command[--quota-backend-bytes]",
                    quota,
                    f"> {DEFAULT_QUOTA} (up to 8 GiB)",
                ),
            )
    if not failed:
        yield passed(f"{len(etcd)} etcd members have a raised storage quota")


CHECKS = [
    Check(
        id="PLAT-001",
        title="Fleet-wide DaemonSet rolls out to many nodes at once",
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
    ),
    Check(
        id="PLAT-002",
        title="etcd runs with the default 2 GiB storage quota",
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
]
