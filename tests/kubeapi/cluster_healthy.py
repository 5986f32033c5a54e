"""The healthy GPU training cluster: every check passes or says why it does not apply."""

from __future__ import annotations

from datetime import timedelta

import gpu_crds as crds
import gpu_objects as g
from gpu_cluster import DCGM_LABELS
from gpu_cluster import FULL_COUNTERS
from gpu_cluster import GPU_ALERTS
from gpu_cluster import NOT_INSTALLED
from gpu_cluster import TRAINER_STEP
from gpu_cluster import Builder
from gpu_cluster import Obj
from gpu_cluster import deployment
from gpu_cluster import etcd_pod_spec
from gpu_cluster import event
from gpu_cluster import iso
from gpu_cluster import npd_daemonset
from gpu_cluster import pod_disruption_budget
from gpu_cluster import serving_template
from gpu_cluster import trainer_container
from kube_client import KubeClient

# -- the healthy cluster ----------------------------------------------------------------------

HEALTHY_NOT_APPLICABLE = {
    "GPU-005": "API server 1.20 does not report device health (KEP-4680)",
    "EVT-002": "no Pending GPU pod and no recent FailedScheduling event",
}
HEALTHY_CPU_WORKERS = 20
HEALTHY_NODES = 2 + 1 + HEALTHY_CPU_WORKERS  # GPU nodes, control plane, CPU workers


