"""Run checks over a snapshot; gate each check on the coverage of the kinds it reads."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .context import Context
from .kinds import KINDS
from .model import CLUSTER, Check, Evidence, Finding, Result
from .snapshot import Coverage, Snapshot


@dataclass
class AuditResult:
    """Findings (sorted, diff-stable) plus coverage of every kind the checks needed."""

    checks: list[Check]
    findings: list[Finding]
    coverage: dict[str, Coverage]
    snapshot: Snapshot
    source: str = "live"  # "live" or "snapshot"
    source_detail: str = ""  # the snapshot path

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
    """A not_evaluated result for each object of the check's kinds whose spec could not be read."""
    return [
        Result(
            "not_evaluated",
            bad.resource,
            f"could not read this object's pod templates: {bad.error}",
            (Evidence("spec", "unreadable", "a valid pod template and replica count"),),
        )
        for bad in ctx.malformed
        if bad.key in check.reads
    ]


def run_checks(checks: list[Check], snap: Snapshot) -> AuditResult:
    """Evaluate ``checks`` against ``snap``; every check yields at least one finding."""
    ctx = Context(snap)
    findings: list[Finding] = []
    for check in checks:
        gated = _gate(check, snap)
        if gated is not None:
            results: list[Result] = [gated]
        else:
            ctx.workloads_read = False
            try:
                results = list(check.func(ctx))
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                message = f"check could not read the objects: {type(exc).__name__}: {exc}"
                results = [Result("not_evaluated", CLUSTER, message)]
            if not results:
                results = [Result("not_evaluated", CLUSTER, "check returned no result")]
            if ctx.workloads_read:
                results.extend(_unread_objects(check, ctx))
        findings.extend(
            Finding(check, r.status, r.resource, r.message, r.evidence) for r in results
        )
    findings.sort(key=Finding.sort_key)
    coverage = {k: snap.coverage[k] for k in needed_kinds(checks) if k in snap.coverage}
    for key in needed_kinds(checks):
        if key not in coverage:
            coverage[key] = Coverage("error", message="not in the snapshot")
    return AuditResult(checks, findings, coverage, snap)
