"""Running kubegap against the test API server and reading what it reports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from kube_client import iter_audit_requests

from incidents.audit.cli import main

REPO_ROOT = Path(__file__).resolve().parents[2]
Report = dict[str, Any]


def audit(kubeconfig: Path, out: Path, *extra: str) -> tuple[int, Report]:
    """``kubegap audit`` in-process, JSON to ``out``; (exit code, parsed report)."""
    code = main(
        [
            "audit",
            "--kubeconfig",
            str(kubeconfig),
            "--format",
            f"json={out}",
            "--fail-on",
            "low",
            *extra,
        ]
    )
    return code, json.loads(out.read_text())


def audit_subprocess(kubeconfig: Path, *extra: str) -> tuple[int, Report, str]:
    """``python -m incidents.audit audit`` as a user runs it; (exit code, report, stderr)."""
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "incidents.audit",
            "audit",
            "--kubeconfig",
            str(kubeconfig),
            "--format",
            "json",
            "--fail-on",
            "low",
            *extra,
        ],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env=env,
        timeout=120,
    )
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def resource_name(resource: dict[str, Any]) -> str:
    """``<namespace or _cluster>/<Kind>/<name>``, as kubegap's logical names."""
    return f"{resource.get('namespace') or '_cluster'}/{resource['kind']}/{resource['name']}"


def outcomes(report: Report) -> set[tuple[str, str, str]]:
    """Every finding as (check id, status, resource)."""
    return {(f["check_id"], f["status"], resource_name(f["resource"])) for f in report["findings"]}


def check_statuses(report: Report) -> dict[str, str]:
    return {c["id"]: c["status"] for c in report["checks"]}


def coverage(report: Report) -> dict[str, dict[str, Any]]:
    return {c["kind"]: c for c in report["coverage"]}


def without_run_details(report: Report) -> Report:
    """The report minus what legitimately differs between two runs (source, timings)."""
    return {k: v for k, v in report.items() if k not in ("source", "tool")}


def kubegap_requests(events: list[dict[str, Any]], username: str) -> list[dict[str, Any]]:
    return list(iter_audit_requests(events, username))


def verbs_by_resource(requests: list[dict[str, Any]]) -> Counter[tuple[str, str]]:
    """(verb, resource or the non-resource path) -> number of requests."""
    out: Counter[tuple[str, str]] = Counter()
    for ev in requests:
        ref = ev.get("objectRef") or {}
        what = ref.get("resource")
        if what and ref.get("subresource"):
            what = f"{what}/{ref['subresource']}"
        out[(ev["verb"], what or ev["requestURI"].split("?")[0])] += 1
    return out
