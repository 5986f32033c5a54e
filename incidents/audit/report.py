"""Reports: JSON for agents (versioned schema, stable order), text for humans; exit codes.

The JSON schema is documented in SCHEMA.md beside this file. Everything is sorted (findings by
status, severity, check id, resource) so two runs over the same cluster state diff cleanly.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from . import __version__
from .cases import CASES, case_url
from .engine import AuditResult
from .kinds import KINDS
from .model import SEVERITIES, SEVERITY_RANK, STATUSES, Check, Finding

SCHEMA = "kubegap-report"
SCHEMA_VERSION = "1.0"
EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE, EXIT_COVERAGE = 0, 1, 2, 3
DEFAULT_LIBRARY_URL = "http://127.0.0.1:8000"


def check_status(check: Check, findings: list[Finding]) -> str:
    """The worst status of a check's findings (fail > not_evaluated > pass > not_applicable)."""
    statuses = {f.status for f in findings if f.check.id == check.id}
    for status in ("fail", "not_evaluated", "pass", "not_applicable"):
        if status in statuses:
            return status
    return "not_evaluated"


def failing(result: AuditResult, fail_on: str) -> list[Finding]:
    limit = SEVERITY_RANK[fail_on]
    return [f for f in result.findings if f.status == "fail" and SEVERITY_RANK[f.severity] <= limit]


def exit_code(result: AuditResult, fail_on: str) -> int:
    """1 findings at/above ``fail_on``; else 3 if anything was not looked at (a needed kind could not
    be listed, or a check could not be evaluated); else 0. Not looked at never reads as clean."""
    if failing(result, fail_on):
        return EXIT_FINDINGS
    if not result.coverage_complete or any(f.status == "not_evaluated" for f in result.findings):
        return EXIT_COVERAGE
    return EXIT_CLEAN


def cited_cases(check: Check, library_url: str) -> list[dict[str, str]]:
    return [
        {
            "slug": slug,
            "title": CASES[slug].title if slug in CASES else slug,
            "url": case_url(library_url, slug),
        }
        for slug in check.cases
    ]


def check_rbac(check: Check) -> list[dict[str, Any]]:
    return [
        {
            "apiGroup": KINDS[k].group,
            "resource": KINDS[k].resource,
            "verbs": ["get", "list", "watch"],
        }
        for k in check.reads
    ]


def check_to_dict(check: Check, library_url: str) -> dict[str, Any]:
    """What ``list-checks --format json`` and ``explain --format json`` print for one check."""
    return {
        "id": check.id,
        "title": check.title,
        "severity": check.severity,
        "category": check.category,
        "confidence": check.confidence,
        "scope": "cluster" if check.cluster_wide else "namespace",
        "reads": [
            {
                "kind": k,
                "group": KINDS[k].group,
                "versions": list(KINDS[k].versions),
                "resource": KINDS[k].resource,
            }
            for k in check.reads
        ],
        "why": check.why,
        "remediation": check.remediation,
        "cases": cited_cases(check, library_url),
        "references": [{"url": r.url, "title": r.title} for r in check.references],
        "rbac": check_rbac(check),
    }


def finding_to_dict(f: Finding, library_url: str) -> dict[str, Any]:
    return {
        "check_id": f.check.id,
        "title": f.check.title,
        "severity": f.check.severity,
        "category": f.check.category,
        "confidence": f.check.confidence,
        "status": f.status,
        "message": f.message,
        "resource": f.resource.to_dict(),
        "evidence": [e.to_dict() for e in f.evidence],
        "remediation": f.check.remediation,
        "cases": cited_cases(f.check, library_url),
        "references": [{"url": r.url, "title": r.title} for r in f.check.references],
    }


