"""Kubernetes semantics kubegap relies on, as pure functions of API objects.

Quantities, times, conditions, pod readiness, owner references, GPU resource counts and
taints. Nothing here knows about checks or snapshots; every function reads plain dicts as the
API server returns them (or their projection, which keeps the same shape).
"""

from __future__ import annotations

import math
import re
from datetime import datetime
from typing import Any

Obj = dict[str, Any]

# Extended resources of whole GPUs (or of their time-sliced or MPS replicas). With
# ``renameByDefault: true`` in its sharing config the NVIDIA device plugin advertises the replicas
# as ``<resource>.shared`` instead (nvidia.com/gpu.shared, nvidia.com/mig-<profile>.shared;
# https://github.com/NVIDIA/k8s-device-plugin#shared-access-to-gpus), and a node then has no
# nvidia.com/gpu at all.
GPU_RESOURCES = ("nvidia.com/gpu", "nvidia.com/gpu.shared", "amd.com/gpu")

_SUFFIXES = {
    "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50,
    "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "m": 1e-3,
}  # fmt: skip
_FINISHED = {"Complete", "Completed", "Succeeded", "Failed"}


def quantity(value: Any) -> float:
    """A Kubernetes quantity as a number (``"8"`` -> 8, ``"500m"`` -> 0.5, ``"1Gi"`` -> 2**30)."""
    if value is None:
        return 0.0
    text = str(value).strip()
    try:
        return float(text)
    except ValueError:
        pass
    for suffix, factor in _SUFFIXES.items():
        if text.endswith(suffix):
            try:
                return float(text[: -len(suffix)]) * factor
            except ValueError:
                return 0.0
    return 0.0


def parse_time(value: Any) -> datetime | None:
    """An RFC 3339 timestamp as an aware datetime, or None when absent or unreadable."""
    if not value:
        return None
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None


def is_gpu_resource(name: str) -> bool:
    return name in GPU_RESOURCES or name.startswith("nvidia.com/mig-")


# Kubelet plugins of GPU DRA drivers (NVIDIA's k8s-dra-driver-gpu, formerly k8s-dra-driver;
# AMD's k8s-gpu-dra-driver). Where one runs, GPUs are ResourceSlice devices that pods claim
# (spec.resourceClaims, containers[].resources.claims), not an extended resource they request.
DRA_GPU_PLUGIN_IMAGES = ("k8s-dra-driver", "gpu-dra-driver")


# A GPU's device node, as the NVIDIA driver creates it (/dev/nvidia0, /dev/nvidia1, ...; the
# control devices /dev/nvidiactl, /dev/nvidia-uvm, /dev/nvidia-modeset are not GPUs). A container
# that mounts one from the host uses that GPU without the device plugin knowing.
GPU_DEVICE_PATH = re.compile(r"^/dev/nvidia\d+$")


def device_gpus(container: Obj) -> int:
    """GPUs a container reaches through host device nodes mounted at /dev/nvidia<N> (hostPath
    volumes, usually with ``privileged``), the way GPUs are used without a device plugin."""
    mounts = [m for m in container.get("volumeMounts") or [] if isinstance(m, dict)]
    return len({m["mountPath"] for m in mounts if GPU_DEVICE_PATH.match(str(m.get("mountPath")))})


def container_gpus(container: Obj, dra: bool = False) -> float:
    """GPUs one container asks for (the larger of its limits and requests), or reaches through
    /dev/nvidia<N> device mounts. With ``dra`` (the cluster allocates GPUs through a GPU DRA
    driver) each DRA claim the container uses counts as one GPU at least: the device count is in
    the claim's template, which kubegap does not read."""
    res = container.get("resources") or {}
    total = float(device_gpus(container))
    for part in ("limits", "requests"):
        values = res.get(part) or {}
        found = sum(quantity(v) for k, v in values.items() if is_gpu_resource(k))
        total = max(total, found)
    if dra:
        total = max(total, float(len(res.get("claims") or [])))
    return total


def spec_gpus(pod_spec: Obj, dra: bool = False) -> float:
    return sum(container_gpus(c, dra) for c in pod_spec.get("containers") or [])


def node_gpus(node: Obj, field: str = "capacity") -> float:
    values = (node.get("status") or {}).get(field) or {}
    return sum(quantity(values.get(r)) for r in GPU_RESOURCES)


