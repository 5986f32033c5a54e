"""GPU telemetry: is DCGM exporter everywhere, exporting reliability counters, and scraped?"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..context import Context
from ..k8s import MIG_PAUSED
from ..k8s import Obj
from ..k8s import gpu_vendors
from ..k8s import mig_reconfiguring
from ..k8s import selector_matches
from ..model import Check
from ..model import Evidence
from ..model import Reference
from ..model import Result
from ..model import not_applicable
from .common import Gap
from .common import gap
from .common import image_pods_on_nodes
from .common import name_of
from .common import node_coverage
from .common import not_evaluated
from .common import per_object
from .exporters import CONFIG_SCRAPER_IMAGES
from .exporters import EXPORTER_IMAGE
from .exporters import OTEL_COLLECTOR_IMAGE
from .exporters import Exporter
from .exporters import config_scrapers
from .exporters import exporters
from .exporters import no_nvidia_node

# The metrics exporter each GPU vendor ships, by image name (rocm/device-metrics-exporter).
VENDOR_EXPORTERS = {"nvidia": (EXPORTER_IMAGE,), "amd": ("device-metrics-exporter",)}
POD_MONITORINGS = "podmonitorings.monitoring.googleapis.com"  # Google Managed Prometheus
CLUSTER_POD_MONITORINGS = "clusterpodmonitorings.monitoring.googleapis.com"
# Monitors with a Prometheus Operator selector: the Prometheus Operator's own, VictoriaMetrics'
# VMServiceScrape/VMPodScrape and Azure Managed Prometheus's (azmonitoring.coreos.com).
MONITOR_KINDS = (
    "servicemonitors.monitoring.coreos.com",
    "podmonitors.monitoring.coreos.com",
    "vmservicescrapes.operator.victoriametrics.com",
    "vmpodscrapes.operator.victoriametrics.com",
    "servicemonitors.azmonitoring.coreos.com",
    "podmonitors.azmonitoring.coreos.com",
)
# Reliability counter groups an alerting pipeline needs; any one field of a group suffices.
RELIABILITY_FIELDS = {
    "ECC double-bit errors": ("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL"),
    "NVLink errors": (
        "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
        "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL",
        "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL",
        "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL",
    ),
    "XID errors": ("DCGM_FI_DEV_XID_ERRORS", "DCGM_EXP_XID_ERRORS_COUNT"),
}
PRODUCT_LABEL = "nvidia.com/gpu.product"  # GPU Feature Discovery
# PCIe data-centre GPUs with no NVLink at all (NVIDIA product specifications): T4, A2, A10,
# A10G, A16, L4, L40, L40S, and every Ada Lovelace card (NVIDIA dropped NVLink from that
# generation: the RTX 6000/5000/4000 Ada Generation workstation cards, GeForce RTX 40 series,
# L20), as GFD's product label names them (`NVIDIA-RTX-6000-Ada-Generation`). Other products
# (SXM/HGX boards, PCIe cards that take an NVLink bridge, such as the RTX A6000 or H100 PCIe)
# may have NVLink.
NO_NVLINK = re.compile(
    r"(^|-)(T4|A2|A10G?|A16|L4|L20|L40S?|Ada|RTX-40[0-9]0(-Ti)?)(-|$)", re.IGNORECASE
)
# Cloud GPU instance types with and without NVLink: AWS P4d/P5/P6 and GCP A2/A3/A4 (SXM
# boards), AWS G families (T4, A10G, L4, L40S) and GCP G2 (L4) PCIe cards.
NVLINK_INSTANCE_TYPES = (
    (re.compile(r"^(p4d|p4de|p5|p5e|p5en|p6-\w+|p6e-\w+)\.|^(a2|a3|a4|a4x)-"), True),
    (re.compile(r"^(g4dn|g5|g5g|g6|g6e|g6f|gr6|gr6f)\.|^g2-"), False),
)
# What the exporter's built-in default-counters.csv enables (ECC and NVLink errors are commented out).
DEFAULT_FIELDS = frozenset({"DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_GPU_TEMP"})


def _exporter_paused_for_mig(node: Obj) -> bool:
    """The GPU Operator's MIG manager stopped the node's exporter while it applies a new geometry
    (it restarts it when done); after a failed change the pause is judged as a gap."""
    labels = (node.get("metadata") or {}).get("labels") or {}
    paused = labels.get("nvidia.com/gpu.deploy.dcgm-exporter") == MIG_PAUSED
    return paused and mig_reconfiguring(node) is not None


def exporter_coverage(ctx: Context) -> Iterator[Result]:
    """Every GPU node runs its vendor's metrics exporter: dcgm-exporter serves NVIDIA GPUs only,
    so an AMD node is covered by AMD's device metrics exporter instead."""
    by_vendor = {v: image_pods_on_nodes(ctx, words) for v, words in VENDOR_EXPORTERS.items()}
    by_vendor["nvidia"] |= {name_of(n) for n in ctx.gpu_nodes if _exporter_paused_for_mig(n)}
    covered = {
        name_of(n)
        for n in ctx.gpu_nodes
        if all(name_of(n) in by_vendor[v] for v in gpu_vendors(n) if v in by_vendor)
    }
    vendors = {v for n in ctx.gpu_nodes for v in gpu_vendors(n)}
    if vendors <= {"nvidia"}:
        what, expected = "a DCGM exporter", "a Ready dcgm-exporter pod on every GPU node"
    else:
        what = "its vendor's GPU metrics exporter"
        expected = "a Ready dcgm-exporter pod (NVIDIA) or device-metrics-exporter pod (AMD)"
    yield from node_coverage(ctx, covered, what, "pods", expected)


