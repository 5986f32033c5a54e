"""Scale benchmark (not a test): audit a synthetic 5,000-node / 100,000-pod GPU cluster from a
snapshot, against the floor of merely ``json.load``-ing the same file.

    make bench-kubegap                                   # full size, one run
    .venv/bin/python tests/audit/bench_scale.py --quick  # 500 nodes / 10,000 pods
    .venv/bin/python tests/audit/bench_scale.py --repeat 3 --json

Objects are generated as full Kubernetes objects (managedFields, last-applied annotations, env,
status), projected as the client does while paging, and saved with ``snapshot.save`` as ``kubegap
collect`` would. Then, in fresh processes, alternately: the floor (``json.load`` of the file) and
``kubegap audit --snapshot FILE -o json --output-file REPORT``. Wall time, CPU time (user +
system) and peak RSS are each process's own (``os.wait4``). Ratios are taken per pair of runs
and their medians printed; on a machine busy with other work the wall ratio is noisy (the
allocation-heavy floor suffers more from contention), the CPU ratio less so. Targets (issue 15):
both ratios <= 2, peak RSS <= 600 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from incidents.audit.checks import ALL_CHECKS  # noqa: E402
from incidents.audit.engine import needed_kinds  # noqa: E402
from incidents.audit.kinds import KINDS  # noqa: E402
from incidents.audit.kinds import project  # noqa: E402
from incidents.audit.snapshot import Coverage  # noqa: E402
from incidents.audit.snapshot import Snapshot  # noqa: E402
from incidents.audit.snapshot import save  # noqa: E402

PODS_PER_JOB = 8
TARGET_RATIO = 2.0
TARGET_RSS_MB = 600


def nodes(n: int) -> Iterator[dict[str, Any]]:
    for i in range(n):
        gpu = i % 10 != 0
        labels = {"kubernetes.io/hostname": f"node-{i}", "topology.kubernetes.io/zone": f"z{i % 3}"}
        if gpu:
            labels.update(
                {
                    "nvidia.com/gpu.present": "true",
                    "nvidia.com/gpu.product": "NVIDIA-H100",
                    "node.kubernetes.io/instance-type": "p5.48xlarge",
                }
            )
        conditions = [
            {
                "type": t,
                "status": "False",
                "reason": "KubeletHasSufficient",
                "message": "ok" * 20,
                "lastHeartbeatTime": "2026-06-01T00:00:00Z",
            }
            for t in ("MemoryPressure", "DiskPressure", "PIDPressure")
        ]
        conditions.append({"type": "Ready", "status": "True" if i % 500 else "Unknown"})
        if gpu:
            conditions.append({"type": "XIDErrors", "status": "True" if i % 997 == 0 else "False"})
        cap = {"cpu": "192", "memory": "2Ti", "pods": "110"} | (
            {"nvidia.com/gpu": "8"} if gpu else {}
        )
        yield {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": f"node-{i}",
                "uid": f"n{i}",
                "labels": labels,
                "managedFields": [
                    {"manager": "kubelet", "fieldsV1": {"f:status": {"x": "y" * 400}}}
                ],
            },
            "spec": {"providerID": f"aws:///z/i-{i:017x}"},
            "status": {
                "capacity": cap,
                "allocatable": dict(cap),
                "conditions": conditions,
                "images": [
                    {"names": [f"registry/img-{j}:{j}"], "sizeBytes": 10**9} for j in range(20)
                ],
                "nodeInfo": {"kubeletVersion": "v1.30.2", "osImage": "Ubuntu 22.04"},
            },
        }


def pods(n: int, n_nodes: int) -> Iterator[dict[str, Any]]:
    """Pods of PyTorchJobs of 8 (a master and 7 workers); one pod in 5 asks for no GPU."""
    for i in range(n):
        job = i // PODS_PER_JOB
        role = "master" if i % PODS_PER_JOB == 0 else "worker"
        gpu = i % 5 != 0
        res = {"limits": {"cpu": "8", "memory": "64Gi"} | ({"nvidia.com/gpu": "1"} if gpu else {})}
        env = [{"name": f"VAR_{k}", "value": "x" * 40} for k in range(15)] + [
            {"name": "NCCL_DEBUG", "value": "WARN"}
        ]
        yield {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": f"job-{job}-{role}-{i % PODS_PER_JOB}",
                "namespace": f"team-{job % 50}",
                "uid": f"p{i}",
                "labels": {
                    "training.kubeflow.org/job-name": f"job-{job}",
                    "training.kubeflow.org/replica-type": role,
                    "app": "train",
                },
                "ownerReferences": [
                    {
                        "apiVersion": "kubeflow.org/v1",
                        "kind": "PyTorchJob",
                        "name": f"job-{job}",
                        "uid": f"j{job}",
                        "controller": True,
                    }
                ],
                "annotations": {
                    "kubectl.kubernetes.io/last-applied-configuration": "{" + "x" * 2000 + "}"
                },
                "managedFields": [
                    {"manager": "kubelet", "fieldsV1": {"f:status": {"x": "y" * 600}}}
                ],
            },
            "spec": {
                "nodeName": f"node-{(i * 7) % n_nodes}",
                "terminationGracePeriodSeconds": 30,
                "containers": [
                    {
                        "name": "trainer",
                        "image": "registry/train:1",
                        "resources": res,
                        "env": env,
                        "command": ["torchrun"],
                        "args": ["--nnodes=8", "train.py"],
                        "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}],
                    }
                ],
                "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory"}}],
            },
            "status": {
                "phase": "Running",
                "conditions": [{"type": "Ready", "status": "True"}] * 4,
                "containerStatuses": [
                    {
                        "name": "trainer",
                        "ready": True,
                        "restartCount": i % 3,
                        "imageID": "sha256:" + "a" * 64,
                        "containerID": "c" * 70,
                        "lastState": {
                            "terminated": {
                                "reason": "OOMKilled" if i % 1000 == 0 else "Error",
                                "exitCode": 137,
                                "finishedAt": "2026-05-31T00:00:00Z",
                            }
                        },
                    }
                ],
            },
        }


def pytorchjobs(n_jobs: int) -> Iterator[dict[str, Any]]:
    """The PyTorchJobs the pods belong to: a Master and 7 Workers, as the pods are."""
    for job in range(n_jobs):
        container = {
            "name": "trainer",
            "image": "registry/train:1",
            "resources": {"limits": {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": "1"}},
            "command": ["torchrun"],
            "args": ["--nnodes=8", "train.py"],
        }
        template = {
            "metadata": {"labels": {"app": "train"}},
            "spec": {"terminationGracePeriodSeconds": 30, "containers": [container]},
        }
        yield {
            "apiVersion": "kubeflow.org/v1",
            "kind": "PyTorchJob",
            "metadata": {
                "name": f"job-{job}",
                "namespace": f"team-{job % 50}",
                "uid": f"j{job}",
                "annotations": {
                    "kubectl.kubernetes.io/last-applied-configuration": "{" + "x" * 2000 + "}"
                },
            },
            "spec": {
                "runPolicy": {"cleanPodPolicy": "None"},
                "pytorchReplicaSpecs": {
                    "Master": {"replicas": 1, "restartPolicy": "OnFailure", "template": template},
                    "Worker": {
                        "replicas": PODS_PER_JOB - 1,
                        "restartPolicy": "OnFailure",
                        "template": template,
                    },
                },
            },
            "status": {"conditions": [{"type": "Running", "status": "True"}]},
        }


def synthetic_snapshot(n_nodes: int, n_pods: int, listed_jobs: bool = True) -> Snapshot:
    """The cluster as ``kubegap collect`` would hold it: every object projected as it is read.

    Without ``listed_jobs`` the pods' PyTorchJobs are not in the snapshot (the shape issue 15
    measured): their pods are then grouped by owner reference, one workload per job still.
    """
    snap = Snapshot(
        context="synthetic",
        collected_at="2026-06-01T00:00:00Z",
        server_version={"gitVersion": "v1.30.2"},
    )
    for key in needed_kinds(ALL_CHECKS):
        snap.objects[key] = []
    jobs = "pytorchjobs.kubeflow.org"
    snap.objects["nodes"] = [project("nodes", o) for o in nodes(n_nodes)]
    snap.objects["pods"] = [project("pods", o) for o in pods(n_pods, n_nodes)]
    n_jobs = -(-n_pods // PODS_PER_JOB) if listed_jobs else 0
    snap.objects[jobs] = [project(jobs, o) for o in pytorchjobs(n_jobs)]
    for key, items in snap.objects.items():
        spec = KINDS[key]
        pages = max(1, -(-len(items) // 500))
        snap.coverage[key] = Coverage(
            "listed", spec.api_version(spec.versions[0]), len(items), pages
        )
    return snap


def _measure(argv: list[str]) -> tuple[float, float, float]:
    """Run ``argv``; its wall time (s), its CPU time (user + system, s) and its own peak RSS."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - t0
    err = proc.stderr.read().decode() if proc.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):  # kubegap exits 1 when it finds failing findings, as it does here
        raise SystemExit(f"{argv[:4]} exited {code}: {err.strip()[-500:]}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


FLOOR = "import gzip, json, sys; p = sys.argv[1]; json.load(gzip.open(p) if p.endswith('.gz') else open(p, 'rb'))"


def run(n_nodes: int, n_pods: int, repeat: int, gz: bool, listed_jobs: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="kubegap-bench-") as tmp:
        path = Path(tmp) / ("cluster.json.gz" if gz else "cluster.json")
        report = Path(tmp) / "report.json"
        t0 = time.perf_counter()
        save(synthetic_snapshot(n_nodes, n_pods, listed_jobs), path)
        generated = time.perf_counter() - t0
        floor_argv = [sys.executable, "-c", FLOOR, str(path)]
        audit_argv = [sys.executable, "-m", "incidents.audit", "audit", "--snapshot", str(path)]
        audit_argv += ["-o", "json", "--output-file", str(report)]
        runs = []
        for _ in range(repeat):
            floor_s, floor_cpu, floor_rss = _measure(floor_argv)
            audit_s, audit_cpu, audit_rss = _measure(audit_argv)
            runs.append({"floor_s": floor_s, "floor_cpu_s": floor_cpu, "floor_rss_mb": floor_rss,
                         "audit_s": audit_s, "audit_cpu_s": audit_cpu, "audit_rss_mb": audit_rss,
                         "ratio": audit_s / floor_s, "cpu_ratio": audit_cpu / floor_cpu})  # fmt: skip
        doc = json.loads(report.read_bytes())
        findings = doc["findings"]
        workload_findings = [f for f in findings if f["resource"]["kind"] == "PyTorchJob"]
        return {
            "nodes": n_nodes,
            "pods": n_pods,
            "listed_jobs": listed_jobs,
            "snapshot_bytes": path.stat().st_size,
            "snapshot_file": path.name,
            "generate_s": generated,
            "report_bytes": report.stat().st_size,
            "findings": len(findings),
            "pytorchjob_findings": len(workload_findings),
            "pod_findings": sum(1 for f in findings if f["resource"]["kind"] == "Pod"),
            "runs": runs,
            "floor_s": statistics.median(r["floor_s"] for r in runs),
            "audit_s": statistics.median(r["audit_s"] for r in runs),
            "ratio": statistics.median(r["ratio"] for r in runs),
            "floor_cpu_s": statistics.median(r["floor_cpu_s"] for r in runs),
            "audit_cpu_s": statistics.median(r["audit_cpu_s"] for r in runs),
            "cpu_ratio": statistics.median(r["cpu_ratio"] for r in runs),
            "audit_rss_mb": max(r["audit_rss_mb"] for r in runs),
            "floor_rss_mb": max(r["floor_rss_mb"] for r in runs),
            "json_backend": _backend(),
            "python": sys.version.split()[0],
            "cpus": os.cpu_count(),
            "load_average": os.getloadavg()[0],
        }


def _backend() -> str:
    from incidents.audit.jsonio import BACKEND

    return BACKEND


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="500 nodes / 10,000 pods")
    parser.add_argument("--repeat", type=int, default=1, help="pairs of runs (median printed)")
    parser.add_argument("--gzip", action="store_true", help="a .json.gz snapshot")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--listed-jobs",
        action="store_true",
        help="also list the pods' PyTorchJobs (default: pods only, the shape issue 15 measured)",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.nodes, args.pods = 500, 10_000
    r = run(args.nodes, args.pods, max(1, args.repeat), args.gzip, args.listed_jobs)
    worst = max(r["ratio"], r["cpu_ratio"])  # a busy machine can flatter either one
    r["ok"] = worst <= TARGET_RATIO and r["audit_rss_mb"] <= TARGET_RSS_MB
    if args.json:
        print(json.dumps(r, indent=2))
        return 0
    jobs = f" + {r['pods'] // PODS_PER_JOB:,} PyTorchJobs" if r["listed_jobs"] else ""
    print(f"kubegap audit of {r['nodes']:,} nodes / {r['pods']:,} pods{jobs} from a snapshot "
          f"({r['snapshot_file']}, {r['snapshot_bytes'] / 1e6:.0f} MB; JSON: {r['json_backend']}; "
          f"{r['cpus']} CPUs, load {r['load_average']:.1f})")  # fmt: skip
    print(f"{'':28}{'wall':>9}{'CPU':>9}{'peak RSS':>11}")
    for label, side in (("floor: json.load", "floor"), ("kubegap audit -o json", "audit")):
        print(f"{label:28}{r[side + '_s']:>8.1f}s{r[side + '_cpu_s']:>8.1f}s"
              f"{r[side + '_rss_mb']:>8.0f} MB")  # fmt: skip
    print(f"ratio {r['ratio']:.2f}x the floor in wall time, {r['cpu_ratio']:.2f}x in CPU time "
          f"(target <= {TARGET_RATIO:g}x, medians of {len(r['runs'])}); peak RSS target <= "
          f"{TARGET_RSS_MB} MB: {'met' if r['ok'] else 'NOT met'}")  # fmt: skip
    print(f"report: {r['report_bytes'] / 1e6:.1f} MB, {r['findings']:,} findings "
          f"({r['pytorchjob_findings']:,} on PyTorchJobs, {r['pod_findings']} on pods)")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
