"""SARIF 2.1.0 output with logical locations (``<namespace>/<Kind>/<name>``).

A live cluster has no files, so each result carries a logical location and a synthetic artifact
URI ``k8s://<context>/<namespace>/<Kind>/<name>`` (some viewers only show physical locations).
With no file content to hash, a viewer cannot tell run to run that a result is the same one, so
each carries ``partialFingerprints["kubegap/v1"]``: a digest of its check and resource (and of
its rank among that pair's results, were there more than one), the same in every run.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Any

from . import __version__
from .cases import cited_cases
from .engine import AuditResult
from .model import Finding
from .report import exit_code

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"critical": "error", "high": "error", "medium": "warning", "low": "note", "info": "note"}
SECURITY_SEVERITY = {"critical": "9.5", "high": "8.0", "medium": "5.5", "low": "3.0", "info": "1.0"}


def _rule(check_id: str, result: AuditResult, library_url: str | None) -> dict[str, Any]:
    check = next(c for c in result.checks if c.id == check_id)
    cases = cited_cases(check.cases, library_url)
    help_md = (
        check.remediation
        + "\n\nCases:\n"
        + "\n".join(f"- [{c['title']}]({c.get('library_url') or c['source_url']})" for c in cases)
    )
    help_uri = (
        f"{library_url.rstrip('/')}/checks/#{check.id}" if library_url else check.references[0].url
    )
    return {
        "id": check.id,
        "name": "".join(w.capitalize() for w in check.id.split("-")),
        "shortDescription": {"text": check.title},
        "fullDescription": {"text": check.why},
        "help": {"text": check.remediation, "markdown": help_md},
        "helpUri": help_uri,
        "defaultConfiguration": {"level": LEVELS[check.severity]},
        "properties": {
            "security-severity": SECURITY_SEVERITY[check.severity],
            "tags": [check.category, check.confidence],
            "precision": "very-high" if check.confidence == "definitive" else "medium",
            "cases": [c["slug"] for c in cases],
            "references": [r.url for r in check.references],
            # shortDescription is the gap a result reports; this is what a clean run means
            "passTitle": check.title_for("pass"),
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
            "members": list(f.members),
            "evidence": [e.to_dict() for e in f.evidence],
        },
    }
    if f.exemption is not None:
        # An exemption is a suppression: the result stays, marked as accepted, with the reason.
        out["kind"] = "fail"
        out["level"] = LEVELS[f.check.severity]
        out["suppressions"] = [
            {
                "kind": "inSource" if f.exemption.source == "annotation" else "external",
                "status": "accepted",
                "justification": f"{f.exemption.reason} ({f.exemption.rule})",
            }
        ]
    return out


def _fingerprints(results: list[dict[str, Any]]) -> None:
    """Give each result its stable ``partialFingerprints`` (the module docstring says why)."""
    seen: Counter[tuple[str, str]] = Counter()
    for out in results:
        pair = (out["ruleId"], out["locations"][0]["logicalLocations"][0]["fullyQualifiedName"])
        seen[pair] += 1
        text = "\0".join([*pair, str(seen[pair])])
        out["partialFingerprints"] = {"kubegap/v1": hashlib.sha256(text.encode()).hexdigest()[:32]}


def render_sarif(result: AuditResult, fail_on: str, library_url: str | None) -> str:
    reported = [f for f in result.findings if f.status in ("fail", "not_evaluated", "exempted")]
    rule_ids = sorted(c.id for c in result.checks)
    context = (result.snapshot.context or "cluster").replace("/", "_")
    results = [_result(f, rule_ids.index(f.check.id), context) for f in reported]
    _fingerprints(results)
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "kubegap",
                        "version": __version__,
                        **(
                            {"informationUri": f"{library_url.rstrip('/')}/checks/"}
                            if library_url
                            else {}
                        ),
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
                "results": results,
            }
        ],
    }
    return json.dumps(doc, indent=2) + "\n"