# GPU-node detection, in one place. A node is a GPU node of a vendor when it advertises that
# vendor's GPU resource, or when a label set by the vendor's node software (GPU Feature Discovery,
# NFD, AMD's node labeller) or by the provider says it has such GPUs, so a node whose device
# plugin has not registered (yet) is still counted. Labels that name a vendor:
VENDOR_LABELS: dict[str, tuple[tuple[str, str | None], ...]] = {
    "nvidia": (
        ("nvidia.com/gpu.present", "true"),  # GPU Feature Discovery / GPU Operator
        ("nvidia.com/gpu.count", None),
        ("nvidia.com/gpu.product", None),
        ("feature.node.kubernetes.io/pci-10de.present", "true"),  # NFD: PCI vendor 10de
        ("cloud.google.com/gke-accelerator", None),  # GKE: always an NVIDIA GPU
        ("kubernetes.azure.com/accelerator", "nvidia"),  # AKS GPU node pools
        ("karpenter.k8s.aws/instance-gpu-manufacturer", "nvidia"),  # Karpenter on AWS
        ("eks.amazonaws.com/instance-gpu-manufacturer", "nvidia"),  # EKS Auto Mode
    ),
    "amd": (
        ("feature.node.kubernetes.io/amd-gpu", "true"),  # AMD GPU Operator NFD rule
        ("feature.node.kubernetes.io/pci-1002.present", "true"),  # NFD: PCI vendor 1002
        ("amd.com/gpu.product-name", None),  # AMD node labeller
        ("amd.com/gpu.family", None),
        ("karpenter.k8s.aws/instance-gpu-manufacturer", "amd"),
        ("eks.amazonaws.com/instance-gpu-manufacturer", "amd"),
    ),
}
# Cloud instance types with GPUs (node.kubernetes.io/instance-type), by vendor: AWS P and G
# families (g4ad: AMD Radeon Pro V520), GCP A2/A3/A4/G2, Azure NC/ND (ND MI300X: AMD).
_INSTANCE_TYPES = (
    ("amd", re.compile(r"^g4ad\.|^Standard_ND\w*MI300X", re.IGNORECASE)),
    (
        "nvidia",
        re.compile(
            r"^(p3|p3dn|p4d|p4de|p5|p5e|p5en|p6-\w+|p6e-\w+|g3|g3s|g4dn|g5|g5g|g6|g6e|g6f|gr6|gr6f)\."
            r"|^(a2|a3|a4|a4x|g2)-|^Standard_N[CD]",
            re.IGNORECASE,
        ),
    ),
)
RESOURCE_VENDOR = {
    "nvidia.com/gpu": "nvidia",
    "nvidia.com/gpu.shared": "nvidia",
    "amd.com/gpu": "amd",
}


def gpu_vendors(node: Obj) -> frozenset[str]:
    """The GPU vendors a node has GPUs of ("nvidia", "amd"); empty for a node without GPUs."""
    labels = (node.get("metadata") or {}).get("labels") or {}
    status = node.get("status") or {}
    found = set()
    for part in ("capacity", "allocatable"):
        for name, value in (status.get(part) or {}).items():
            vendor = RESOURCE_VENDOR.get(name) or (
                "nvidia" if name.startswith("nvidia.com/mig-") else None
            )
            if vendor and quantity(value) > 0:
                found.add(vendor)
    for vendor, pairs in VENDOR_LABELS.items():
        if any(key in labels and (want is None or labels[key] == want) for key, want in pairs):
            found.add(vendor)
    if not found:
        kind = str(labels.get("node.kubernetes.io/instance-type", ""))
        # The first family that matches decides (Azure ND MI300X is AMD, the other ND are NVIDIA).
        found.update([v for v, pattern in _INSTANCE_TYPES if pattern.search(kind)][:1])
    return frozenset(found)


def is_gpu_node(node: Obj) -> bool:
    return bool(gpu_vendors(node))


def condition(obj: Obj, ctype: str) -> Obj | None:
    for c in (obj.get("status") or {}).get("conditions") or []:
        if c.get("type") == ctype:
            return dict(c)
    return None


def not_ready(node: Obj) -> str | None:
    """A node's Ready status when it reports one other than ``True`` (``False``, ``Unknown``);
    None when it is Ready or reports no Ready condition at all (nothing says it is down)."""
    ready = condition(node, "Ready")
    if ready is None or ready.get("status") == "True":
        return None
    return str(ready.get("status"))


# The node label of the GPU Operator's driver upgrade controller, and the states in which the
# driver pod is being replaced or validated on a node the controller has cordoned and emptied of
# GPU pods (https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-driver-upgrades.html).
UPGRADE_STATE_LABEL = "nvidia.com/gpu-driver-upgrade-state"
DRIVER_RELOAD_STATES = frozenset({"pod-restart-required", "validation-required"})


def driver_reloading(node: Obj) -> str | None:
    """The upgrade state of a cordoned node whose GPU driver the upgrade controller is reloading
    now (its driver, device-plugin and exporter pods restart, its GPUs are briefly not
    allocatable); None otherwise, ``upgrade-failed`` included."""
    state = ((node.get("metadata") or {}).get("labels") or {}).get(UPGRADE_STATE_LABEL)
    if state in DRIVER_RELOAD_STATES and (node.get("spec") or {}).get("unschedulable"):
        return str(state)
    return None


