"""The broken GPU training cluster: one instance of every gap the checks look for."""

from __future__ import annotations

from datetime import timedelta

import gpu_crds as crds
import gpu_objects as g
from gpu_cluster import DCGM_LABELS
from gpu_cluster import DEFAULT_COUNTERS
from gpu_cluster import NOT_INSTALLED
from gpu_cluster import Builder
from gpu_cluster import deployment
from gpu_cluster import etcd_pod_spec
from gpu_cluster import event
from gpu_cluster import iso
from gpu_cluster import npd_daemonset
from gpu_cluster import serving_template
from gpu_cluster import trainer_container
from kube_client import KubeClient

# -- the broken cluster -----------------------------------------------------------------------


def build_broken(admin: KubeClient) -> None:
    """Four GPU nodes with the gaps the library's cases describe, and no Prometheus Operator."""
    b = Builder(admin)
    b.namespaces("gpu-operator", "monitoring", "training", "research", "serving")
    for crd in (crds.PYTORCHJOB_CRD, crds.CLUSTERPOLICY_CRD):
        b.create(crd)
    # gpu-b-0: fine. gpu-b-1: XID 79, one GPU gone from allocatable, still open to GPU pods.
    # gpu-b-2: NotReady, no NPD, no DCGM exporter, a training pod still bound to it.
    # gpu-b-3: an A100 spot node in the same gang as an H100.
    b.node(g.gpu_node("gpu-b-0", conditions=g.npd_gpu_conditions()))
    # Its taints are the one GKE puts on every GPU node, which every GPU pod tolerates, and the
    # node lifecycle controller's not-ready taint left from registration: neither is a quarantine.
    b.node(
        g.gpu_node(
            "gpu-b-1",
            allocatable_gpus=7,
            conditions=g.npd_gpu_conditions(xid=True),
            taints=[
                g.taint("nvidia.com/gpu", value="present"),
                g.taint("node.kubernetes.io/not-ready"),
            ],
        )
    )
    notready = g.gpu_node("gpu-b-2")
    notready["status"]["conditions"] = g.kubelet_conditions(ready=False)
    b.node(
        {
            **notready,
            "spec": {"taints": [g.taint("node.kubernetes.io/unreachable", "NoExecute")]},
        }
    )
    b.node(
        g.gpu_node(
            "gpu-b-3",
            product="NVIDIA-A100-SXM4-80GB",
            instance_type="p4de.24xlarge",
            conditions=g.npd_gpu_conditions(),
            labels={"karpenter.sh/capacity-type": "spot"},
        )
    )
    b.node(g.cpu_node("cp-0"))

    # The GPU Operator: not ready, device-plugin health checks disabled, its own exporter off.
    b.create(
        {
            **g.cluster_policy(
                devicePlugin={"env": [{"name": "DP_DISABLE_HEALTHCHECKS", "value": "all"}]},
                dcgmExporter={"enabled": False},
                # Driver upgrades on every GPU node at once (0 = no limit).
                driver={
                    "enabled": True,
                    "upgradePolicy": {"autoUpgrade": True, "maxParallelUpgrades": 0},
                },
            ),
            "status": {"state": "notReady", "namespace": "gpu-operator"},
        }
    )
    # A hand-installed DCGM exporter with the stock counters, on two of the four GPU nodes.
    exporter = g.daemonset(
        "dcgm-exporter",
        "monitoring",
        g.pod_spec(
            [
                g.container(
                    "dcgm-exporter",
                    g.DCGM_IMAGE,
                    volume_mounts=[{"name": "counters", "mountPath": "/etc/dcgm-exporter"}],
                )
            ],
            volumes=[{"name": "counters", "configMap": {"name": "dcgm-default-counters"}}],
        ),
        DCGM_LABELS,
    )
    b.create(
        g.configmap(
            "dcgm-default-counters", "monitoring", {"default-counters.csv": DEFAULT_COUNTERS}
        )
    )
    b.daemonset(exporter, ["gpu-b-0", "gpu-b-1"], desired=4, ready=2)
    # NPD everywhere but gpu-b-2; DaemonSet status says 24 nodes and a rollout takes them all.
    b.daemonset(
        npd_daemonset(max_unavailable="100%"), ["gpu-b-0", "gpu-b-1", "gpu-b-3"], desired=24
    )
    b.running_pod("etcd-cp-0", "kube-system", etcd_pod_spec(None), {"component": "etcd"})

    # A PyTorchJob with every training-job gap at once, spread over H100 and A100 nodes.
    template = g.pod_spec(
        [
            trainer_container(
                memory=None,
                shm=False,
                checkpoint_mount=False,
                env={"TORCH_NCCL_ASYNC_ERROR_HANDLING": "0", "NCCL_DEBUG": "INFO"},
            )
        ],
        tolerations=[{"operator": "Exists"}],
        restart_policy="Never",
    )
    job = b.create(
        g.pytorchjob(
            "gpt-finetune",
            "training",
            template,
            template,
            workers=2,
            restart_policy="Never",
            runPolicy={"backoffLimit": 0, "schedulingPolicy": {"minAvailable": 1}},
        )
    )
    placements = (("master", 0, "gpu-b-0"), ("worker", 0, "gpu-b-2"), ("worker", 1, "gpu-b-3"))
    for role, index, node in placements:
        b.running_pod(
            f"gpt-finetune-{role}-{index}",
            "training",
            {**template, "nodeName": node},
            {
                "training.kubeflow.org/job-name": "gpt-finetune",
                "training.kubeflow.org/replica-type": role,
            },
            g.owner_ref(job),
        )
    # A notebook pod grabbing a GPU directly, OOM-killed an hour ago and restarted.
    notebook = g.pod_spec(
        [g.container("notebook", "jupyter/pytorch-notebook:2024-05-27", gpus=1)],
        tolerations=[g.GPU_TOLERATION],
    )
    status = g.running_status(notebook["containers"])
    status["containerStatuses"][0]["restartCount"] = 1
    status["containerStatuses"][0]["lastState"] = {
        "terminated": {
            "exitCode": 137,
            "reason": "OOMKilled",
            "startedAt": iso(b.now - timedelta(hours=3)),
            "finishedAt": iso(b.now - timedelta(hours=1)),
        }
    }
    b.running_pod(
        "notebook-0",
        "research",
        {**notebook, "nodeName": "gpu-b-1"},
        {"app": "notebook"},
        status=status,
    )

    build_broken_v2_gaps(b)


