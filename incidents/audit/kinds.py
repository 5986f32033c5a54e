"""The Kubernetes kinds kubegap may read, and nothing else.

:data:`KINDS` holds the built-in and monitoring kinds below plus every workload kind of the adapter
registry (:mod:`.workloads`). Secrets, pod logs and exec are deliberately absent: a kind that is
not in :data:`KINDS` cannot be listed by the client, and :func:`forbidden_path` refuses their
URLs whatever a future check asks for.
"""

from __future__ import annotations

import sys
from typing import Any

from .k8s import Obj
from .k8s import api_group
from .kindspec import KindSpec
from .kindspec import kind_spec
from .projection import cluster
from .projection import config
from .projection.core import Malformed
from .projection.core import check_shape
from .projection.core import metadata
from .workloads import ADAPTERS
from .workloads.base import UNREADABLE
from .workloads.base import UNREADABLE_FIELD

# Warning events only, and a bounded number of them: events are the largest kind in a busy
# cluster, and checks read only the recent ones.
MAX_EVENTS = 5000

_CORE: tuple[KindSpec, ...] = (
    kind_spec("nodes", ("v1",), "Node", cluster.node, namespaced=False),
    kind_spec("pods", ("v1",), "Pod", cluster.pod),
    kind_spec("configmaps", ("v1",), "ConfigMap", config.configmap),
    kind_spec("events", ("v1",), "Event", cluster.event, field_selector="type=Warning",
              max_items=MAX_EVENTS),
    kind_spec("daemonsets.apps", ("v1",), "DaemonSet", cluster.daemonset),
    kind_spec("cronjobs.batch", ("v1", "v1beta1"), "CronJob", cluster.cronjob),
    kind_spec("poddisruptionbudgets.policy", ("v1", "v1beta1"), "PodDisruptionBudget",
              cluster.pod_disruption_budget),
    kind_spec("prometheusrules.monitoring.coreos.com", ("v1",), "PrometheusRule",
              config.prometheus_rule, crd=True),
    kind_spec("servicemonitors.monitoring.coreos.com", ("v1",), "ServiceMonitor", config.monitor,
              crd=True),
    kind_spec("podmonitors.monitoring.coreos.com", ("v1",), "PodMonitor", config.monitor, crd=True),
    kind_spec("clusterpolicies.nvidia.com", ("v1",), "ClusterPolicy", config.cluster_policy,
              namespaced=False, crd=True),
    # Google Cloud Managed Service for Prometheus: rules (spec.groups as in a PrometheusRule) and
    # pod monitors (spec.selector as in a PodMonitor), namespaced and cluster-wide.
    kind_spec("rules.monitoring.googleapis.com", ("v1",), "Rules", config.prometheus_rule,
              crd=True),
    kind_spec("clusterrules.monitoring.googleapis.com", ("v1",), "ClusterRules",
              config.prometheus_rule, namespaced=False, crd=True),
    kind_spec("globalrules.monitoring.googleapis.com", ("v1",), "GlobalRules",
              config.prometheus_rule, namespaced=False, crd=True),
    kind_spec("podmonitorings.monitoring.googleapis.com", ("v1",), "PodMonitoring",
              config.monitor, crd=True),
    kind_spec("clusterpodmonitorings.monitoring.googleapis.com", ("v1",), "ClusterPodMonitoring",
              config.monitor, namespaced=False, crd=True),
    # VictoriaMetrics operator: VMRule (spec.groups as in a PrometheusRule), VMServiceScrape and
    # VMPodScrape (spec.selector as in a ServiceMonitor/PodMonitor).
    kind_spec("vmrules.operator.victoriametrics.com", ("v1beta1",), "VMRule",
              config.prometheus_rule, crd=True),
    kind_spec("vmservicescrapes.operator.victoriametrics.com", ("v1beta1",), "VMServiceScrape",
              config.monitor, crd=True),
    kind_spec("vmpodscrapes.operator.victoriametrics.com", ("v1beta1",), "VMPodScrape",
              config.monitor, crd=True),
    # Azure Monitor managed service for Prometheus: the Prometheus Operator's monitors under its
    # own group, read by the ama-metrics agent.
    kind_spec("servicemonitors.azmonitoring.coreos.com", ("v1",), "ServiceMonitor",
              config.monitor, crd=True),
    kind_spec("podmonitors.azmonitoring.coreos.com", ("v1",), "PodMonitor", config.monitor,
              crd=True),
)  # fmt: skip

