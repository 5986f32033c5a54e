"""Projection of monitoring and GPU Operator configuration: rules, monitors, ClusterPolicy,
ConfigMaps (only DCGM counters and Kueue configuration are kept)."""

from __future__ import annotations

import re
from typing import Any

from ..k8s import Obj
from ..k8s import scrapes_prometheus
from .core import MAX_CONFIG_VALUE
from .core import MAX_EXPR
from .core import _env
from .core import _s
from .core import conditions
from .core import metadata
from .core import prune


def prometheus_rule(obj: Obj) -> Obj:
    groups = (obj.get("spec") or {}).get("groups") or []
    return {
        "metadata": metadata(obj),
        "spec": {
            "groups": [
                {
                    "name": g.get("name"),
                    "rules": [
                        prune(
                            {
                                "alert": r.get("alert"),
                                "record": r.get("record"),
                                "expr": _s(str(r.get("expr", "")), MAX_EXPR),
                                "for": r.get("for"),
                            }
                        )
                        for r in g.get("rules") or []
                    ],
                }
                for g in groups
            ]
        },
    }


def monitor(obj: Obj) -> Obj:
    spec = obj.get("spec") or {}
    return {
        "metadata": metadata(obj),
        "spec": prune(
            {"selector": spec.get("selector"), "namespaceSelector": spec.get("namespaceSelector")}
        ),
    }


_POLICY_KEYS = ("dcgmExporter", "dcgm", "devicePlugin", "validator", "gfd", "nodeStatusExporter")


def _component(value: Any) -> Any:
    """A GPU Operator component's settings, its ``env`` filtered like a container's."""
    if not isinstance(value, dict) or "env" not in value:
        return value
    out = dict(value)
    env = _env(value.get("env"))
    if env is None:
        del out["env"]
    else:
        out["env"] = env
    return out


def cluster_policy(obj: Obj) -> Obj:
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    kept = {k: _component(spec[k]) for k in _POLICY_KEYS if k in spec}
    driver = spec.get("driver")
    if isinstance(driver, dict):
        kept["driver"] = prune(
            {
                "enabled": driver.get("enabled"),
                "version": driver.get("version"),
                "upgradePolicy": driver.get("upgradePolicy"),
            }
        )
    daemonsets = spec.get("daemonsets")
    if isinstance(daemonsets, dict):
        kept["daemonsets"] = prune(
            {
                "updateStrategy": daemonsets.get("updateStrategy"),
                "rollingUpdate": daemonsets.get("rollingUpdate"),
            }
        )
    return {
        "metadata": metadata(obj),
        "spec": kept,
        "status": prune(
            {"state": status.get("state"), "conditions": conditions(status.get("conditions"))}
        ),
    }


def _config_value_needed(name: str, value: str) -> bool:
    """DCGM counters, Kueue configuration, and collector configs that scrape (MON-003)."""
    return (
        "DCGM_FI_" in value
        or ("kueue" in name and "config.kueue.x-k8s.io" in value)
        or scrapes_prometheus(value)
    )


# The lines of a collector config that say it scrapes; the rest (exporters' endpoints, basic_auth,
# bearer tokens) is dropped, so no credential reaches a snapshot.
_SCRAPE_LINE = re.compile(r"^\s*(prometheus(/[\w.-]+)?:\s*$|scrape_configs:|-?\s*job_name:)")


def _kept_value(value: str) -> str:
    if "DCGM_FI_" in value or "config.kueue.x-k8s.io" in value:
        return value[:MAX_CONFIG_VALUE]
    lines = [line for line in value.splitlines() if _SCRAPE_LINE.match(line)]
    return "\n".join(lines)[:MAX_CONFIG_VALUE] + "\n"


def configmap(obj: Obj) -> Obj:
    meta = metadata(obj)
    data = obj.get("data") or {}
    kept = {
        k: _kept_value(v)
        for k, v in data.items()
        if isinstance(v, str) and _config_value_needed(str(meta.get("name", "")), v)
    }
    out: Obj = {"metadata": meta}
    if kept:
        out["data"] = kept
    return out
