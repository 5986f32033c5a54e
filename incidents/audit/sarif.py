"""SARIF 2.1.0 output with logical locations (``<namespace>/<Kind>/<name>``).

A live cluster has no files, so each result carries a logical location and a synthetic artifact
URI ``k8s://<context>/<namespace>/<Kind>/<name>`` (some viewers only show physical locations).
"""

from __future__ import annotations

import json
from typing import Any

from . import __version__
from .engine import AuditResult
from .model import Finding
from .report import cited_cases, exit_code

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"critical": "error", "high": "error", "medium": "warning", "low": "note", "info": "note"}
SECURITY_SEVERITY = {"critical": "9.5", "high": "8.0", "medium": "5.5", "low": "3.0", "info": "1.0"}


def _rule(check_id: str, result: AuditResult, library_url: str) -> dict[str, Any]:
    check = next(c for c in result.checks if c.id == check_id)
    cases = cited_cases(check, library_url)
    help_md = (
        check.remediation
        + "\n\nCases:\n"
        + "\n".join(f"- [{c['title']}]({c['url']})" for c in cases)
    )
    return {
        "id": check.id,
        "name": "".join(w.capitalize() for w in check.id.split("-")),
        "shortDescription": {"text": check.title},
        "fullDescription": {"text": check.why},
        "help": {"text": check.remediation, "markdown": help_md},
        "helpUri": f"{library_url.rstrip('/')}/checks/#{check.id}",
        "defaultConfiguration": {"level": LEVELS[check.severity]},
        "properties": {
            "security-severity": SECURITY_SEVERITY[check.severity],
            "tags": [check.category, check.confidence],
            "precision": "very-high" if check.confidence == "definitive" else "medium",
            "cases": [c["slug"] for c in cases],
            "references": [r.url for r in check.references],
        },
    }


def _result(f: Finding, rule_index: int, context: str) -> dict[str, Any]:
    r = f.resource
    name = r.logical_name
    out: dict[str, Any] = {
        "ruleId": f.check.id,
        "ruleIndex": rule_index,
        "kind": "fail" if f.status == "fail" else "review",
        "level": LEVELS[f.check.severity] if f.status == "fail" else "none",
        "message": {"text": f"{f.message} ({name})"},
        "locations": [
            {
                "physicalLocation": {"artifactLocation": {"uri": f"k8s://{context}/{name}"}},
                "logicalLocations": [
                    {"name": r.name, "fullyQualifiedName": name, "kind": "resource"}
                ],
            }
        ],
        "properties": {
            "status": f.status,
            "resource": r.to_dict(),
            "evidence": [e.to_dict() for e in f.evidence],
        },
    }
    return out


def render_sarif(result: AuditResult, fail_on: str, library_url: str) -> str:
    reported = [f for f in result.findings if f.status in ("fail", "not_evaluated")]
    rule_ids = sorted(c.id for c in result.checks)
    context = (result.snapshot.context or "cluster").replace("/", "_")
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "kubegap",
                        "version": __version__,
                        "informationUri": f"{library_url.rstrip('/')}/checks/",
                        "rules": [_rule(i, result, library_url) for i in rule_ids],
                    }
                },
                "invocations": [
                    {
                        "executionSuccessful": True,
                        "exitCode": exit_code(result, fail_on),
                        "properties": {
                            "coverage": {k: c.to_dict() for k, c in sorted(result.coverage.items())}
                        },
                    }
                ],
                "results": [_result(f, rule_ids.index(f.check.id), context) for f in reported],
            }
        ],
    }
    return json.dumps(doc, indent=2) + "\n"