def csv_fields(text: str) -> set[str]:
    fields = set()
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            fields.add(line.split(",", 1)[0].strip())
    return fields


def _config_fields(ctx: Context, exp: Exporter) -> tuple[set[str], str] | None:
    """Fields the exporter exports and where they came from; None if its ConfigMap is missing."""
    if not exp.config_maps:
        return set(DEFAULT_FIELDS), "built-in default counters"
    for cm in ctx.items("configmaps"):
        meta = cm["metadata"]
        if name_of(cm) not in exp.config_maps:
            continue
        if exp.namespace and meta.get("namespace") != exp.namespace:
            continue
        for key, value in sorted((cm.get("data") or {}).items()):
            return csv_fields(value), f"ConfigMap {meta.get('namespace')}/{name_of(cm)} key {key}"
    return None


def _has_nvlink(node: Obj) -> bool | None:
    labels = (node.get("metadata") or {}).get("labels") or {}
    product = labels.get(PRODUCT_LABEL)
    if product is not None:
        return not NO_NVLINK.search(str(product))
    kind = str(labels.get("node.kubernetes.io/instance-type", ""))
    for pattern, has in NVLINK_INSTANCE_TYPES:
        if pattern.search(kind):
            return has
    return None


def nvlink_present(ctx: Context) -> tuple[bool | None, str]:
    """Whether some NVIDIA GPU node may have NVLink (GFD's product label, else its instance
    type): False when none has, None when some node tells nothing; the note says which."""
    found = [_has_nvlink(n) for n in ctx.gpu_nodes if "nvidia" in gpu_vendors(n)]
    if any(found):
        return True, ""
    if not found:
        return None, "whether the GPUs have NVLink: no NVIDIA GPU node listed; NVLink not required"
    if None in found:
        return None, (
            f"whether the GPUs have NVLink: {found.count(None)} NVIDIA GPU nodes carry neither "
            f"{PRODUCT_LABEL} nor a known instance type; NVLink error counters not required"
        )
    return False, "NVLink error counters: no NVIDIA GPU node has NVLink (PCIe-only models)"


