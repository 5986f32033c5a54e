"""GPU-node detection (k8s.gpu_vendors): which nodes have GPUs, and whose, from what the API shows."""

from __future__ import annotations

import pytest

from incidents.audit.k8s import Obj
from incidents.audit.k8s import gpu_vendors

TYPE = "node.kubernetes.io/instance-type"


def _node(labels: dict[str, str], capacity: dict[str, str] | None = None) -> Obj:
    return {"metadata": {"labels": labels}, "status": {"capacity": capacity or {}}}


@pytest.mark.parametrize(
    ("labels", "capacity", "vendors"),
    [
        ({}, {"nvidia.com/gpu": "8"}, {"nvidia"}),
        ({}, {"amd.com/gpu": "8"}, {"amd"}),
        ({}, {"nvidia.com/mig-1g.10gb": "7"}, {"nvidia"}),
        ({}, {"nvidia.com/gpu": "0"}, set()),
        # A device plugin that never registered: labels or the instance type still tell.
        ({"nvidia.com/gpu.product": "NVIDIA-L40S"}, None, {"nvidia"}),
        ({"feature.node.kubernetes.io/pci-10de.present": "true"}, None, {"nvidia"}),
        ({"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"}, None, {"nvidia"}),
        ({"kubernetes.azure.com/accelerator": "nvidia"}, None, {"nvidia"}),
        ({"karpenter.k8s.aws/instance-gpu-manufacturer": "amd"}, None, {"amd"}),
        ({"amd.com/gpu.product-name": "AMD_Instinct_MI300X_OAM"}, None, {"amd"}),
        ({TYPE: "g6e.12xlarge"}, None, {"nvidia"}),
        ({TYPE: "p5.48xlarge"}, None, {"nvidia"}),
        ({TYPE: "g4ad.xlarge"}, None, {"amd"}),
        ({TYPE: "a3-highgpu-8g"}, None, {"nvidia"}),
        ({TYPE: "Standard_ND96isr_H100_v5"}, None, {"nvidia"}),
        ({TYPE: "Standard_ND96isr_MI300X_v5"}, None, {"amd"}),
        # CPU machines of the same clouds.
        ({TYPE: "m7i.4xlarge"}, None, set()),
        ({TYPE: "c7a.large"}, None, set()),
        ({TYPE: "n2-standard-8"}, None, set()),
        ({TYPE: "Standard_D8s_v5"}, None, set()),
        ({"kubernetes.azure.com/accelerator": "none"}, None, set()),
    ],
)
def test_gpu_vendors(
    labels: dict[str, str], capacity: dict[str, str] | None, vendors: set[str]
) -> None:
    assert gpu_vendors(_node(labels, capacity)) == vendors
