"""Operator control: a config file (``--config kubegap.yaml``) and exemption annotations.

A config file turns checks on or off, changes their thresholds and exempts objects, each
exemption with a reason::

    checks:
      PLAT-002: {enabled: false}            # managed control plane: etcd is not ours
      CKPT-001: {min_grace_seconds: 300}    # a threshold of the check (see `kubegap explain`)
    exemptions:
      - checks: [MEM-001, MEM-002]          # or ["*"]
        namespaces: [research]              # any of these namespaces
        selector: {matchLabels: {app: notebook}}   # and the object's labels
        resources: ["research/Pod/scratch-*"]      # and its <namespace>/<Kind>/<name> (globs)
        reason: notebooks are disposable

An object exempts itself with the annotations ``kubegap.io/exempt: CHECK-ID[,CHECK-ID...]`` (or
``*``) and ``kubegap.io/exempt-reason``. Exempted findings are reported as ``exempted`` with the
reason, never dropped. A malformed file is a usage error naming the key.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from .errors import UsageError
from .k8s import Obj
from .k8s import selector_matches
from .model import Check
from .model import Exemption
from .model import Resource
from .yamlfile import read_yaml

EXEMPT_ANNOTATION = "kubegap.io/exempt"
REASON_ANNOTATION = "kubegap.io/exempt-reason"
_RULE_KEYS = frozenset({"checks", "namespaces", "selector", "resources", "reason"})
_MATCH_KEYS = ("namespaces", "selector", "resources")


class ConfigFileError(UsageError):
    """A config file kubegap cannot use; the message names the file and the key."""


@dataclass(frozen=True)
class ExemptionRule:
    """One ``exemptions:`` entry: every condition given must hold."""

    index: int
    checks: frozenset[str]  # "*" for every check
    reason: str
    namespaces: frozenset[str] | None = None
    selector: Obj | None = None
    resources: tuple[str, ...] = ()

    def matches(self, check_id: str, resource: Resource, labels: dict[str, str]) -> bool:
        if "*" not in self.checks and check_id not in self.checks:
            return False
        if self.namespaces is not None and (resource.namespace or "") not in self.namespaces:
            return False
        if self.selector is not None and not selector_matches(self.selector, labels):
            return False
        if self.resources and not any(
            fnmatch.fnmatchcase(resource.logical_name, p) for p in self.resources
        ):
            return False
        return True


@dataclass(frozen=True)
class AuditConfig:
    """Checks switched off, thresholds changed, and exemption rules."""

    path: str | None = None
    disabled: frozenset[str] = frozenset()
    settings: dict[str, dict[str, int | float]] = field(default_factory=dict)
    exemptions: tuple[ExemptionRule, ...] = ()

    def params_for(self, check: Check) -> dict[str, int | float]:
        params = {s.name: s.default for s in check.settings}
        params.update(self.settings.get(check.id, {}))
        return params

    def exemption(
        self, check_id: str, resource: Resource, labels: dict[str, str], annotations: dict[str, str]
    ) -> Exemption | None:
        """Why a failing finding of ``check_id`` on ``resource`` is excused, if it is."""
        wanted = {i.strip().upper() for i in annotations.get(EXEMPT_ANNOTATION, "").split(",")}
        if check_id in wanted or "*" in wanted:
            reason = annotations.get(REASON_ANNOTATION) or f"no {REASON_ANNOTATION} given"
            return Exemption(
                "annotation", reason, f"{EXEMPT_ANNOTATION}: {annotations[EXEMPT_ANNOTATION]}"
            )
        for rule in self.exemptions:
            if rule.matches(check_id, resource, labels):
                return Exemption("config", rule.reason, f"{self.path}: exemptions[{rule.index}]")
        return None


def _fail(path: str, key: str, problem: str) -> ConfigFileError:
    return ConfigFileError(f"config {path}: {key}: {problem}")


def _strings(path: str, key: str, value: Any) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise _fail(path, key, "must be a non-empty list of strings")
    return list(value)


def _checks_section(
    path: str, data: Any, registry: dict[str, Check]
) -> tuple[frozenset[str], dict[str, dict[str, int | float]]]:
    if data is None:
        return frozenset(), {}
    if not isinstance(data, dict):
        raise _fail(path, "checks", "must be a mapping of check ids")
    disabled: set[str] = set()
    settings: dict[str, dict[str, int | float]] = {}
    for raw_id, entry in data.items():
        check_id = str(raw_id).upper()
        where = f"checks.{raw_id}"
        check = registry.get(check_id)
        if check is None:
            raise _fail(path, where, "unknown check id (see kubegap list-checks)")
        if entry is None:
            continue
        if not isinstance(entry, dict):
            raise _fail(path, where, "must be a mapping (enabled, or a setting of the check)")
        known = {s.name: s for s in check.settings}
        for name, value in entry.items():
            if name == "enabled":
                if not isinstance(value, bool):
                    raise _fail(path, f"{where}.enabled", "must be true or false")
                if not value:
                    disabled.add(check_id)
                continue
            setting = known.get(str(name))
            if setting is None:
                choices = ", ".join(["enabled", *known]) or "enabled"
                raise _fail(path, f"{where}.{name}", f"unknown setting (known: {choices})")
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise _fail(path, f"{where}.{name}", "must be a number >= 0")
            settings.setdefault(check_id, {})[setting.name] = type(setting.default)(value)
    return frozenset(disabled), settings


def _rule(path: str, index: int, entry: Any, registry: dict[str, Check]) -> ExemptionRule:
    where = f"exemptions[{index}]"
    if not isinstance(entry, dict):
        raise _fail(path, where, "must be a mapping")
    unknown = sorted(set(map(str, entry)) - _RULE_KEYS)
    if unknown:
        raise _fail(
            path, f"{where}.{unknown[0]}", f"unknown key (known: {', '.join(sorted(_RULE_KEYS))})"
        )
    if "checks" not in entry:
        raise _fail(path, f"{where}.checks", 'required (check ids, or "*")')
    checks = frozenset(c.upper() for c in _strings(path, f"{where}.checks", entry["checks"]))
    bad = sorted(c for c in checks if c != "*" and c not in registry)
    if bad:
        raise _fail(path, f"{where}.checks", f"unknown check id {bad[0]}")
    reason = entry.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise _fail(path, f"{where}.reason", "required: say why these findings are accepted")
    if not any(k in entry for k in _MATCH_KEYS):
        raise _fail(path, where, "needs namespaces, selector or resources (what it exempts)")
    selector = entry.get("selector")
    if selector is not None and (
        not isinstance(selector, dict) or set(selector) - {"matchLabels", "matchExpressions"}
    ):
        raise _fail(
            path, f"{where}.selector", "must be a label selector (matchLabels, matchExpressions)"
        )
    return ExemptionRule(
        index,
        checks,
        reason.strip(),
        frozenset(_strings(path, f"{where}.namespaces", entry["namespaces"]))
        if "namespaces" in entry
        else None,
        selector,
        tuple(_strings(path, f"{where}.resources", entry["resources"]))
        if "resources" in entry
        else (),
    )


def load_config(path: str | Path, registry: dict[str, Check]) -> AuditConfig:
    """Read and validate a kubegap config file; any problem raises :class:`ConfigFileError`."""
    name = str(path)
    data = read_yaml(Path(path), "config", ConfigFileError)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigFileError(f"config {name}: the top level must be a mapping")
    unknown = sorted(set(map(str, data)) - {"checks", "exemptions"})
    if unknown:
        raise _fail(name, unknown[0], "unknown key (known: checks, exemptions)")
    disabled, settings = _checks_section(name, data.get("checks"), registry)
    rules = data.get("exemptions") or []
    if not isinstance(rules, list):
        raise _fail(name, "exemptions", "must be a list")
    return AuditConfig(
        name, disabled, settings, tuple(_rule(name, i, r, registry) for i, r in enumerate(rules))
    )