def reliability_counters(ctx: Context) -> Iterator[Result]:
    if reason := no_nvidia_node(ctx):
        yield not_applicable(reason)
        return
    nvlink, nvlink_note = nvlink_present(ctx)
    groups = {g: f for g, f in RELIABILITY_FIELDS.items() if nvlink or g != "NVLink errors"}

    def judge(exp: Exporter) -> Gap | None:
        config = _config_fields(ctx, exp)
        if config is None:
            return gap(
                "the exporter's counters ConfigMap was not found",
                Evidence(exp.config_path, list(exp.config_maps), "a ConfigMap with a counters CSV"),
            )
        fields, source = config
        missing = sorted(g for g, names in groups.items() if not fields & set(names))
        if not missing:
            return None
        return gap(
            f"DCGM exporter does not export {', '.join(missing)}",
            Evidence(exp.config_path, source, "a counters CSV with " + ", ".join(missing)),
        )

    yield from per_object(
        ((e.resource, e) for e in exporters(ctx)),
        judge,
        ok=f"DCGM exporters export {', '.join(sorted(groups))} counters",
        none="no DCGM exporter deployed (see MON-001)",
        not_seen=[nvlink_note] if nvlink_note else [],
    )


def _selects(monitor: Obj, labels: dict[str, str]) -> bool:
    selector = (monitor.get("spec") or {}).get("selector") or {}
    return bool(selector) and selector_matches(selector, labels)


def _gmp_selects(ctx: Context, exp: Exporter) -> bool:
    """A Managed Prometheus PodMonitoring in the exporter's namespace, or a ClusterPodMonitoring,
    whose selector matches the exporter's pods."""
    local = [
        m
        for m in ctx.items(POD_MONITORINGS)
        if exp.namespace is None or m["metadata"].get("namespace") == exp.namespace
    ]
    return any(_selects(m, exp.template_labels) for m in local + ctx.items(CLUSTER_POD_MONITORINGS))


def _selected(ctx: Context, exp: Exporter, monitors: list[Obj]) -> bool:
    if exp.scrape_annotation or exp.service_monitor or _gmp_selects(ctx, exp):
        return True
    return any(_selects(m, exp.template_labels) or "dcgm" in name_of(m) for m in monitors)


def exporter_scraped(ctx: Context) -> Iterator[Result]:
    if reason := no_nvidia_node(ctx):
        yield not_applicable(reason)
        return
    monitors = [m for key in MONITOR_KINDS for m in ctx.items(key)]
    scrapers = config_scrapers(ctx)
    judged: list[Exporter] = []
    for exp in exporters(ctx):
        if scrapers and not _selected(ctx, exp, monitors):
            yield not_evaluated(
                exp.resource,
                f"no monitor object selects the exporter, but {', '.join(scrapers)} scrapes "
                "through its own configuration file, which kubegap does not read",
                Evidence(
                    f"pods[image~={'|'.join((*CONFIG_SCRAPER_IMAGES, OTEL_COLLECTOR_IMAGE))}]",
                    scrapers,
                    "a ServiceMonitor/PodMonitor or scrape annotation kubegap can see "
                    "(Alloy's prometheus.operator.* components and the OpenTelemetry "
                    "Operator's target allocator read them)",
                ),
            )
        else:
            judged.append(exp)
    if scrapers and not judged:
        return

    def judge(exp: Exporter) -> Gap | None:
        if _selected(ctx, exp, monitors):
            return None
        observed = (
            "no monitor CRDs installed (Prometheus Operator, VictoriaMetrics, Azure Managed "
            "Prometheus); no scrape annotation"
            if all(ctx.absent(k) for k in MONITOR_KINDS)
            else f"no ServiceMonitor/PodMonitor selects it ({len(monitors)} examined)"
        )
        return gap(
            "DCGM exporter metrics are not scraped",
            Evidence(
                "servicemonitors,podmonitors,spec.template.metadata.annotations",
                observed,
                "a ServiceMonitor/PodMonitor (or GMP PodMonitoring) selecting the exporter, "
                "or prometheus.io/scrape",
            ),
        )

    yield from per_object(
        ((e.resource, e) for e in judged),
        judge,
        ok="DCGM exporters are scraped",
        none="no DCGM exporter deployed (see MON-001)",
    )


_DCGM_CSV = Reference(
    "https://github.com/NVIDIA/dcgm-exporter/blob/main/etc/default-counters.csv",
    "dcgm-exporter default counters (ECC and NVLink errors commented out)",
)
_TF40042 = Reference(
    "https://github.com/tensorflow/tensorflow/issues/40042", "Overheated GPU slows training"
)

