"""Builders for the Kubernetes objects of a GPU training cluster, as plain dicts.

The shapes follow what the real components create: NVIDIA GPU feature discovery's node labels
(``nvidia.com/gpu.product``, ``nvidia.com/gpu.count``...), the device plugin's
``nvidia.com/gpu`` capacity, node-problem-detector's node conditions, dcgm-exporter and
node-problem-detector DaemonSets, Kubeflow PyTorchJobs, Prometheus Operator rules and the GPU
Operator's ClusterPolicy. Objects are created through the API by :mod:`gpu_cluster`; statuses
(node capacity and conditions, pod phases) go through the ``/status`` subresource.
"""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]

H100 = "NVIDIA-H100-80GB-HBM3"
H100_INSTANCE = "p5.48xlarge"
DCGM_IMAGE = "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5-3.4.0-ubuntu22.04"
NPD_IMAGE = "registry.k8s.io/node-problem-detector/node-problem-detector:v0.8.19"
DEVICE_PLUGIN_IMAGE = "nvcr.io/nvidia/k8s-device-plugin:v0.15.0"
TRAINER_IMAGE = "nvcr.io/nvidia/pytorch:24.05-py3"
TRANSITION = "2026-11-29T20:00:00Z"


def meta(name: str, namespace: str | None = None, **labels: str) -> Obj:
    out: Obj = {"name": name}
    if namespace:
        out["namespace"] = namespace
    if labels:
        out["labels"] = dict(labels)
    return out


def namespace(name: str) -> Obj:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": meta(name)}


def condition(ctype: str, status: str, reason: str, message: str = "") -> Obj:
    return {
        "type": ctype,
        "status": status,
        "reason": reason,
        "message": message or reason,
        "lastHeartbeatTime": TRANSITION,
        "lastTransitionTime": TRANSITION,
    }


def kubelet_conditions(ready: bool = True) -> list[Obj]:
    return [
        condition("MemoryPressure", "False", "KubeletHasSufficientMemory"),
        condition("DiskPressure", "False", "KubeletHasNoDiskPressure"),
        condition("PIDPressure", "False", "KubeletHasSufficientPID"),
        condition("Ready", "True", "KubeletReady")
        if ready
        else condition(
            "Ready", "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status."
        ),
    ]


def gpu_node(
    name: str,
    gpus: int = 8,
    allocatable_gpus: int | None = None,
    product: str = H100,
    instance_type: str = H100_INSTANCE,
    conditions: list[Obj] | None = None,
    taints: list[Obj] | None = None,
    unschedulable: bool = False,
    labels: dict[str, str] | None = None,
) -> Obj:
    """A GPU node as GPU feature discovery labels it and the device plugin reports it."""
    node_labels = {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": instance_type,
        "topology.kubernetes.io/zone": "us-east-1a",
        "nvidia.com/gpu.present": "true",
        "nvidia.com/gpu.product": product,
        "nvidia.com/gpu.count": str(gpus),
        "nvidia.com/gpu.memory": "81559",
        "nvidia.com/cuda.driver.major": "550",
    }
    node_labels.update(labels or {})
    spec: Obj = {"taints": taints or []}
    if unschedulable:
        spec["unschedulable"] = True
    alloc = gpus if allocatable_gpus is None else allocatable_gpus
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": node_labels},
        "spec": spec,
        "status": {
            "capacity": {
                "cpu": "192",
                "memory": "2097152Mi",
                "pods": "110",
                "nvidia.com/gpu": str(gpus),
            },
            "allocatable": {
                "cpu": "191",
                "memory": "2000000Mi",
                "pods": "110",
                "nvidia.com/gpu": str(alloc),
            },
            "conditions": kubelet_conditions() + (conditions or []),
            "nodeInfo": {
                "kubeletVersion": "v1.20.2",
                "containerRuntimeVersion": "containerd://1.7.13",
                "osImage": "Ubuntu 22.04.4 LTS",
                "kernelVersion": "5.15.0-1051-aws",
                "operatingSystem": "linux",
                "architecture": "amd64",
                "machineID": name,
                "systemUUID": name,
                "bootID": name,
                "kubeProxyVersion": "v1.20.2",
            },
        },
    }


def cpu_node(name: str) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                "kubernetes.io/hostname": name,
                "node.kubernetes.io/instance-type": "m6i.4xlarge",
            },
        },
        "status": {
            "capacity": {"cpu": "16", "memory": "65536Mi", "pods": "110"},
            "allocatable": {"cpu": "15", "memory": "60000Mi", "pods": "110"},
            "conditions": kubelet_conditions(),
        },
    }


def npd_gpu_conditions(xid: bool = False) -> list[Obj]:
    """The GPU conditions node-problem-detector's custom plugin monitors set."""
    if xid:
        return [condition("XIDErrors", "True", "XID79", "GPU has fallen off the bus (XID 79)")]
    return [condition("XIDErrors", "False", "NoXIDErrors", "no XID errors in the kernel log")]


def taint(key: str, effect: str = "NoSchedule", value: str | None = None) -> Obj:
    out: Obj = {"key": key, "effect": effect}
    if value is not None:
        out["value"] = value
    return out


