"""Two GPU training clusters built through a real API server: one healthy, one broken.

Only kube-apiserver and etcd run, so what controllers and kubelets would do is done here
through the API, the way they do it: the node's capacity and conditions go through
``nodes/status``, pods are bound by setting ``spec.nodeName`` and their phase is written to
``pods/status``, DaemonSet and Job counters to their ``/status``, and the
``node.kubernetes.io/not-ready`` taint that the TaintNodesByCondition admission puts on every new
node is lifted once the node reports Ready, as the node lifecycle controller would.

:mod:`cluster_healthy` and :mod:`cluster_broken` build the two clusters and say what each must
make kubegap report; this module holds what they share.
"""

from __future__ import annotations

from datetime import UTC
from datetime import datetime
from typing import Any

import gpu_objects as g
from kube_client import KubeClient

Obj = dict[str, Any]
TRAINER_STEP = "trainer.kubeflow.org/trainjob-ancestor-step"


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


def serving_template(tolerations: list[Obj]) -> Obj:
    """A GPU inference server: memory limit, bounded /dev/shm, no checkpoints needed."""
    return g.pod_spec(
        [trainer_container(gpus=1, memory="200Gi", checkpoint_mount=False)],
        volumes=[g.dshm_volume("16Gi")],
        tolerations=tolerations,
    )


def deployment(
    name: str, ns: str, template_spec: Obj, replicas: int, labels: dict[str, str]
) -> Obj:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": g.meta(name, ns, **labels),
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {**template_spec, "restartPolicy": "Always"},
            },
        },
    }


def pod_disruption_budget(name: str, ns: str, labels: dict[str, str], max_unavailable: int) -> Obj:
    """A PodDisruptionBudget as 1.20 serves it (policy/v1beta1)."""
    return {
        "apiVersion": "policy/v1beta1",
        "kind": "PodDisruptionBudget",
        "metadata": g.meta(name, ns),
        "spec": {"selector": {"matchLabels": labels}, "maxUnavailable": max_unavailable},
    }


def event(
    name: str,
    ns: str,
    involved: Obj,
    reason: str,
    message: str,
    when: str,
    source: str,
    event_type: str = "Warning",
    count: int = 1,
) -> Obj:
    """A core/v1 Event about ``involved`` (kind, name, namespace), as kubelet or NPD writes it."""
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": g.meta(name, ns),
        "involvedObject": involved,
        "reason": reason,
        "message": message,
        "type": event_type,
        "source": {"component": source},
        "count": count,
        "firstTimestamp": when,
        "lastTimestamp": when,
    }


# Workload CRDs neither cluster installs: their kinds are "absent", never healthy.
NOT_INSTALLED = {
    "mpijobs.kubeflow.org",
    "jobsets.jobset.x-k8s.io",
    "jobs.batch.volcano.sh",
    "rayjobs.ray.io",
    "rayclusters.ray.io",
    "leaderworkersets.leaderworkerset.x-k8s.io",
    "workloads.kueue.x-k8s.io",
    # Google Managed Prometheus kinds (GKE only).
    "rules.monitoring.googleapis.com",
    "clusterrules.monitoring.googleapis.com",
    "globalrules.monitoring.googleapis.com",
    "podmonitorings.monitoring.googleapis.com",
    "clusterpodmonitorings.monitoring.googleapis.com",
    # VictoriaMetrics operator and Azure Managed Prometheus monitoring kinds.
    "vmrules.operator.victoriametrics.com",
    "vmservicescrapes.operator.victoriametrics.com",
    "vmpodscrapes.operator.victoriametrics.com",
    "servicemonitors.azmonitoring.coreos.com",
    "podmonitors.azmonitoring.coreos.com",
}
