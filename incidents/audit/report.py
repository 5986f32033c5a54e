"""Reports for agents and tools: JSON (versioned schema, stable order), and exit codes.

The JSON schema is documented in SCHEMA.md beside this file. Everything is sorted (findings by
status, severity, check id, resource) so two runs over the same cluster state diff cleanly. The
text report is :mod:`.text`, SARIF :mod:`.sarif`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from . import __version__
from .cases import cited_cases
from .engine import AuditResult
from .jsonio import dumps
from .kinds import KINDS
from .model import SEVERITIES
from .model import SEVERITY_RANK
from .model import STATUSES
from .model import Check
from .model import Finding

SCHEMA = "kubegap-report"
SCHEMA_VERSION = "3.1"
EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE, EXIT_COVERAGE = 0, 1, 2, 3
CHECK_STATUSES = ("fail", "not_evaluated", "pass", "not_applicable")


def check_status(check: Check, findings: list[Finding]) -> str:
    """The worst status of a check's findings (fail > not_evaluated > pass > not_applicable).

    Exempted findings do not make a check fail; the engine adds a pass naming them.
    """
    statuses = {f.status for f in findings if f.check.id == check.id}
    for status in CHECK_STATUSES:
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


def check_rbac(check: Check) -> list[dict[str, Any]]:
    return [
        {
            "apiGroup": KINDS[k].group,
            "resource": KINDS[k].resource,
            "verbs": ["get", "list", "watch"],
        }
        for k in check.reads
    ]


def _check_identity(check: Check) -> dict[str, Any]:
    """What every JSON entry of a check starts with: what it is, how grave and how sure."""
    return {
        "id": check.id,
        "title": check.title,
        "pass_title": check.title_for("pass"),
        "severity": check.severity,
        "category": check.category,
        "confidence": check.confidence,
    }


def check_to_dict(check: Check, library_url: str | None) -> dict[str, Any]:
    """What ``list-checks -o json`` and ``explain -o json`` print for one check."""
    return {
        **_check_identity(check),
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
        "settings": [
            {"name": s.name, "default": s.default, "help": s.help} for s in check.settings
        ],
        "cases": cited_cases(check.cases, library_url),
        "references": [{"url": r.url, "title": r.title} for r in check.references],
        "rbac": check_rbac(check),
    }


def finding_to_dict(f: Finding) -> dict[str, Any]:
    """One finding: what was found on which object. What the check is (title, remediation, cited
    cases, references) is said once, in the report's ``checks`` entry for ``check_id``."""
    out: dict[str, Any] = {
        "check_id": f.check.id,
        "severity": f.check.severity,
        "status": f.status,
        "message": f.message,
        "resource": f.resource.to_dict(),
        "members": list(f.members),
        "examined": list(f.examined),
        "not_seen": list(f.not_seen),
        "evidence": [e.to_dict() for e in f.evidence],
    }
    if f.exemption is not None:
        out["exemption"] = f.exemption.to_dict()
    return out


def _check_entry(
    check: Check, status: str, findings: int, library_url: str | None
) -> dict[str, Any]:
    return {
        **_check_identity(check),
        "status": status,
        "findings": findings,
        "remediation": check.remediation,
        "cases": cited_cases(check.cases, library_url),
        "references": [{"url": r.url, "title": r.title} for r in check.references],
    }


def _statuses_by_check(findings: list[Finding]) -> dict[str, set[str]]:
    statuses: dict[str, set[str]] = {}
    for f in findings:
        statuses.setdefault(f.check.id, set()).add(f.status)
    return statuses


def _worst(statuses: set[str]) -> str:
    return next((s for s in CHECK_STATUSES if s in statuses), "not_evaluated")


def summary(result: AuditResult, fail_on: str) -> dict[str, Any]:
    by_status = Counter(f.status for f in result.findings)
    fail_sev = Counter(f.severity for f in result.findings if f.status == "fail")
    by_check = _statuses_by_check(result.findings)
    checks = Counter(_worst(by_check.get(c.id, set())) for c in result.checks)
    return {
        "checks": len(result.checks),
        "checks_by_status": {s: checks.get(s, 0) for s in CHECK_STATUSES},
        "findings_by_status": {s: by_status.get(s, 0) for s in STATUSES},
        "failing_by_severity": {s: fail_sev.get(s, 0) for s in SEVERITIES},
        "fail_on": fail_on,
        "coverage_complete": result.coverage_complete,
        "disabled_checks": list(result.disabled),
        "exit_code": exit_code(result, fail_on),
    }


def to_json_dict(result: AuditResult, fail_on: str, library_url: str | None) -> dict[str, Any]:
    snap = result.snapshot
    by_check = _statuses_by_check(result.findings)
    counts = Counter(f.check.id for f in result.findings)
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
            "config": result.config.path,
        },
        "summary": summary(result, fail_on),
        "coverage": [
            {"kind": key, **cov.to_dict()} for key, cov in sorted(result.coverage.items())
        ],
        "checks": [
            _check_entry(c, _worst(by_check.get(c.id, set())), counts[c.id], library_url)
            for c in sorted(result.checks, key=lambda c: c.id)
        ],
        "findings": [finding_to_dict(f) for f in result.findings],
    }


def render_json_bytes(result: AuditResult, fail_on: str, library_url: str | None) -> bytes:
    """The JSON report, UTF-8, indented by two spaces (orjson when installed)."""
    return dumps(to_json_dict(result, fail_on, library_url), indent=True, newline=True)


def render_json(result: AuditResult, fail_on: str, library_url: str | None) -> str:
    return render_json_bytes(result, fail_on, library_url).decode()