CHECKS = [
    Check(
        id="MON-001",
        title="DCGM exporter does not cover every GPU node",
        pass_title="The DCGM exporter covers every GPU node",
        severity="high",
        category="monitoring",
        reads=("nodes", "pods"),
        cases=(
            "acme-kalos-overheating-jul2023",
            "meta-llama3-power-thermal-effects",
        ),
        references=(
            Reference(
                "https://glennklockwood.com/garden/component-reliability",
                "Llama 3 interruption table",
            ),
            _TF40042,
        ),
        why=(
            "Without a DCGM exporter on a GPU node there is no per-GPU temperature, power, ECC or "
            "XID telemetry for it: overheating and degrading GPUs are found only when jobs crash. "
            "DCGM serves NVIDIA GPUs only; an AMD GPU node needs AMD's device metrics exporter."
        ),
        remediation=(
            "Deploy dcgm-exporter as a DaemonSet that tolerates the GPU nodes' taints and selects "
            "all of them (or enable ClusterPolicy.spec.dcgmExporter); check its pods are Ready. "
            "On AMD GPU nodes, deploy the ROCm device-metrics-exporter (AMD GPU Operator "
            "DeviceConfig metricsExporter, or its Helm chart)."
        ),
        confidence="definitive",
        func=exporter_coverage,
        cluster_wide=True,
    ),
    Check(
        id="MON-002",
        title="DCGM exporter leaves ECC, NVLink or XID counters out",
        pass_title="The DCGM exporter exports ECC, NVLink and XID counters",
        severity="medium",
        category="monitoring",
        reads=("nodes", "daemonsets.apps", "configmaps", "clusterpolicies.nvidia.com"),
        cases=(
            "acme-kalos-overheating-jul2023",
            "acme-llm-dev-infra-failures",
            "meta-llama3-405b-interruptions",
        ),
        references=(
            _DCGM_CSV,
            Reference(
                "https://github.com/NVIDIA/dcgm-exporter/issues/581",
                "dcgm-exporter: ECC and NVLink fields",
            ),
        ),
        why=(
            "NVLink and ECC errors were the costliest failures in the Acme trace, yet the "
            "exporter's default counters file has the ECC and NVLink error counters commented "
            "out: with the defaults, Prometheus never sees them."
        ),
        remediation=(
            "Ship a counters CSV in a ConfigMap (ClusterPolicy.spec.dcgmExporter.config.name, or "
            "the exporter's -f flag) that enables DCGM_FI_DEV_ECC_DBE_VOL_TOTAL, the "
            "DCGM_FI_DEV_NVLINK_*_ERROR_COUNT_TOTAL fields and DCGM_FI_DEV_XID_ERRORS."
        ),
        confidence="heuristic",
        func=reliability_counters,
        cluster_wide=True,
    ),
    Check(
        id="MON-003",
        title="DCGM exporter metrics are not scraped",
        pass_title="DCGM exporter metrics are scraped",
        severity="medium",
        category="monitoring",
        reads=(
            "nodes",
            "daemonsets.apps",
            "clusterpolicies.nvidia.com",
            *MONITOR_KINDS,
            POD_MONITORINGS,
            CLUSTER_POD_MONITORINGS,
            "pods",
        ),
        cases=("acme-kalos-overheating-jul2023",),
        references=(_DCGM_CSV,),
        why=(
            "An exporter nobody scrapes is the same as no exporter: the metrics exist for a few "
            "seconds on the node and are never stored or alerted on."
        ),
        remediation=(
            "Create a ServiceMonitor or PodMonitor selecting the exporter (or enable "
            "ClusterPolicy.spec.dcgmExporter.serviceMonitor; on GKE, a PodMonitoring; with "
            "VictoriaMetrics, a VMServiceScrape or VMPodScrape), or annotate its pods for scraping."
        ),
        confidence="heuristic",
        func=exporter_scraped,
        cluster_wide=True,
    ),
]