def summary(result: AuditResult, fail_on: str) -> dict[str, Any]:
    by_status = Counter(f.status for f in result.findings)
    fail_sev = Counter(f.severity for f in result.findings if f.status == "fail")
    checks = Counter(check_status(c, result.findings) for c in result.checks)
    return {
        "checks": len(result.checks),
        "checks_by_status": {s: checks.get(s, 0) for s in STATUSES},
        "findings_by_status": {s: by_status.get(s, 0) for s in STATUSES},
        "failing_by_severity": {s: fail_sev.get(s, 0) for s in SEVERITIES},
        "fail_on": fail_on,
        "coverage_complete": result.coverage_complete,
        "exit_code": exit_code(result, fail_on),
    }


def to_json_dict(result: AuditResult, fail_on: str, library_url: str) -> dict[str, Any]:
    snap = result.snapshot
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "kubegap", "version": __version__},
        "source": {
            "type": result.source,
            "context": snap.context,
            "namespace": snap.namespace,
            "server_version": snap.server_version.get("gitVersion"),
            "collected_at": snap.collected_at,
        },
        "summary": summary(result, fail_on),
        "coverage": [
            {"kind": key, **cov.to_dict()} for key, cov in sorted(result.coverage.items())
        ],
        "checks": [
            {
                "id": c.id,
                "title": c.title,
                "severity": c.severity,
                "status": check_status(c, result.findings),
                "findings": sum(1 for f in result.findings if f.check.id == c.id),
            }
            for c in sorted(result.checks, key=lambda c: c.id)
        ],
        "findings": [finding_to_dict(f, library_url) for f in result.findings],
    }


def render_json(result: AuditResult, fail_on: str, library_url: str) -> str:
    return json.dumps(to_json_dict(result, fail_on, library_url), indent=2, sort_keys=False) + "\n"


def _short(value: Any, limit: int = 120) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_text(result: AuditResult, fail_on: str, library_url: str, per_check: int = 10) -> str:
    snap = result.snapshot
    out: list[str] = []
    where = f"snapshot {result.source_detail}" if result.source == "snapshot" else "cluster"
    out.append(
        f"kubegap {__version__}: {where} context={snap.context or '-'} "
        f"server={snap.server_version.get('gitVersion', '?')}"
    )
    if snap.namespace:
        out.append(f"namespace: {snap.namespace} (namespaced kinds only)")
    out.append("")
    out.append("Coverage")
    for key, cov in sorted(result.coverage.items()):
        detail = (
            f"{cov.count} objects, {cov.pages} pages"
            if cov.status == "listed"
            else cov.message or ""
        )
        out.append(f"  {cov.status:<10} {key:<42} {detail}")
    for check in sorted(result.checks, key=lambda c: (SEVERITY_RANK[c.severity], c.id)):
        findings = [f for f in result.findings if f.check.id == check.id]
        status = check_status(check, findings)
        out.append("")
        out.append(f"[{status.upper()}] {check.id} {check.title} ({check.severity})")
        shown = [f for f in findings if f.status in ("fail", "not_evaluated")] or findings
        for f in shown[:per_check]:
            target = "cluster" if f.resource.kind == "Cluster" else f.resource.logical_name
            out.append(f"  - {target}: {f.message}")
            for e in f.evidence[:3]:
                out.append(
                    f"      {e.path}: observed {_short(e.observed)}; expected {_short(e.expected)}"
                )
        if len(shown) > per_check:
            out.append(f"  … and {len(shown) - per_check} more (use --format json for all)")
        if status == "fail":
            out.append(f"  fix: {check.remediation}")
            for case in cited_cases(check, library_url)[:3]:
                out.append(f"  case: {case['title']} <{case['url']}>")
    s = summary(result, fail_on)
    counts = ", ".join(f"{n} {k}" for k, n in s["checks_by_status"].items() if n)
    out.append("")
    out.append(f"{s['checks']} checks: {counts}. Exit code {s['exit_code']} (--fail-on {fail_on}).")
    if not result.coverage_complete:
        out.append(
            "Coverage incomplete: some kinds could not be listed; their checks were not evaluated."
        )
    return "\n".join(out) + "\n"