def build_healthy(admin: KubeClient) -> None:
    """Two H100 nodes (one spot) running a checkpointing PyTorchJob, 20 CPU nodes, the GPU
    Operator, NPD everywhere, DCGM exporters, alerts and a nightly NCCL burn-in."""
    b = Builder(admin)
    b.namespaces("gpu-operator", "monitoring", "training", "serving")
    for crd in (
        crds.PYTORCHJOB_CRD,
        crds.PROMETHEUSRULE_CRD,
        crds.SERVICEMONITOR_CRD,
        crds.PODMONITOR_CRD,
        crds.CLUSTERPOLICY_CRD,
        crds.TRAINJOB_CRD,
        crds.TRAININGRUNTIME_CRD,
        crds.CLUSTERTRAININGRUNTIME_CRD,
    ):
        b.create(crd)
    gpu_nodes = ["gpu-h100-0", "gpu-h100-1"]
    for name, capacity_type in zip(gpu_nodes, ("on-demand", "spot"), strict=True):
        b.node(
            g.gpu_node(
                name,
                conditions=g.npd_gpu_conditions(),
                taints=[g.taint("nvidia.com/gpu", value="present")],
                labels={"karpenter.sh/capacity-type": capacity_type},
            )
        )
    b.node(g.cpu_node("cp-0"))
    cpu_workers = [f"cpu-{i:02d}" for i in range(HEALTHY_CPU_WORKERS)]
    for name in cpu_workers:
        b.node(g.cpu_node(name))

    policy = b.create(
        {
            **g.cluster_policy(
                operator={"defaultRuntime": "containerd"},
                # The operator's driver upgrade defaults: one node at a time, GPU pods deleted first.
                driver={"enabled": True},
                devicePlugin={"env": [{"name": "PASS_DEVICE_SPECS", "value": "true"}]},
                dcgmExporter={
                    "enabled": True,
                    "config": {"name": "dcgm-metrics"},
                    "serviceMonitor": {"enabled": True},
                },
                validator={"plugin": {"env": [{"name": "WITH_WORKLOAD", "value": "false"}]}},
            ),
            "status": {"state": "ready", "namespace": "gpu-operator"},
        }
    )
    b.create(g.configmap("dcgm-metrics", "gpu-operator", {"dcgm-metrics.csv": FULL_COUNTERS}))
    operator = g.owner_ref(policy)
    tolerate_gpu = [g.GPU_TOLERATION]
    b.daemonset(
        g.daemonset(
            "nvidia-dcgm-exporter",
            "gpu-operator",
            g.pod_spec(
                [g.container("nvidia-dcgm-exporter", g.DCGM_IMAGE)], tolerations=tolerate_gpu
            ),
            DCGM_LABELS,
        ),
        gpu_nodes,
        owner=operator,
    )
    b.daemonset(
        g.daemonset(
            "nvidia-device-plugin-daemonset",
            "gpu-operator",
            g.pod_spec(
                [g.container("nvidia-device-plugin", g.DEVICE_PLUGIN_IMAGE)],
                tolerations=tolerate_gpu,
            ),
            {"app": "nvidia-device-plugin-daemonset"},
        ),
        gpu_nodes,
        owner=operator,
    )
    b.daemonset(
        g.daemonset(
            "nvidia-operator-validator",
            "gpu-operator",
            g.pod_spec(
                [
                    g.container(
                        "nvidia-operator-validator",
                        "nvcr.io/nvidia/cloud-native/gpu-operator-validator:v24.3.0",
                    )
                ],
                tolerations=tolerate_gpu,
            ),
            {"app": "nvidia-operator-validator"},
        ),
        gpu_nodes,
        owner=operator,
    )
    # On every node, so a fleet-wide rollout: at most 10% of the nodes' agents at once.
    b.daemonset(npd_daemonset(max_unavailable="10%"), [*gpu_nodes, "cp-0", *cpu_workers])
    b.running_pod(
        "etcd-cp-0",
        "kube-system",
        etcd_pod_spec(8 * 1024**3),
        {"component": "etcd", "tier": "control-plane"},
    )
    b.create(g.prometheus_rule("dcgm-gpu-alerts", "monitoring", GPU_ALERTS))

    # Multi-node NCCL burn-in, nightly; batch/v1beta1 is the only CronJob API 1.20 serves.
    burn_in_spec = g.pod_spec(
        [
            g.container(
                "nccl-tests",
                "ghcr.io/coreweave/nccl-tests:12.4.1-cudnn-devel-ubuntu22.04-nccl2.21.5-1-85f9143",
                gpus=8,
                memory="64Gi",
                command=["all_reduce_perf", "-b", "8", "-e", "8G", "-f", "2", "-g", "8"],
            )
        ],
        tolerations=tolerate_gpu,
        restart_policy="Never",
    )
    b.create(
        {
            "apiVersion": "batch/v1beta1",
            "kind": "CronJob",
            "metadata": {"name": "nccl-burn-in", "namespace": "training"},
            "spec": {
                "schedule": "0 3 * * *",
                "jobTemplate": {"spec": {"template": {"spec": burn_in_spec}}},
            },
            "status": {"lastScheduleTime": iso(b.now - timedelta(hours=20))},
        }
    )
    finished = iso(b.now - timedelta(hours=19))
    b.create(
        {
            **g.job("nccl-burn-in-manual", "training", burn_in_spec, activeDeadlineSeconds=3600),
            "status": {
                "succeeded": 1,
                "startTime": iso(b.now - timedelta(hours=20)),
                "completionTime": finished,
                "conditions": [
                    {
                        "type": "Complete",
                        "status": "True",
                        "lastProbeTime": finished,
                        "lastTransitionTime": finished,
                    }
                ],
            },
        }
    )

    # The training job: a PyTorchJob of two 8-GPU pods, one per node.
    b.create(
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": "llama-checkpoints", "namespace": "training"},
            "spec": {
                "accessModes": ["ReadWriteMany"],
                "resources": {"requests": {"storage": "50Ti"}},
                "storageClassName": "fsx-lustre",
            },
        }
    )
    template = g.pod_spec(
        [trainer_container()],
        volumes=[
            g.dshm_volume("256Gi"),
            {"name": "checkpoints", "persistentVolumeClaim": {"claimName": "llama-checkpoints"}},
        ],
        grace=600,
        tolerations=tolerate_gpu,
        restart_policy="OnFailure",
    )
    job = b.create(
        {
            **g.pytorchjob(
                "llama-pretrain",
                "training",
                template,
                template,
                workers=1,
                runPolicy={
                    "backoffLimit": 3,
                    "activeDeadlineSeconds": 14 * 24 * 3600,
                    "schedulingPolicy": {"minAvailable": 2},
                },
                # torch elastic restarts every rank when one fails (OnFailure alone would not).
                elasticPolicy={"rdzvBackend": "c10d", "maxRestarts": 3},
            ),
            "status": {
                "conditions": [
                    {"type": "Created", "status": "True", "reason": "PyTorchJobCreated"},
                    {"type": "Running", "status": "True", "reason": "PyTorchJobRunning"},
                ]
            },
        }
    )
    for role, node in (("master", gpu_nodes[0]), ("worker", gpu_nodes[1])):
        b.running_pod(
            f"llama-pretrain-{role}-0",
            "training",
            {**template, "nodeName": node},
            {
                "training.kubeflow.org/job-name": "llama-pretrain",
                "training.kubeflow.org/replica-type": role,
            },
            g.owner_ref(job),
        )

    build_healthy_v2_kinds(b, tolerate_gpu)


