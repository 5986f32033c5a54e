"""Scale benchmark (not a test): audit a synthetic 5,000-node / 100,000-pod GPU cluster.

    /work/venv/bin/python tests/audit/bench_scale.py [--nodes 5000] [--pods 100000] [--http]

Objects are generated as full Kubernetes objects (with managedFields, env, status) and projected
one by one as the client does while paging, so the peak memory printed is what an audit of such
a cluster holds. ``--http`` goes through the fake API server and the real client instead (paged
lists over loopback HTTP; slower, and the server's copy of the objects counts too).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from incidents.audit.checks import ALL_CHECKS  # noqa: E402
from incidents.audit.engine import needed_kinds, run_checks  # noqa: E402
from incidents.audit.kinds import (  # noqa: E402
    KINDS,
    project,  # noqa: E402
    spec_for_object,
)
from incidents.audit.snapshot import Coverage, Snapshot  # noqa: E402


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
    for i in range(n):
        job = i // 8
        gpu = i % 5 != 0
        res = {"limits": {"cpu": "8", "memory": "64Gi"} | ({"nvidia.com/gpu": "1"} if gpu else {})}
        env = [{"name": f"VAR_{k}", "value": "x" * 40} for k in range(15)] + [
            {"name": "NCCL_DEBUG", "value": "WARN"}
        ]
        yield {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": f"job-{job}-worker-{i % 8}",
                "namespace": f"team-{job % 50}",
                "uid": f"p{i}",
                "labels": {"training.kubeflow.org/job-name": f"job-{job}", "app": "train"},
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


def in_process(n_nodes: int, n_pods: int) -> Snapshot:
    snap = Snapshot(
        context="synthetic",
        collected_at="2026-06-01T00:00:00Z",
        server_version={"gitVersion": "v1.30.2"},
    )
    for key in needed_kinds(ALL_CHECKS):
        snap.objects[key] = []
    for obj in [*nodes(n_nodes), *()]:
        snap.objects["nodes"].append(project("nodes", obj))
    for obj in pods(n_pods, n_nodes):
        snap.objects["pods"].append(project("pods", obj))
    for key in snap.objects:
        spec = KINDS[key]
        snap.coverage[key] = Coverage(
            "listed",
            spec.api_version(spec.versions[0]),
            len(snap.objects[key]),
            max(1, -(-len(snap.objects[key]) // 500)),
        )
    return snap


def over_http(n_nodes: int, n_pods: int) -> Snapshot:
    from incidents.audit.client import ReadOnlyClient
    from incidents.audit.collect import collect
    from incidents.audit.kubeconfig import Connection
    from tests.audit.fakeapi import FakeApiServer, FakeCluster

    objects = [*nodes(n_nodes), *pods(n_pods, n_nodes)]
    assert all(spec_for_object(o["apiVersion"], o["kind"]) for o in objects)
    with FakeApiServer(FakeCluster(objects=objects)) as server:
        with ReadOnlyClient(Connection(server=server.url, context="fake")) as client:
            return collect(client, needed_kinds(ALL_CHECKS))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=100_000)
    parser.add_argument("--http", action="store_true")
    parser.add_argument("--no-trace", action="store_true", help="time without tracemalloc overhead")
    args = parser.parse_args()
    full = _sample_size(lambda: list(pods(1000, 100)))
    slim = _sample_size(lambda: [project("pods", p) for p in pods(1000, 100)])
    print(
        f"per pod: {full / 1000 / 1024:.1f} KiB as full objects, {slim / 1000 / 1024:.1f} KiB projected"
    )
    if not args.no_trace:
        tracemalloc.start()
    t0 = time.perf_counter()
    snap = over_http(args.nodes, args.pods) if args.http else in_process(args.nodes, args.pods)
    t1 = time.perf_counter()
    _, peak_collect = tracemalloc.get_traced_memory() if not args.no_trace else (0, 0)
    result = run_checks(list(ALL_CHECKS), snap)
    t2 = time.perf_counter()
    current, peak = tracemalloc.get_traced_memory() if not args.no_trace else (0, 0)
    fails = sum(1 for f in result.findings if f.status == "fail")
    print(
        f"cluster: {args.nodes} nodes, {args.pods} pods ({'HTTP + client' if args.http else 'in process'})"
    )
    print(f"collect+project: {t1 - t0:.1f} s, peak {peak_collect / 2**20:.0f} MiB")
    print(
        f"audit ({len(result.checks)} checks): {t2 - t1:.1f} s, {len(result.findings)} findings ({fails} fail)"
    )
    if not args.no_trace:
        print(
            f"peak traced memory: {peak / 2**20:.0f} MiB; held after audit: {current / 2**20:.0f} MiB"
        )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of the process: {rss:.0f} MiB")


def _sample_size(make: Any) -> int:
    """Bytes allocated by what ``make()`` returns (traced while it is built)."""
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = make()
    size = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    del kept
    return int(size)


if __name__ == "__main__":
    main()