# The GPU Operator's MIG manager: the node label with the state of the geometry it applies, the
# states while it applies one, and the value it gives a GPU client's nvidia.com/gpu.deploy.* label
# while it has that client stopped (device plugin, GFD, DCGM, exporter;
# https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html).
MIG_STATE_LABEL = "nvidia.com/mig.config.state"
MIG_APPLYING_STATES = frozenset({"pending", "rebooting"})
MIG_PAUSED = "paused-for-mig-change"


def mig_reconfiguring(node: Obj) -> str | None:
    """The MIG manager's state on a node whose MIG geometry it is applying now (its GPU clients
    are stopped and its GPUs not allocatable until the new slices are advertised); None
    otherwise, ``failed`` included (it does not heal by itself)."""
    state = ((node.get("metadata") or {}).get("labels") or {}).get(MIG_STATE_LABEL)
    return str(state) if state in MIG_APPLYING_STATES else None


def stack_down(node: Obj) -> str | None:
    """Why the node's GPU stack pods cannot be Ready now, when it is expected: the node is
    NotReady, its driver is being reloaded by the upgrade controller, or the MIG manager is
    applying a new geometry."""
    status = not_ready(node)
    if status is not None:
        return f"NotReady ({status})"
    state = driver_reloading(node)
    if state:
        return f"driver upgrade in progress ({state}, cordoned)"
    mig = mig_reconfiguring(node)
    return f"MIG reconfiguration in progress ({MIG_STATE_LABEL}={mig})" if mig else None


def is_finished(obj: Obj) -> bool:
    """Whether a job-like object (or a pod) has completed or failed for good."""
    status = obj.get("status") or {}
    if status.get("completionTime"):
        return True
    if status.get("phase") in ("Succeeded", "Failed"):
        return True
    phase = (status.get("state") or {}).get("phase")
    if phase in ("Completed", "Failed", "Aborted", "Terminated"):
        return True
    return any(
        c.get("type") in _FINISHED and c.get("status") == "True"
        for c in status.get("conditions") or []
    )


def pod_ready(pod: Obj) -> bool:
    status = pod.get("status") or {}
    statuses = status.get("containerStatuses") or []
    return (
        status.get("phase") == "Running"
        and bool(statuses)
        and all(s.get("ready") for s in statuses)
    )


def api_group(api_version: str) -> str:
    """``"apps/v1"`` -> ``"apps"``, ``"v1"`` -> ``""`` (the core group)."""
    return api_version.rsplit("/", 1)[0] if "/" in api_version else ""


def schedulable_taints(node: Obj) -> list[Obj]:
    """The node's taints that keep pods off it (NoSchedule, NoExecute)."""
    return [
        t
        for t in (node.get("spec") or {}).get("taints") or []
        if t.get("effect") in ("NoSchedule", "NoExecute")
    ]


def selector_matches(selector: Any, labels: dict[str, str]) -> bool:
    """Whether a LabelSelector (matchLabels, matchExpressions) selects ``labels``.

    An empty selector selects everything, as in a PodDisruptionBudget of policy/v1; a missing
    one (None) selects nothing.
    """
    if not isinstance(selector, dict):
        return False
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expr in selector.get("matchExpressions") or []:
        key, op = str(expr.get("key")), expr.get("operator")
        values = {str(v) for v in expr.get("values") or []}
        present = key in labels
        if op == "In" and not (present and labels[key] in values):
            return False
        if op == "NotIn" and present and labels[key] in values:
            return False
        if op == "Exists" and not present:
            return False
        if op == "DoesNotExist" and present:
            return False
        if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return False
    return True


def scaled_int_or_percent(value: Any, total: int, default: int, round_up: bool) -> int:
    """An IntOrString (``3`` or ``"25%"``) as a count of ``total``, as controllers compute it.

    The DaemonSet controller rounds a percentage maxUnavailable up (``roundUp=true`` in
    ``GetScaledValueFromIntOrPercent``); the disruption controller rounds minAvailable up too.
    """
    if value is None:
        return default
    text = str(value).strip()
    if text.endswith("%"):
        share = total * float(text[:-1]) / 100
        return int(math.ceil(share)) if round_up else int(math.floor(share))
    return int(text)


# An OpenTelemetry Collector's prometheus receiver (``prometheus:`` or ``prometheus/<name>:``).
_PROMETHEUS_RECEIVER = re.compile(r"(?m)^\s*prometheus(/[\w.-]+)?:\s*$")


def scrapes_prometheus(config: str) -> bool:
    """A collector configuration with a prometheus receiver that has its own scrape jobs."""
    return "scrape_configs" in config and bool(_PROMETHEUS_RECEIVER.search(config))
