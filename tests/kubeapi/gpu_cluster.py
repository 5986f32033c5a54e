"""Two GPU training clusters built through a real API server: one healthy, one broken.

Only kube-apiserver and etcd run, so what controllers and kubelets would do is done here
through the API, the way they do it: the node's capacity and conditions go through
``nodes/status``, pods are bound by setting ``spec.nodeName`` and their phase is written to
``pods/status``, DaemonSet and Job counters to their ``/status``, and the
``node.kubernetes.io/not-ready`` taint that the TaintNodesByCondition admission puts on every new
node is lifted once the node reports Ready, as the node lifecycle controller would.

:data:`HEALTHY` and :data:`BROKEN` describe what each cluster should make kubegap say.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import gpu_objects as g
from kubeapi_harness import KubeClient

Obj = dict[str, Any]


def iso(when: datetime) -> str:
    return when.astimezone(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


class Builder:
    """Creates objects as the admin, playing the part of the missing controllers and kubelets."""

    def __init__(self, admin: KubeClient) -> None:
        self.admin = admin
        self.now = datetime.now(UTC)

    def create(self, obj: Obj) -> Obj:
        return self.admin.create(obj)

    def namespaces(self, *names: str) -> None:
        for name in names:
            self.create(g.namespace(name))

    def node(self, node: Obj) -> Obj:
        """Register a node, post its status, and set the taints it should have."""
        created = self.create(node)
        wanted = node.get("spec", {}).get("taints") or []
        if (created.get("spec") or {}).get("taints") != wanted:
            created = self.admin.call(
                "PATCH",
                f"/api/v1/nodes/{node['metadata']['name']}",
                {"spec": {"taints": wanted or None}},
                content_type="application/merge-patch+json",
            )
        return created

    def running_pod(
        self,
        name: str,
        ns: str,
        spec: Obj,
        labels: dict[str, str] | None = None,
        owner: Obj | None = None,
        status: Obj | None = None,
    ) -> Obj:
        return self.create(
            g.pod(
                name,
                ns,
                spec,
                labels,
                status or g.running_status(spec["containers"]),
                owner,
            )
        )

    def daemonset(
        self,
        ds: Obj,
        nodes: list[str],
        owner: Obj | None = None,
        ready: int | None = None,
        desired: int | None = None,
    ) -> Obj:
        """A DaemonSet, its counters, and one Running pod per node in ``nodes``."""
        if owner is not None:
            ds["metadata"]["ownerReferences"] = [owner]
        created = self.create(ds)
        want = len(nodes) if desired is None else desired
        have = len(nodes) if ready is None else ready
        self.admin.patch_status(
            ds,
            {
                "desiredNumberScheduled": want,
                "currentNumberScheduled": want,
                "updatedNumberScheduled": want,
                "numberMisscheduled": 0,
                "numberReady": have,
                "numberAvailable": have,
                "observedGeneration": 1,
            },
        )
        tpl = ds["spec"]["template"]
        for node in nodes:
            spec = {**tpl["spec"], "nodeName": node}
            self.running_pod(
                f"{ds['metadata']['name']}-{node}",
                ds["metadata"]["namespace"],
                spec,
                tpl["metadata"]["labels"],
                g.owner_ref(created),
            )
        return created


# -- shared pieces ---------------------------------------------------------------------------

DCGM_LABELS = {"app": "nvidia-dcgm-exporter"}
NPD_LABELS = {"app": "node-problem-detector"}
FULL_COUNTERS = "\n".join(
    [
        "# Format: DCGM field, Prometheus metric type, help message",
        "DCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (C).",
        "DCGM_FI_DEV_GPU_UTIL, gauge, GPU utilization (%).",
        "DCGM_FI_DEV_XID_ERRORS, gauge, Value of the last XID error encountered.",
        "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL, counter, Total number of double-bit volatile ECC errors.",
        "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL, counter, NVLink flow-control CRC errors.",
    ]
)
# dcgm-exporter's shipped default-counters.csv keeps ECC and NVLink error fields commented out.
DEFAULT_COUNTERS = "\n".join(
    [
        "DCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (C).",
        "DCGM_FI_DEV_GPU_UTIL, gauge, GPU utilization (%).",
        "DCGM_FI_DEV_XID_ERRORS, gauge, Value of the last XID error encountered.",
        "# DCGM_FI_DEV_ECC_DBE_VOL_TOTAL, counter, Total number of double-bit volatile ECC errors.",
        "# DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL, counter, NVLink CRC errors.",
    ]
)
GPU_ALERTS = {
    "GPUTemperatureHigh": "max by (Hostname, gpu) (DCGM_FI_DEV_GPU_TEMP) > 85",
    "GPUXidError": "max_over_time(DCGM_FI_DEV_XID_ERRORS[5m]) > 0",
    "GPUDoubleBitECC": "increase(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL[10m]) > 0",
    "GPUNVLinkErrors": "increase(DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL[10m]) > 100",
    "TrainingStalled": "avg by (pod) (DCGM_FI_DEV_GPU_UTIL) == 0",
}


def npd_daemonset(ns: str = "kube-system", max_unavailable: str | None = None) -> Obj:
    ds = g.daemonset(
        "node-problem-detector",
        ns,
        g.pod_spec(
            [g.container("node-problem-detector", g.NPD_IMAGE, memory="200Mi")],
            tolerations=[{"operator": "Exists", "effect": "NoSchedule"}],
        ),
        NPD_LABELS,
    )
    if max_unavailable is not None:
        ds["spec"]["updateStrategy"] = {
            "type": "RollingUpdate",
            "rollingUpdate": {"maxUnavailable": max_unavailable},
        }
    return ds


def etcd_pod_spec(quota: int | None) -> Obj:
    command = [
        "etcd",
        "--data-dir=/var/lib/etcd",
        "--listen-client-urls=https://127.0.0.1:2379",
        "--advertise-client-urls=https://10.0.0.10:2379",
    ]
    if quota is not None:
        command.append(f"--quota-backend-bytes={quota}")
    c = g.container("etcd", "registry.k8s.io/etcd:3.4.13-0", command=command)
    return {**g.pod_spec([c], node_name="cp-0", restart_policy="Always"), "hostNetwork": True}


def trainer_container(
    gpus: int = 8,
    memory: str | None = "1600Gi",
    shm: bool = True,
    env: dict[str, str] | None = None,
    checkpoint_mount: bool = True,
) -> Obj:
    mounts = []
    if shm:
        mounts.append(g.DSHM_MOUNT)
    if checkpoint_mount:
        mounts.append({"name": "checkpoints", "mountPath": "/checkpoints"})
    return g.container(
        "pytorch",
        g.TRAINER_IMAGE,
        gpus=gpus,
        memory=memory,
        env=env or {"NCCL_DEBUG": "WARN", "TORCH_NCCL_ASYNC_ERROR_HANDLING": "1"},
        volume_mounts=mounts,
        command=["torchrun", "--nnodes=2", "--nproc-per-node=8", "train.py"],
    )


# -- the healthy cluster ----------------------------------------------------------------------

HEALTHY_NOT_APPLICABLE = {
    "GPU-005": "API server 1.20 does not report device health (KEP-4680)",
}
HEALTHY_CPU_WORKERS = 20
HEALTHY_NODES = 2 + 1 + HEALTHY_CPU_WORKERS  # GPU nodes, control plane, CPU workers


def build_healthy(admin: KubeClient) -> None:
    """Two H100 nodes (one spot) running a checkpointing PyTorchJob, 20 CPU nodes, the GPU
    Operator, NPD everywhere, DCGM exporters, alerts and a nightly NCCL burn-in."""
    b = Builder(admin)
    b.namespaces("gpu-operator", "monitoring", "training")
    for crd in (
        g.PYTORCHJOB_CRD,
        g.PROMETHEUSRULE_CRD,
        g.SERVICEMONITOR_CRD,
        g.PODMONITOR_CRD,
        g.CLUSTERPOLICY_CRD,
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


# -- the broken cluster -----------------------------------------------------------------------


def build_broken(admin: KubeClient) -> None:
    """Four GPU nodes with the gaps the library's cases describe, and no Prometheus Operator."""
    b = Builder(admin)
    b.namespaces("gpu-operator", "monitoring", "training", "research")
    for crd in (g.PYTORCHJOB_CRD, g.CLUSTERPOLICY_CRD):
        b.create(crd)
    # gpu-b-0: fine. gpu-b-1: XID 79, one GPU gone from allocatable, still open to GPU pods.
    # gpu-b-2: NotReady, no NPD, no DCGM exporter, a training pod still bound to it.
    # gpu-b-3: an A100 spot node in the same gang as an H100.
    b.node(g.gpu_node("gpu-b-0", conditions=g.npd_gpu_conditions()))
    # Its only taint is the one GKE puts on every GPU node, which every GPU pod tolerates.
    b.node(
        g.gpu_node(
            "gpu-b-1",
            allocatable_gpus=7,
            conditions=g.npd_gpu_conditions(xid=True),
            taints=[g.taint("nvidia.com/gpu", value="present")],
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


# What the broken cluster must make kubegap report: check id -> failing resources
# ("<namespace or _cluster>/<Kind>/<name>").
BROKEN_FAILURES: dict[str, set[str]] = {
    "GPU-001": {"_cluster/Node/gpu-b-2"},
    "GPU-002": {"_cluster/Node/gpu-b-1"},
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
    "NODE-001": {"_cluster/Node/gpu-b-2"},
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
    "JOB-003": {"training/PyTorchJob/gpt-finetune"},
    "JOB-004": {"training/PyTorchJob/gpt-finetune"},
}
BROKEN_NOT_APPLICABLE = {"GPU-005"}
# Kinds the broken cluster does not serve at all: their CRDs are not installed.
BROKEN_ABSENT = {
    "prometheusrules.monitoring.coreos.com",
    "servicemonitors.monitoring.coreos.com",
    "podmonitors.monitoring.coreos.com",
    "mpijobs.kubeflow.org",
    "jobsets.jobset.x-k8s.io",
    "jobs.batch.volcano.sh",
}
HEALTHY_ABSENT = {"mpijobs.kubeflow.org", "jobsets.jobset.x-k8s.io", "jobs.batch.volcano.sh"}