def build_broken_v2_gaps(b: Builder) -> None:
    """An OnFailure gang with a worker on the faulty node and one Pending, GPU fault events,
    GPU serving without a disruption budget."""
    tolerate_gpu = [g.GPU_TOLERATION]
    template = g.pod_spec(
        [trainer_container()],
        volumes=[
            g.dshm_volume("256Gi"),
            {"name": "checkpoints", "persistentVolumeClaim": {"claimName": "bert-checkpoints"}},
        ],
        grace=600,
        tolerations=tolerate_gpu,
        restart_policy="OnFailure",
    )
    job = b.create(
        g.pytorchjob(
            "bert-pretrain",
            "training",
            template,
            template,
            workers=2,
            runPolicy={"backoffLimit": 3, "activeDeadlineSeconds": 7 * 24 * 3600},
        )
    )
    labels = {"training.kubeflow.org/job-name": "bert-pretrain"}
    for name, node in (
        ("bert-pretrain-master-0", "gpu-b-0"),
        ("bert-pretrain-worker-0", "gpu-b-1"),
    ):
        b.running_pod(name, "training", {**template, "nodeName": node}, labels, g.owner_ref(job))
    b.create(
        g.pod(
            "bert-pretrain-worker-1",
            "training",
            template,
            labels,
            {"phase": "Pending"},
            g.owner_ref(job),
        )
    )
    when = iso(b.now - timedelta(minutes=5))
    worker = {
        "apiVersion": "v1",
        "kind": "Pod",
        "name": "bert-pretrain-worker-1",
        "namespace": "training",
    }
    b.create(
        event(
            "bert-pretrain-worker-1.sched",
            "training",
            worker,
            "FailedScheduling",
            "0/5 nodes are available: 1 node(s) were unschedulable, 4 Insufficient nvidia.com/gpu.",
            when,
            "default-scheduler",
            count=12,
        )
    )
    node = {"kind": "Node", "name": "gpu-b-1"}
    b.create(
        event(
            "gpu-b-1.xid",
            "default",
            node,
            "XIDError",
            "NVRM: Xid (PCI:0000:b8:00): 79, pid=1234, GPU has fallen off the bus.",
            when,
            "kernel-monitor",
            count=2,
        )
    )
    serving = {"app": "chat-serve"}
    b.create(deployment("chat-serve", "serving", serving_template(tolerate_gpu), 2, serving))


