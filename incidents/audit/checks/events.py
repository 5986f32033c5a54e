"""Recent Warning events: GPU and NCCL faults that agents reported, GPU pods that cannot schedule.

kubegap lists core/v1 Events with ``type=Warning`` only, and at most a few thousand of them; the
API server keeps events for an hour by default (``--event-ttl``), so only recent trouble shows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta

from ..context import Context
from ..k8s import Obj
from ..k8s import parse_time
from ..k8s import spec_gpus
from ..kinds import MAX_EVENTS
from ..model import Check
from ..model import Evidence
from ..model import Reference
from ..model import Resource
from ..model import Result
from ..model import Setting
from ..wording import counted
from .common import fail
from .common import not_applicable
from .common import passed
from .common import shown

EVENTS = "events"
GPU_FAULT = re.compile(
    r"\bxid\b|nvlink|\becc\b|double[- ]bit|row.?remap|fell off the bus|gpu (is )?lost|"
    r"gpu.*(unhealthy|error|fault|missing)|nccl|collective operation timeout|\bsxid\b|\bhbm\b|"
    r"nvrm|dcgm",
    re.IGNORECASE,
)
GPU_REQUEST = re.compile(r"(nvidia\.com/(gpu|mig-[\w.-]+)|amd\.com/gpu)")
HEALTH_AGENTS = ("nvsentinel", "gpud", "gpu-health", "eks-node-monitoring-agent")
WINDOW = Setting("window_hours", 24, "how recent an event must be to count")


def _recent(ctx: Context) -> list[Obj]:
    window = timedelta(hours=float(ctx.param("window_hours")))
    out = []
    for ev in ctx.items(EVENTS):
        if ev.get("type") != "Warning":
            continue
        when = parse_time(ev.get("lastTimestamp"))
        if when is None or ctx.now - when <= window:
            out.append(ev)
    return out


def _not_seen(ctx: Context) -> list[str]:
    out = ["events the API server already expired (--event-ttl, 1 h by default)"]
    if ctx.truncated(EVENTS):
        out.append(f"Warning events beyond the first {MAX_EVENTS} listed")
    return out


def _describe(ev: Obj) -> str:
    count = ev.get("count") or 1
    return f"{ev.get('reason')}: {str(ev.get('message', ''))[:160]} (x{count}, last {ev.get('lastTimestamp')})"


def _involved(ctx: Context, ev: Obj) -> tuple[Resource, Obj | None]:
    inv = ev.get("involvedObject") or {}
    kind, name, ns = str(inv.get("kind", "")), str(inv.get("name", "")), inv.get("namespace")
    if kind == "Node":
        node = ctx.nodes_by_name.get(name)
        return (ctx.ref("nodes", node) if node else Resource("v1", "Node", name)), node
    if kind == "Pod":
        pod = next((p for p in ctx.pods_by_name.get((ns or "", name), ())), None)
        if pod is not None:
            return ctx.workload_of(pod), pod
        return Resource("v1", "Pod", name, ns), None
    return Resource(str(inv.get("apiVersion", "v1")), kind or "Unknown", name, ns), None


def _is_gpu_fault(ev: Obj) -> bool:
    source = str(ev.get("source") or "")
    text = f"{ev.get('reason', '')} {ev.get('message', '')}"
    return ev.get("reason") != "FailedScheduling" and (
        bool(GPU_FAULT.search(text)) or any(a in source for a in HEALTH_AGENTS)
    )


def fault_events(ctx: Context) -> Iterator[Result]:
    if not ctx.gpu_nodes:
        yield not_applicable("no GPU nodes")
        return
    recent = _recent(ctx)
    by_object: dict[Resource, list[Obj]] = {}
    for ev in recent:
        if _is_gpu_fault(ev):
            by_object.setdefault(_involved(ctx, ev)[0], []).append(ev)
    for resource, events in sorted(by_object.items(), key=lambda kv: kv[0].logical_name):
        events.sort(key=lambda e: str(e.get("lastTimestamp")), reverse=True)
        yield fail(
            resource,
            f"GPU or NCCL fault reported in {counted(len(events), 'recent Warning event')}",
            Evidence(
                "events[type=Warning]",
                shown([_describe(e) for e in events], 5),
                "no GPU or NCCL fault event",
            ),
            members=sorted(
                {
                    f"{(e.get('involvedObject') or {}).get('kind')} {(e.get('involvedObject') or {}).get('name')}"
                    for e in events
                }
            ),
        )
    if not by_object:
        yield passed(
            f"no Warning event of the last {float(ctx.param('window_hours')):g} h reports a GPU or "
            f"NCCL fault{ctx.scope} ({len(recent)} recent Warning events examined)",
            not_seen=_not_seen(ctx),
        )


def unschedulable_gpu_pods(ctx: Context) -> Iterator[Result]:
    pending = [p for p in ctx.gpu_pods if (p.get("status") or {}).get("phase") == "Pending"]
    recent = [e for e in _recent(ctx) if e.get("reason") == "FailedScheduling"]
    by_workload: dict[Resource, list[tuple[Obj, Obj]]] = {}
    for ev in recent:
        resource, pod = _involved(ctx, ev)
        if pod is None or (pod.get("status") or {}).get("phase") != "Pending":
            continue  # scheduled since, or gone
        if spec_gpus(pod.get("spec") or {}, ctx.dra_gpus) or GPU_REQUEST.search(
            str(ev.get("message", ""))
        ):
            by_workload.setdefault(resource, []).append((ev, pod))
    for resource, found in sorted(by_workload.items(), key=lambda kv: kv[0].logical_name):
        pods = sorted({str(p["metadata"].get("name")) for _, p in found})
        yield fail(
            resource,
            f"{counted(len(pods), 'GPU pod')} cannot be scheduled",
            Evidence(
                "events[reason=FailedScheduling]",
                shown([_describe(e) for e, _ in found], 3),
                "the pods scheduled",
            ),
            members=[f"pod {n}" for n in pods],
        )
    if by_workload:
        return
    if not pending and not recent:
        yield not_applicable(f"no Pending GPU pod{ctx.scope} and no recent FailedScheduling event")
        return
    yield passed(
        f"no Pending GPU pod{ctx.scope} has a recent FailedScheduling event ({len(pending)} Pending "
        f"GPU pods, {len(recent)} FailedScheduling events examined)",
        not_seen=_not_seen(ctx),
    )


_EVENT_API = Reference(
    "https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/event-v1/",
    "Kubernetes: Event v1",
)

CHECKS = [
    Check(
        id="EVT-001",
        title="Recent Warning events report GPU or NCCL faults",
        pass_title="No recent Warning event reports a GPU or NCCL fault",
        severity="high",
        category="gpu-health",
        reads=(EVENTS, "nodes", "pods"),
        cases=(
            "meta-rsc-reliability-study",
            "bytedance-megascale-nic-flapping",
            "ncsa-delta-gpu-resilience-study",
        ),
        references=(
            _EVENT_API,
            Reference(
                "https://github.com/kubernetes/node-problem-detector",
                "node-problem-detector: kernel and GPU problems as events and conditions",
            ),
        ),
        why=(
            "Health agents report XID, ECC, NVLink and NCCL trouble as Warning events before (or "
            "instead of) a node condition; Meta tied each job failure to the health-check events "
            "around it, GPU errors often ended user jobs on NCSA's Delta, and NCCL timeouts from "
            "flapping links crashed ByteDance's large jobs. "
            "Events expire within an hour by default, so nobody sees them unless they are read."
        ),
        remediation=(
            "Look at the listed objects now: drain the node whose GPU or link reported the fault, "
            "restart the affected job from its last checkpoint, and export Warning events to a "
            "store with alerts (an event exporter) so they outlive the API server's TTL."
        ),
        confidence="heuristic",
        func=fault_events,
        settings=(WINDOW,),
    ),
    Check(
        id="EVT-002",
        title="GPU pods stay Pending on FailedScheduling",
        pass_title="No GPU pod stays Pending on FailedScheduling",
        severity="medium",
        category="scheduling",
        reads=(EVENTS, "pods"),
        cases=("acme-llm-dev-infra-failures", "microsoft-philly-dl-job-failures"),
        references=(
            _EVENT_API,
            Reference(
                "https://kubernetes.io/docs/concepts/scheduling-eviction/kube-scheduler/",
                "Kubernetes: kube-scheduler filtering",
            ),
        ),
        why=(
            "Queueing is where GPU jobs lose time without failing: Acme's evaluation jobs lost "
            "more to waiting than to faults, and gang constraints lengthened Philly's queues. A "
            "GPU pod the scheduler keeps rejecting (no free GPU, a taint no toleration matches, a "
            "selector no node has) waits silently while its gang holds the rest."
        ),
        remediation=(
            "Read the FailedScheduling message: add capacity or free GPUs held by idle pods, fix "
            "the selector or toleration, or queue the job with Kueue so it waits admitted as a "
            "whole instead of holding partial GPUs."
        ),
        confidence="definitive",
        func=unschedulable_gpu_pods,
        settings=(WINDOW,),
    ),
]
