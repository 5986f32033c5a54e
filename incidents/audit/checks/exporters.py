"""The DCGM exporters a cluster runs, and the scrapers configured by file that may read them
(MON-002 and MON-003)."""

from __future__ import annotations

from dataclasses import dataclass

from ..context import Context
from ..k8s import Obj
from ..k8s import gpu_vendors
from ..k8s import scrapes_prometheus
from ..model import Resource
from .common import name_of

EXPORTER_IMAGE = "dcgm-exporter"


@dataclass(frozen=True)
class Exporter:
    """One DCGM exporter deployment: a DaemonSet, or the GPU Operator's ClusterPolicy."""

    resource: Resource
    namespace: str | None
    config_maps: tuple[str, ...]  # ConfigMaps that may hold its counters CSV
    config_path: str  # where the config is named in the resource
    template_labels: dict[str, str]
    scrape_annotation: bool
    service_monitor: bool  # ClusterPolicy.spec.dcgmExporter.serviceMonitor.enabled


OPERATOR_EXPORTER = "nvidia-dcgm-exporter"  # the name and app label of the operator's DaemonSet


def managed_by_operator(ds: Obj) -> bool:
    """The GPU Operator's exporter DaemonSet: owned by the ClusterPolicy, or (an export that lost
    its owner references) bearing the name and ``app`` label the operator gives it. Its counters
    and ServiceMonitor are set in the ClusterPolicy, which the operator renders into it."""
    meta = ds.get("metadata") or {}
    if any(o.get("kind") == "ClusterPolicy" for o in meta.get("ownerReferences") or []):
        return True
    labels = meta.get("labels") or {}
    return meta.get("name") == OPERATOR_EXPORTER and labels.get("app") == OPERATOR_EXPORTER


def exporters(ctx: Context) -> list[Exporter]:
    out: list[Exporter] = []
    for cp in ctx.items("clusterpolicies.nvidia.com"):
        dcgm = (cp.get("spec") or {}).get("dcgmExporter") or {}
        if dcgm.get("enabled") is False:
            continue
        config = (dcgm.get("config") or {}).get("name")
        out.append(
            Exporter(
                ctx.ref("clusterpolicies.nvidia.com", cp),
                None,
                (str(config),) if config else (),
                "spec.dcgmExporter.config.name",
                {"app": "nvidia-dcgm-exporter"},
                False,
                bool((dcgm.get("serviceMonitor") or {}).get("enabled")),
            )
        )
    for ds in ctx.items("daemonsets.apps"):
        tpl = (ds.get("spec") or {}).get("template") or {}
        containers = (tpl.get("spec") or {}).get("containers") or []
        if managed_by_operator(ds) and out:
            continue
        if not any(EXPORTER_IMAGE in str(c.get("image", "")) for c in containers):
            continue
        volumes = (tpl.get("spec") or {}).get("volumes") or []
        maps = tuple(str(v["configMap"]["name"]) for v in volumes if v.get("configMap"))
        annotations = (tpl.get("metadata") or {}).get("annotations") or {}
        out.append(
            Exporter(
                ctx.ref("daemonsets.apps", ds),
                ds["metadata"].get("namespace"),
                maps,
                "spec.template.spec.volumes[*].configMap.name",
                dict((tpl.get("metadata") or {}).get("labels") or {}),
                annotations.get("prometheus.io/scrape") == "true",
                False,
            )
        )
    return out


def no_nvidia_node(ctx: Context) -> str | None:
    """Why a DCGM exporter has nothing to serve: nodes are listed and none has an NVIDIA GPU
    (DCGM serves NVIDIA GPUs only; TPU, Gaudi or AMD nodes need their own exporters). None when
    some node has one, or no node is listed (an exporter-only snapshot is still judged)."""
    nodes = ctx.items("nodes")
    if not nodes or any("nvidia" in gpu_vendors(n) for n in nodes):
        return None
    return f"no NVIDIA GPU node among the {len(nodes)} listed; a DCGM exporter has nothing to serve"


# Scrapers whose targets live in their own configuration file, not in monitoring objects the API
# lists: Grafana Alloy (discovery.kubernetes + prometheus.scrape in config.alloy) and its
# predecessor Grafana Agent. Where one runs, "no monitor selects the exporter" does not mean
# "not scraped". (Prometheus itself is left out: under the Prometheus Operator its targets are the
# monitors kubegap reads.)
CONFIG_SCRAPER_IMAGES = ("grafana/alloy", "grafana/agent")
# The OpenTelemetry Collector (otel/opentelemetry-collector*, and the
# opentelemetry-collector-releases builds) often carries only traces or logs; it counts only when
# a ConfigMap in its namespace gives it a prometheus receiver with scrape_configs
# (https://github.com/open-telemetry/opentelemetry-collector-contrib/tree/main/receiver/prometheusreceiver).
OTEL_COLLECTOR_IMAGE = "opentelemetry-collector"


def _otel_scrapes(ctx: Context, pod: Obj) -> bool:
    """A ConfigMap in the collector's namespace holds a scraping configuration (the pod's volumes
    are not kept for pods without GPUs, so the ConfigMap is found by namespace, not by mount)."""
    namespace = (pod.get("metadata") or {}).get("namespace")
    return any(
        cm["metadata"].get("namespace") == namespace
        and any(
            isinstance(v, str) and scrapes_prometheus(v) for v in (cm.get("data") or {}).values()
        )
        for cm in ctx.items("configmaps")
    )


def config_scrapers(ctx: Context) -> list[str]:
    """``namespace/pod (image)`` of the running scrapers configured by file, a few of them."""
    found: dict[str, str] = {}
    for pod in ctx.items("pods"):
        if (pod.get("status") or {}).get("phase") != "Running":
            continue
        for c in (pod.get("spec") or {}).get("containers") or []:
            image = str(c.get("image", ""))
            otel = OTEL_COLLECTOR_IMAGE in image and _otel_scrapes(ctx, pod)
            if otel or any(word in image for word in CONFIG_SCRAPER_IMAGES):
                owner = ((pod.get("metadata") or {}).get("ownerReferences") or [{}])[0]
                where = f"{pod['metadata'].get('namespace')}/{owner.get('name') or name_of(pod)}"
                found.setdefault(where, image.rsplit("/", 1)[-1])
    return [f"{where} ({image})" for where, image in sorted(found.items())][:3]