KINDS: dict[str, KindSpec] = {
    spec.key: spec for spec in (*_CORE, *(s for a in ADAPTERS for s in (a.spec, *a.extra_kinds)))
}

_BY_API_KIND: dict[tuple[str, str], KindSpec] = {
    (spec.group, spec.kind): spec for spec in KINDS.values()
}

# Resources and subresources never requested: Secrets, pod logs, exec/attach/port-forward, and
# the node, pod and service proxies.
FORBIDDEN_RESOURCES = frozenset({"secrets"})
FORBIDDEN_SUBRESOURCES = frozenset({"log", "exec", "attach", "portforward", "proxy"})


def forbidden_path(path: str) -> bool:
    """Whether an API path reads a Secret, a log, exec/attach/port-forward or a proxy.

    Only the resource and subresource positions count, so a namespace or an object named ``log``
    or ``secrets`` is read like any other: ``/api/v1/namespaces/log/pods`` is allowed,
    ``/api/v1/namespaces/x/pods/p/log`` is not.
    """
    parts = [p for p in path.split("/") if p]
    if parts[:1] == ["api"]:
        rest = parts[2:]
    elif parts[:1] == ["apis"]:
        rest = parts[3:]
    else:
        return False  # /version, /healthz and discovery documents
    if rest[:1] == ["proxy"]:
        return True  # the legacy /api/v1/proxy/... tree
    if rest[:1] == ["namespaces"] and len(rest) >= 3:
        rest = rest[2:]  # /namespaces/<ns>/<resource>/...
    if not rest:
        return False
    return rest[0] in FORBIDDEN_RESOURCES or (len(rest) >= 3 and rest[2] in FORBIDDEN_SUBRESOURCES)


def spec_for_object(api_version: str, kind: str) -> KindSpec | None:
    """The spec an object belongs to, from its ``apiVersion`` and ``kind`` (any version)."""
    return _BY_API_KIND.get((api_group(api_version), kind))


def _intern(value: Any) -> Any:
    """Share repeated short strings (phases, images, label values) between objects."""
    if isinstance(value, str):
        return sys.intern(value) if len(value) <= 80 else value
    if isinstance(value, dict):
        return {k: _intern(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_intern(v) for v in value]
    return value


def project(kind_key: str, obj: Obj) -> Obj:
    """The slim form of ``obj`` for the kind ``kind_key``, its short strings interned.

    An object the projector cannot read (a field checks read has the wrong type) keeps its name
    and a note naming the field, so every check that reads its kind reports that one object as
    not evaluated (:mod:`.engine`), instead of reading it as empty and healthy, or failing the
    whole list.
    """
    if UNREADABLE in obj:
        return obj
    try:
        check_shape(obj)
        return _intern(KINDS[kind_key].project(obj))  # type: ignore[no-any-return]
    except Malformed as exc:
        return unreadable(obj, str(exc), exc.path)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        return unreadable(obj, f"{type(exc).__name__}: {exc}")


def checked(obj: Obj) -> Obj:
    """An object already projected (a snapshot in the current projection), its shared fields'
    types checked as :func:`project` checks them; unreadable ones marked the same way."""
    if UNREADABLE in obj:
        return obj
    try:
        check_shape(obj)
    except Malformed as exc:
        return unreadable(obj, str(exc), exc.path)
    return obj


def unreadable(obj: Obj, reason: str, path: str | None = None) -> Obj:
    """What is kept of an object kubegap cannot read: its metadata (or, if that is what is
    malformed, its name and namespace), why, and the field at fault when it is known."""
    try:
        kept = metadata(obj)
    except (TypeError, ValueError, AttributeError):
        meta = obj.get("metadata")
        names = ("name", "namespace")
        kept = (
            {k: str(meta[k]) for k in names if meta.get(k) is not None}
            if isinstance(meta, dict)
            else {}
        )
    out = {"metadata": kept, UNREADABLE: reason}
    if path:
        out[UNREADABLE_FIELD] = path
    return out
