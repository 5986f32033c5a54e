"""Validation before work lands: multi-node NCCL burn-in and the GPU software stack."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta

from ..context import Context
from ..k8s import Obj, condition, parse_time
from ..model import CLUSTER, Check, Evidence, Reference, Result, fail, not_applicable, passed
from .common import name_of

NCCL_TEST = re.compile(
    r"nccl-tests|nccl_tests|all_reduce_perf|all_gather_perf|alltoall_perf|reduce_scatter_perf"
)
FRESH = timedelta(days=30)
STACK_DAEMONSETS = (
    "nvidia-operator-validator",
    "nvidia-device-plugin",
    "gpu-feature-discovery",
    "nvidia-driver",
    "nvidia-container-toolkit",
)


def _mentions_nccl_test(spec: Obj) -> bool:
    for c in spec.get("containers") or []:
        words = [str(c.get("image", ""))] + [
            str(a) for a in (c.get("command") or []) + (c.get("args") or [])
        ]
        if any(NCCL_TEST.search(w) for w in words):
            return True
    return False


def burn_in(ctx: Context) -> Iterator[Result]:
    if len(ctx.gpu_nodes) < 2:
        yield not_applicable("fewer than two GPU nodes")
        return
    runs: list[tuple[str, str | None]] = []  # (where, last success time)
    for job in ctx.items("jobs.batch"):
        if _mentions_nccl_test(((job.get("spec") or {}).get("template") or {}).get("spec") or {}):
            ok = (job.get("status") or {}).get("succeeded") and job["status"].get("completionTime")
            runs.append((f"Job {job['metadata'].get('namespace')}/{name_of(job)}", ok or None))
    for cj in ctx.items("cronjobs.batch"):
        tpl = ((cj.get("spec") or {}).get("jobTemplate") or {}).get("spec", {}).get(
            "template"
        ) or {}
        if _mentions_nccl_test(tpl.get("spec") or {}):
            last = (cj.get("status") or {}).get("lastSuccessfulTime") or cj.get("status", {}).get(
                "lastScheduleTime"
            )
            runs.append((f"CronJob {cj['metadata'].get('namespace')}/{name_of(cj)}", last))
    for key, field in (
        ("mpijobs.kubeflow.org", "mpiReplicaSpecs"),
        ("pytorchjobs.kubeflow.org", "pytorchReplicaSpecs"),
    ):
        for job in ctx.items(key):
            roles = ((job.get("spec") or {}).get(field) or {}).values()
            if any(_mentions_nccl_test((r.get("template") or {}).get("spec") or {}) for r in roles):
                done = condition(job, "Succeeded")
                last = (
                    done.get("lastTransitionTime")
                    if done and done.get("status") == "True"
                    else None
                )
                runs.append(
                    (f"{key.split('.')[0]} {job['metadata'].get('namespace')}/{name_of(job)}", last)
                )
    fresh = [(w, t) for w, t in runs if t and (when := parse_time(t)) and ctx.now - when <= FRESH]
    expected = "a multi-node NCCL test (nccl-tests) that succeeded in the last 30 days"
    if fresh:
        yield passed(
            "recent multi-node NCCL burn-in found",
            Evidence("jobs,cronjobs,mpijobs,pytorchjobs", sorted(fresh)[:5], expected),
        )
    elif runs:
        yield fail(
            CLUSTER,
            "NCCL burn-in exists but has not succeeded in the last 30 days",
            Evidence("jobs,cronjobs,mpijobs,pytorchjobs", sorted(runs, key=str)[:5], expected),
        )
    else:
        yield fail(
            CLUSTER,
            f"no multi-node NCCL burn-in found for {len(ctx.gpu_nodes)} GPU nodes",
            Evidence("jobs,cronjobs,mpijobs,pytorchjobs", "none", expected),
        )


def gpu_stack(ctx: Context) -> Iterator[Result]:
    examined = failed = 0
    for cp in ctx.items("clusterpolicies.nvidia.com"):
        examined += 1
        state = (cp.get("status") or {}).get("state")
        if state != "ready":
            failed += 1
            yield fail(
                ctx.ref("clusterpolicies.nvidia.com", cp),
                "GPU Operator stack is not ready",
                Evidence("status.state", state, "ready"),
            )
    for ds in ctx.items("daemonsets.apps"):
        if not any(name_of(ds).startswith(p) for p in STACK_DAEMONSETS):
            continue
        examined += 1
        status = ds.get("status") or {}
        desired, ready = (
            int(status.get("desiredNumberScheduled", 0)),
            int(status.get("numberReady", 0)),
        )
        if ready < desired:
            failed += 1
            yield fail(
                ctx.ref("daemonsets.apps", ds),
                f"{desired - ready} GPU stack pods not Ready",
                Evidence("status.numberReady", ready, desired),
            )
    if not examined:
        yield not_applicable("no GPU Operator ClusterPolicy or GPU stack DaemonSet found")
    elif not failed:
        yield passed(f"GPU stack validated ({examined} components ready)")


CHECKS = [
    Check(
        id="PRE-001",
        title="No recent multi-node NCCL burn-in",
        severity="medium",
        category="preflight",
        reads=(
            "nodes",
            "jobs.batch",
            "cronjobs.batch",
            "mpijobs.kubeflow.org",
            "pytorchjobs.kubeflow.org",
        ),
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
    ),
    Check(
        id="PRE-002",
        title="GPU software stack not validated",
        severity="high",
        category="preflight",
        reads=("daemonsets.apps", "clusterpolicies.nvidia.com"),
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
            "the listed DaemonSet); keep the node tainted until nvidia-operator-validator passes."
        ),
        confidence="definitive",
        func=gpu_stack,
        cluster_wide=True,
    ),
]