# What the broken cluster must make kubegap report: check id -> failing resources
# ("<namespace or _cluster>/<Kind>/<name>").
BROKEN_FAILURES: dict[str, set[str]] = {
    "GPU-001": {"_cluster/Node/gpu-b-2"},
    # The faulty node, and the GPU pods still on it (a worker of an OnFailure gang, a notebook).
    "GPU-002": {
        "_cluster/Node/gpu-b-1",
        "training/PyTorchJob/bert-pretrain",
        "research/Pod/notebook-0",
    },
    "GPU-003": {"_cluster/Node/gpu-b-1"},
    "GPU-004": {"_cluster/ClusterPolicy/cluster-policy"},
    "MON-001": {"_cluster/Node/gpu-b-2", "_cluster/Node/gpu-b-3"},
    "MON-002": {"monitoring/DaemonSet/dcgm-exporter"},
    "MON-003": {"monitoring/DaemonSet/dcgm-exporter"},
    "ALERT-001": {"_cluster/Cluster/cluster"},
    "ALERT-002": {"_cluster/Cluster/cluster"},
    "ALERT-003": {"_cluster/Cluster/cluster"},
    "PRE-001": {"_cluster/Cluster/cluster"},
    "PRE-002": {"_cluster/ClusterPolicy/cluster-policy"},
    "SCHED-001": {"training/PyTorchJob/gpt-finetune"},
    # The gang whose worker is stranded on the NotReady node, not the node.
    "NODE-001": {"training/PyTorchJob/gpt-finetune"},
    "NODE-002": {"training/PyTorchJob/gpt-finetune"},
    # The notebook is no training job: checkpoint checks leave it alone.
    "CKPT-001": {"training/PyTorchJob/gpt-finetune"},
    "CKPT-002": {"training/PyTorchJob/gpt-finetune"},
    "CKPT-003": {"training/PyTorchJob/gpt-finetune"},
    "MEM-001": {"training/PyTorchJob/gpt-finetune", "research/Pod/notebook-0"},
    "MEM-002": {"training/PyTorchJob/gpt-finetune", "research/Pod/notebook-0"},
    "MEM-003": {"research/Pod/notebook-0"},
    "PLAT-001": {"kube-system/DaemonSet/node-problem-detector"},
    "PLAT-002": {"kube-system/Pod/etcd-cp-0"},
    "JOB-001": {"training/PyTorchJob/gpt-finetune"},
    "JOB-002": {"training/PyTorchJob/gpt-finetune"},
    # Never-restarting replicas, and OnFailure replicas that restart one pod, not the gang.
    "JOB-003": {"training/PyTorchJob/gpt-finetune", "training/PyTorchJob/bert-pretrain"},
    "JOB-004": {"training/PyTorchJob/gpt-finetune"},
    "EVT-001": {"_cluster/Node/gpu-b-1"},
    "EVT-002": {"training/PyTorchJob/bert-pretrain"},
    "SERVE-001": {"serving/Deployment/chat-serve"},
    "PLAT-003": {"_cluster/ClusterPolicy/cluster-policy"},
}
BROKEN_NOT_APPLICABLE = {"GPU-005"}
# A NotReady node's GPU count says nothing until its kubelet reports again.
BROKEN_NOT_EVALUATED = {"GPU-003": {"_cluster/Node/gpu-b-2"}}
# Kinds the broken cluster does not serve at all: their CRDs are not installed.
BROKEN_ABSENT = NOT_INSTALLED | {
    "prometheusrules.monitoring.coreos.com",
    "servicemonitors.monitoring.coreos.com",
    "podmonitors.monitoring.coreos.com",
    "trainjobs.trainer.kubeflow.org",
    "trainingruntimes.trainer.kubeflow.org",
    "clustertrainingruntimes.trainer.kubeflow.org",
}
