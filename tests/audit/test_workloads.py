"""One adapter per workload kind: every kind's pod templates, replica counts and owners."""

from __future__ import annotations

from typing import Any

import pytest

from incidents.audit.checks import REGISTRY
from incidents.audit.engine import run_checks
from incidents.audit.kinds import KINDS
from incidents.audit.snapshot import from_objects
from incidents.audit.workloads import ADAPTERS

GPU = {
    "name": "c",
    "image": "i",
    "resources": {"limits": {"nvidia.com/gpu": "8"}},
}  # no memory limit
CPU = {"name": "c", "image": "i", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}


def tpl(container: dict[str, Any] = GPU) -> dict[str, Any]:
    return {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [dict(container)]}}


def obj(
    api: str, kind: str, spec: dict[str, Any], name: str = "w", ns: str | None = "team"
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if ns:
        meta["namespace"] = ns
    return {"apiVersion": api, "kind": kind, "metadata": meta, "spec": spec}


RUNTIME = obj(
    "trainer.kubeflow.org/v1alpha1",
    "ClusterTrainingRuntime",
    {
        "mlPolicy": {"numNodes": 1},
        "template": {
            "spec": {
                "replicatedJobs": [
                    {
                        "name": "node",
                        "template": {
                            "metadata": {
                                "labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}
                            },
                            "spec": {
                                "template": {
                                    "spec": {"containers": [{"name": "node", "image": "i"}]}
                                }
                            },
                        },
                    }
                ]
            }
        },
    },
    name="torch",
    ns=None,
)

# kind -> (objects, path of the GPU template's first container, members)
CASES: dict[str, tuple[list[dict[str, Any]], str, list[str]]] = {
    "Job": (
        [obj("batch/v1", "Job", {"parallelism": 4, "template": tpl()})],
        "spec.template.spec",
        [],
    ),
    "Deployment": (
        [obj("apps/v1", "Deployment", {"replicas": 2, "template": tpl()})],
        "spec.template.spec",
        [],
    ),
    "StatefulSet": (
        [obj("apps/v1", "StatefulSet", {"replicas": 2, "template": tpl()})],
        "spec.template.spec",
        [],
    ),
    "PyTorchJob": (
        [
            obj(
                "kubeflow.org/v1",
                "PyTorchJob",
                {
                    "pytorchReplicaSpecs": {
                        "Master": {"replicas": 1, "template": tpl()},
                        "Worker": {"replicas": 7, "template": tpl()},
                    }
                },
            )
        ],
        "spec.pytorchReplicaSpecs.Master.template.spec",
        ["Master x1", "Worker x7"],
    ),
    "MPIJob": (
        [
            obj(
                "kubeflow.org/v2beta1",
                "MPIJob",
                {
                    "mpiReplicaSpecs": {
                        "Launcher": {"replicas": 1, "template": tpl(CPU)},
                        "Worker": {"replicas": 4, "template": tpl()},
                    }
                },
            )
        ],
        "spec.mpiReplicaSpecs.Worker.template.spec",
        ["Worker x4"],
    ),
    "JobSet": (
        [
            obj(
                "jobset.x-k8s.io/v1alpha2",
                "JobSet",
                {
                    "replicatedJobs": [
                        {
                            "name": "workers",
                            "replicas": 2,
                            "template": {"spec": {"parallelism": 4, "template": tpl()}},
                        }
                    ]
                },
            )
        ],
        "spec.replicatedJobs[0].template.spec.template.spec",
        ["replicatedJobs[workers] x8"],
    ),
    "TrainJob": (
        [
            RUNTIME,
            obj(
                "trainer.kubeflow.org/v1alpha1",
                "TrainJob",
                {
                    "runtimeRef": {"name": "torch"},
                    "trainer": {
                        "numNodes": 16,
                        "resourcesPerNode": {"limits": {"nvidia.com/gpu": "8"}},
                    },
                },
            ),
        ],
        "ClusterTrainingRuntime/torch: spec.template.spec.replicatedJobs[0].template.spec.template.spec",
        ["trainer (node) x16"],
    ),
    "Volcano Job": (
        [
            obj(
                "batch.volcano.sh/v1alpha1",
                "Job",
                {
                    "tasks": [
                        {"name": "ps", "replicas": 1, "template": tpl(CPU)},
                        {"name": "worker", "replicas": 6, "template": tpl()},
                    ]
                },
            )
        ],
        "spec.tasks[1].template.spec",
        ["task worker x6"],
    ),
    "RayJob": (
        [
            obj(
                "ray.io/v1",
                "RayJob",
                {
                    "rayClusterSpec": {
                        "headGroupSpec": {"template": tpl(CPU)},
                        "workerGroupSpecs": [
                            {"groupName": "gpu", "replicas": 3, "numOfHosts": 2, "template": tpl()}
                        ],
                    }
                },
            )
        ],
        "spec.rayClusterSpec.workerGroupSpecs[0].template.spec",
        ["workers gpu x6"],
    ),
    "RayCluster": (
        [
            obj(
                "ray.io/v1",
                "RayCluster",
                {
                    "headGroupSpec": {"template": tpl(CPU)},
                    "workerGroupSpecs": [{"groupName": "gpu", "replicas": 2, "template": tpl()}],
                },
            )
        ],
        "spec.workerGroupSpecs[0].template.spec",
        ["workers gpu x2"],
    ),
    "LeaderWorkerSet": (
        [
            obj(
                "leaderworkerset.x-k8s.io/v1",
                "LeaderWorkerSet",
                {
                    "replicas": 3,
                    "leaderWorkerTemplate": {
                        "size": 4,
                        "leaderTemplate": tpl(),
                        "workerTemplate": tpl(),
                    },
                },
            )
        ],
        "spec.leaderWorkerTemplate.leaderTemplate.spec",
        ["leader x3", "workers x9"],
    ),
    "Kueue Workload": (
        [
            obj(
                "kueue.x-k8s.io/v1beta1",
                "Workload",
                {"podSets": [{"name": "main", "count": 5, "template": tpl()}]},
            )
        ],
        "spec.podSets[0].template.spec",
        ["podSet main x5"],
    ),
}


def test_every_adapter_kind_has_a_case_here() -> None:
    kinds = {a.spec.kind for a in ADAPTERS}
    assert kinds == {name.split()[-1] for name in CASES}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_kind_is_judged_through_its_pod_templates(name: str) -> None:
    objects, path, members = CASES[name]
    snap = from_objects(objects)
    [finding] = [f for f in run_checks([REGISTRY["MEM-001"]], snap).findings if f.status == "fail"]
    assert finding.resource.kind == objects[-1]["kind"] and finding.resource.name == "w"
    assert finding.evidence[0].path == f"{path}.containers[0].resources.limits.memory"
    assert list(finding.members) == members


def test_pods_belong_to_the_top_of_their_listed_owner_chain() -> None:
    """A pod of a Job of a JobSet of a TrainJob is the TrainJob's, and judged through it once."""
    trainjob = obj(
        "trainer.kubeflow.org/v1alpha1",
        "TrainJob",
        {
            "runtimeRef": {"name": "torch"},
            "trainer": {"resourcesPerNode": {"limits": {"nvidia.com/gpu": "8"}}},
        },
        name="llama",
    )
    jobset = obj(
        "jobset.x-k8s.io/v1alpha2",
        "JobSet",
        {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": tpl()}}}]},
        name="llama",
    )
    jobset["metadata"]["ownerReferences"] = [
        {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "name": "llama"}
    ]
    job = obj("batch/v1", "Job", {"template": tpl()}, name="llama-node-0")
    job["metadata"]["ownerReferences"] = [
        {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "llama"}
    ]
    pod = obj("v1", "Pod", {"nodeName": "gpu-1", "containers": [GPU]}, name="llama-node-0-0")
    pod["metadata"]["ownerReferences"] = [
        {"apiVersion": "batch/v1", "kind": "Job", "name": "llama-node-0"}
    ]
    pod["status"] = {"phase": "Running"}
    snap = from_objects([RUNTIME, trainjob, jobset, job, pod])
    fails = [f for f in run_checks([REGISTRY["MEM-001"]], snap).findings if f.status == "fail"]
    assert [(f.resource.kind, f.resource.name) for f in fails] == [("TrainJob", "llama")]
    assert "pod llama-node-0-0" in fails[0].members


def test_replicaset_pods_belong_to_their_deployment() -> None:
    deploy = obj("apps/v1", "Deployment", {"replicas": 1, "template": tpl()}, name="vllm")
    pod = obj("v1", "Pod", {"nodeName": "gpu-1", "containers": [GPU]}, name="vllm-5d9c7-abcde")
    pod["metadata"]["ownerReferences"] = [
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "vllm-5d9c7"}
    ]
    pod["status"] = {"phase": "Running"}
    fails = [
        f
        for f in run_checks([REGISTRY["MEM-001"]], from_objects([deploy, pod])).findings
        if f.status == "fail"
    ]
    assert [(f.resource.kind, f.resource.name, f.members) for f in fails] == [
        ("Deployment", "vllm", ("pod vllm-5d9c7-abcde",))
    ]


@pytest.mark.parametrize("check_id", ["JOB-001", "JOB-003", "MEM-001", "CKPT-001"])
def test_one_malformed_object_is_not_evaluated_alone(check_id: str) -> None:
    bad = obj(
        "kubeflow.org/v1",
        "PyTorchJob",
        {"pytorchReplicaSpecs": {"Worker": {"replicas": "two", "template": tpl()}}},
        name="odd",
    )
    good = obj(
        "kubeflow.org/v1",
        "PyTorchJob",
        {
            "pytorchReplicaSpecs": {
                "Master": {"replicas": 1, "restartPolicy": "Never", "template": tpl()},
                "Worker": {"replicas": 3, "restartPolicy": "Never", "template": tpl()},
            }
        },
        name="llm",
    )
    garbled = obj(
        "kubeflow.org/v1",
        "PyTorchJob",
        {"pytorchReplicaSpecs": {"Worker": "not a replica spec"}},
        name="garbled",
    )
    result = run_checks([REGISTRY[check_id]], from_objects([bad, good, garbled]))
    by = {(f.status, f.resource.name) for f in result.findings}
    assert ("fail", "llm") in by
    assert {("not_evaluated", "odd"), ("not_evaluated", "garbled")} <= by
    assert not [
        f for f in result.findings if f.resource.kind == "Cluster" and f.status == "not_evaluated"
    ]


def test_the_rbac_role_follows_the_registry() -> None:
    from incidents.audit.rbac import rules

    granted = {
        (g, r)
        for rule in rules(REGISTRY.values())
        for g in rule["apiGroups"]
        for r in rule["resources"]
    }
    for adapter in ADAPTERS:
        for key in adapter.reads:
            assert (KINDS[key].group, KINDS[key].resource) in granted, key


def test_lws_worker_statefulsets_belong_to_the_lws_through_the_leader_pod() -> None:
    """LWS makes a leader StatefulSet (owned by the LWS) and, per group, a worker StatefulSet
    owned by that group's leader Pod (https://lws.sigs.k8s.io/docs/concepts/): one gap, one
    finding, on the LWS."""
    owner = {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet", "name": "w"}
    lws = obj(
        "leaderworkerset.x-k8s.io/v1",
        "LeaderWorkerSet",
        {"replicas": 1, "leaderWorkerTemplate": {"size": 2, "workerTemplate": tpl()}},
    )
    leader_sts = obj("apps/v1", "StatefulSet", {"replicas": 1, "template": tpl()})
    leader_sts["metadata"]["ownerReferences"] = [owner]
    leader = obj("v1", "Pod", {"nodeName": "gpu-1", "containers": [GPU]}, name="w-0")
    leader["metadata"]["ownerReferences"] = [
        {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "w"}
    ]
    workers_sts = obj("apps/v1", "StatefulSet", {"replicas": 1, "template": tpl()}, name="w-0")
    workers_sts["metadata"]["ownerReferences"] = [
        {"apiVersion": "v1", "kind": "Pod", "name": "w-0"}
    ]
    worker = obj("v1", "Pod", {"nodeName": "gpu-2", "containers": [GPU]}, name="w-0-1")
    worker["metadata"]["ownerReferences"] = [
        {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "w-0"}
    ]
    for pod in (leader, worker):
        pod["status"] = {"phase": "Running"}
    snap = from_objects([lws, leader_sts, leader, workers_sts, worker])
    fails = [f for f in run_checks([REGISTRY["MEM-002"]], snap).findings if f.status == "fail"]
    assert [(f.resource.kind, f.resource.name) for f in fails] == [("LeaderWorkerSet", "w")]
    assert {"pod w-0", "pod w-0-1"} <= set(fails[0].members)