def build_healthy_v2_kinds(b: Builder, tolerate_gpu: list[Obj]) -> None:
    """What kubegap 2 reads besides: a Trainer v2 TrainJob, GPU serving with a budget, events."""
    node_spec = g.pod_spec(
        [{**trainer_container(gpus=0, memory=None), "name": "node"}],
        volumes=[
            g.dshm_volume("256Gi"),
            {"name": "checkpoints", "persistentVolumeClaim": {"claimName": "llama-checkpoints"}},
        ],
        grace=600,
        tolerations=tolerate_gpu,
    )
    b.create(
        {
            "apiVersion": "trainer.kubeflow.org/v1alpha1",
            "kind": "ClusterTrainingRuntime",
            "metadata": {"name": "torch-distributed"},
            "spec": {
                "mlPolicy": {"numNodes": 1, "torch": {}},
                "template": {
                    "spec": {
                        "failurePolicy": {"maxRestarts": 3},
                        "replicatedJobs": [
                            {
                                "name": "node",
                                "template": {
                                    "metadata": {"labels": {TRAINER_STEP: "trainer"}},
                                    "spec": {"template": {"spec": node_spec}},
                                },
                            }
                        ],
                    }
                },
            },
        }
    )
    b.create(
        {
            "apiVersion": "trainer.kubeflow.org/v1alpha1",
            "kind": "TrainJob",
            "metadata": {"name": "qwen-finetune", "namespace": "training"},
            "spec": {
                "runtimeRef": {"name": "torch-distributed"},
                "activeDeadlineSeconds": 3 * 24 * 3600,
                "trainer": {
                    "numNodes": 2,
                    "resourcesPerNode": {"limits": {"nvidia.com/gpu": "8", "memory": "1600Gi"}},
                },
            },
        }
    )
    serving = {"app": "chat-serve"}
    b.create(deployment("chat-serve", "serving", serving_template(tolerate_gpu), 2, serving))
    b.create(pod_disruption_budget("chat-serve", "serving", serving, max_unavailable=1))
    when = iso(b.now - timedelta(minutes=10))
    pull = {
        "apiVersion": "v1",
        "kind": "Pod",
        "name": "llama-pretrain-master-0",
        "namespace": "training",
    }
    b.create(
        event(
            "pull.1",
            "training",
            pull,
            "Pulled",
            "Container image already present",
            when,
            "kubelet",
            event_type="Normal",
        )
    )
    b.create(
        event(
            "pull.2",
            "training",
            pull,
            "BackOff",
            "Back-off pulling image registry.example/sidecar:2",
            when,
            "kubelet",
        )
    )


HEALTHY_ABSENT = set(NOT_INSTALLED)
