"""Run checks over a snapshot: gate each on coverage, merge per resource, apply exemptions."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace

from .config import AuditConfig
from .context import Context
from .kinds import KINDS
from .model import CLUSTER
from .model import Check
from .model import Evidence
from .model import Finding
from .model import Resource
from .model import Result
from .snapshot import Coverage
from .snapshot import Snapshot
from .workloads.base import UNREADABLE
from .workloads.base import UNREADABLE_FIELD

_READ_ERRORS = (KeyError, TypeError, ValueError, AttributeError)
_READABLE = "the fields checks read, with the types the Kubernetes API gives them"


@dataclass
class AuditResult:
    """Findings (sorted, diff-stable) plus coverage of every kind the checks needed."""

    checks: list[Check]
    findings: list[Finding]
    coverage: dict[str, Coverage]
    snapshot: Snapshot
    source: str = "live"  # "live" or "snapshot"
    source_detail: str = ""  # the snapshot path
    disabled: list[str] = field(default_factory=list)  # check ids a config file switched off
    config: AuditConfig = field(default_factory=AuditConfig)

    @property
    def coverage_complete(self) -> bool:
        return all(c.status in ("listed", "absent") for c in self.coverage.values())


def needed_kinds(checks: Iterable[Check]) -> list[str]:
    return sorted({k for c in checks for k in c.reads})


def _gate(check: Check, snap: Snapshot) -> Result | None:
    """A not_evaluated result when a kind the check reads could not be listed."""
    problems: list[Evidence] = []
    for key in check.reads:
        cov = snap.coverage.get(key)
        if cov is None:
            problems.append(Evidence(f"coverage.{key}", "not collected", "listed or absent"))
        elif cov.status in ("forbidden", "error"):
            problems.append(Evidence(f"coverage.{key}", cov.status, "listed or absent"))
    if not problems and snap.namespace and check.cluster_wide:
        namespaced = [k for k in check.reads if KINDS[k].namespaced]
        if namespaced:
            return Result(
                "not_evaluated",
                CLUSTER,
                f"needs {', '.join(namespaced)} from all namespaces; --namespace limited the lists",
                (Evidence("source.namespace", snap.namespace, "all namespaces"),),
            )
    if not problems:
        return None
    kinds = ", ".join(p.path.removeprefix("coverage.") for p in problems)
    return Result("not_evaluated", CLUSTER, f"could not list {kinds}", tuple(problems))


def _unread_objects(check: Check, ctx: Context) -> list[Result]:
    """A not_evaluated result for each object of the check's kinds that could not be read: its
    fields had the wrong types (:func:`.kinds.project`), or, when the check read the workloads,
    its pod templates could not be read."""
    out = [
        Result(
            "not_evaluated",
            ctx.ref(key, obj),
            f"could not read this object: {obj[UNREADABLE]}",
            (Evidence(obj.get(UNREADABLE_FIELD, "object"), "unreadable", _READABLE),),
        )
        for key in check.reads
        for obj in ctx.unreadable.get(key, ())
    ]
    if ctx.workloads_read:
        seen = {r.resource for r in out}
        out += [
            Result(
                "not_evaluated",
                bad.resource,
                f"could not read this object's pod templates: {bad.error}",
                (Evidence("spec", "unreadable", "a valid pod template and replica count"),),
            )
            for bad in ctx.malformed
            if bad.key in check.reads and bad.resource not in seen
        ]
    return out


def _unique(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


def _unique_evidence(evidence: Iterable[Evidence]) -> tuple[Evidence, ...]:
    # Observed values may be lists or dicts (unhashable): compare them by their repr.
    seen: dict[str, Evidence] = {}
    for e in evidence:
        seen.setdefault(repr((e.path, e.observed, e.expected)), e)
    return tuple(seen.values())


def merge(results: list[Result]) -> list[Result]:
    """One result per (status, resource): a workload's gaps in its replica types and pods, once."""
    merged: dict[tuple[str, Resource], Result] = {}
    for r in results:
        key = (r.status, r.resource)
        seen = merged.get(key)
        if seen is None:
            merged[key] = r
            continue
        merged[key] = replace(
            seen,
            message=seen.message if r.message in seen.message else f"{seen.message}; {r.message}",
            evidence=_unique_evidence((*seen.evidence, *r.evidence)),
            members=_unique((*seen.members, *r.members)),
            examined=_unique((*seen.examined, *r.examined)),
            not_seen=_unique((*seen.not_seen, *r.not_seen)),
        )
    return list(merged.values())


def _evaluate(check: Check, ctx: Context, snap: Snapshot) -> list[Result]:
    gated = _gate(check, snap)
    if gated is not None:
        return [gated]
    ctx.workloads_read = False
    try:
        results = list(check.func(ctx))
    except _READ_ERRORS as exc:
        message = f"check could not read the objects: {type(exc).__name__}: {exc}"
        results = [Result("not_evaluated", CLUSTER, message)]
    if not results:
        results = [Result("not_evaluated", CLUSTER, "check returned no result")]
    results.extend(_unread_objects(check, ctx))
    results = merge(results)
    if snap.namespace and any(KINDS[k].namespaced for k in check.reads):
        outside = f"objects outside namespace {snap.namespace} (--namespace)"
        results = [
            replace(r, not_seen=_unique((*r.not_seen, outside))) if r.status == "pass" else r
            for r in results
        ]
    return results


def _finding(check: Check, r: Result, ctx: Context, config: AuditConfig) -> Finding:
    finding = Finding.of(check, r)
    if r.status != "fail" or (r.resource.kind == "Cluster" and not config.exemptions):
        return finding
    labels, annotations = ctx.labels_and_annotations(r.resource)
    exemption = config.exemption(check.id, r.resource, labels, annotations)
    return replace(finding, status="exempted", exemption=exemption) if exemption else finding


def run_checks(
    checks: list[Check], snap: Snapshot, config: AuditConfig | None = None
) -> AuditResult:
    """Evaluate ``checks`` against ``snap``; every check yields at least one finding."""
    config = config or AuditConfig()
    active = [c for c in checks if c.id not in config.disabled]
    ctx = Context(snap)
    findings: list[Finding] = []
    for check in active:
        ctx.params = config.params_for(check)
        found = [_finding(check, r, ctx, config) for r in _evaluate(check, ctx, snap)]
        exempted = [f for f in found if f.status == "exempted"]
        if exempted and not [f for f in found if f.status in ("fail", "pass", "not_evaluated")]:
            excused = tuple(f.resource.logical_name for f in exempted)
            found.append(
                Finding(
                    "pass",
                    CLUSTER,
                    f"no gap beyond the {len(exempted)} exempted",
                    examined=excused,
                    check=check,
                )
            )
        findings.extend(found)
    ctx.release()
    findings.sort(key=Finding.sort_key)
    coverage = {k: snap.coverage[k] for k in needed_kinds(active) if k in snap.coverage}
    for key in needed_kinds(active):
        if key not in coverage:
            coverage[key] = Coverage("error", message="not in the snapshot")
    disabled = sorted(c.id for c in checks if c.id in config.disabled)
    return AuditResult(active, findings, coverage, snap, disabled=disabled, config=config)