def container(
    name: str,
    image: str,
    gpus: int = 0,
    memory: str | None = None,
    env: dict[str, str] | None = None,
    volume_mounts: list[Obj] | None = None,
    command: list[str] | None = None,
) -> Obj:
    resources: Obj = {}
    limits: Obj = {}
    if gpus:
        limits["nvidia.com/gpu"] = str(gpus)
    if memory:
        limits["memory"] = memory
        resources["requests"] = {"memory": memory, "cpu": "8"}
    if limits:
        resources["limits"] = limits
    out: Obj = {"name": name, "image": image, "resources": resources}
    if env:
        out["env"] = [{"name": k, "value": v} for k, v in env.items()]
    if volume_mounts:
        out["volumeMounts"] = volume_mounts
    if command:
        out["command"] = command
    return out


def dshm_volume(size: str | None = "64Gi") -> Obj:
    empty: Obj = {"medium": "Memory"}
    if size:
        empty["sizeLimit"] = size
    return {"name": "dshm", "emptyDir": empty}


DSHM_MOUNT = {"name": "dshm", "mountPath": "/dev/shm"}


def pod_spec(
    containers: list[Obj],
    volumes: list[Obj] | None = None,
    grace: int | None = None,
    node_name: str | None = None,
    tolerations: list[Obj] | None = None,
    restart_policy: str = "Never",
    node_selector: dict[str, str] | None = None,
) -> Obj:
    spec: Obj = {"containers": containers, "restartPolicy": restart_policy}
    if volumes:
        spec["volumes"] = volumes
    if grace is not None:
        spec["terminationGracePeriodSeconds"] = grace
    if node_name:
        spec["nodeName"] = node_name
    if tolerations:
        spec["tolerations"] = tolerations
    if node_selector:
        spec["nodeSelector"] = node_selector
    return spec


GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


def running_status(containers: list[Obj], ready: bool = True) -> Obj:
    return {
        "phase": "Running",
        "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
        "containerStatuses": [
            {
                "name": c["name"],
                "image": c["image"],
                "imageID": "",
                "ready": ready,
                "restartCount": 0,
                "started": True,
                "state": {"running": {"startedAt": TRANSITION}},
            }
            for c in containers
        ],
        "startTime": TRANSITION,
    }


def pod(
    name: str,
    ns: str,
    spec: Obj,
    labels: dict[str, str] | None = None,
    status: Obj | None = None,
    owner: Obj | None = None,
) -> Obj:
    metadata = meta(name, ns, **(labels or {}))
    if owner is not None:
        metadata["ownerReferences"] = [owner]
    out: Obj = {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}
    if status is not None:
        out["status"] = status
    return out


def daemonset(
    name: str, ns: str, spec: Obj, labels: dict[str, str], annotations: Obj | None = None
) -> Obj:
    tpl_meta: Obj = {"labels": labels}
    if annotations:
        tpl_meta["annotations"] = annotations
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": meta(name, ns, **labels),
        "spec": {
            "selector": {"matchLabels": labels},
            "template": {"metadata": tpl_meta, "spec": {**spec, "restartPolicy": "Always"}},
        },
    }


def owner_ref(obj: Obj) -> Obj:
    """An ownerReference to a created object (which carries its uid)."""
    return {
        "apiVersion": obj["apiVersion"],
        "kind": obj["kind"],
        "name": obj["metadata"]["name"],
        "uid": obj["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def configmap(name: str, ns: str, data: dict[str, str]) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(name, ns), "data": data}


def prometheus_rule(name: str, ns: str, alerts: dict[str, str]) -> Obj:
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": meta(name, ns, release="kube-prometheus-stack"),
        "spec": {
            "groups": [
                {
                    "name": name,
                    "rules": [
                        {
                            "alert": alert,
                            "expr": expr,
                            "for": "5m",
                            "labels": {"severity": "critical"},
                        }
                        for alert, expr in alerts.items()
                    ],
                }
            ]
        },
    }


def service_monitor(name: str, ns: str, match_labels: dict[str, str]) -> Obj:
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": meta(name, ns),
        "spec": {
            "selector": {"matchLabels": match_labels},
            "endpoints": [{"port": "gpu-metrics", "interval": "15s"}],
        },
    }


def job(name: str, ns: str, template_spec: Obj, parallelism: int = 1, **extra: Any) -> Obj:
    spec: Obj = {
        "parallelism": parallelism,
        "completions": parallelism,
        "backoffLimit": 0,
        "template": {"metadata": {"labels": {"job-name": name}}, "spec": template_spec},
    }
    spec.update(extra)
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta(name, ns), "spec": spec}


def pytorchjob(
    name: str,
    ns: str,
    master: Obj,
    worker: Obj,
    workers: int,
    restart_policy: str = "OnFailure",
    **extra: Any,
) -> Obj:
    def replica(count: int, spec: Obj) -> Obj:
        return {"replicas": count, "restartPolicy": restart_policy, "template": {"spec": spec}}

    spec: Obj = {
        "pytorchReplicaSpecs": {"Master": replica(1, master), "Worker": replica(workers, worker)}
    }
    spec.update(extra)
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": meta(name, ns),
        "spec": spec,
    }


def cluster_policy(name: str = "cluster-policy", **spec: Any) -> Obj:
    return {
        "apiVersion": "nvidia.com/v1",
        "kind": "ClusterPolicy",
        "metadata": meta(name),
        "spec": spec,
    }
