"""Helpers adapters use to read their objects: replica counts, pod templates, status conditions."""

from __future__ import annotations

from typing import Any

from ..k8s import Obj
from .base import UNREADABLE
from .base import PodTemplate
from .base import Unreadable


def count(value: Any, default: int = 1) -> int:
    """A replica count as the API defaults it; a value that is not a whole number is unreadable."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise Unreadable(f"replica count {value!r} is not a whole number")
    try:
        return int(value)
    except ValueError:
        raise Unreadable(f"replica count {value!r} is not a whole number") from None


def readable(obj: Obj) -> Obj:
    """``obj``, or :class:`Unreadable` when its projector could not read it."""
    if UNREADABLE in obj:
        raise Unreadable(str(obj[UNREADABLE]))
    return obj


def pod_template(role: str, path: str, tpl: Any, replicas: int, policy: Any = None) -> PodTemplate:
    """A :class:`PodTemplate` from a projected ``{metadata, spec}`` template at ``path``."""
    tpl = tpl if isinstance(tpl, dict) else {}
    spec = tpl.get("spec") if isinstance(tpl.get("spec"), dict) else {}
    labels = dict(((tpl.get("metadata") or {}).get("labels")) or {})
    return PodTemplate(
        role, f"{path}.spec", spec, replicas, labels, str(policy) if policy else None
    )


def indexed_templates(items: list[Obj], field: str, role: str, count_key: str) -> list[PodTemplate]:
    """One template per entry of a list field (``spec.tasks[i].template``), named by its name."""
    return [
        pod_template(
            f"{role} {item.get('name', i)}",
            f"spec.{field}[{i}].template",
            item.get("template"),
            count(item.get(count_key)),
        )
        for i, item in enumerate(items)
    ]


def spec_of(obj: Obj) -> Obj:
    spec = readable(obj).get("spec")
    return spec if isinstance(spec, dict) else {}


def condition_true(obj: Obj, *types: str) -> bool:
    return any(
        c.get("type") in types and c.get("status") == "True"
        for c in (obj.get("status") or {}).get("conditions") or []
    )
