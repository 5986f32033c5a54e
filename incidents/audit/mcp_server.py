"""``kubegap mcp``: the read-only audit as MCP tools for coding agents (stdio, mcp 2.x).

Tools: list_checks, explain_check, audit (a kubeconfig context or a snapshot file; returns counts
and the top failing findings so the answer fits an agent's context) and search_cases (the
library's REST API when reachable, else the case titles bundled with kubegap). Nothing here
writes to a cluster or to the library.

An agent names files; the server reads kubeconfigs (credentials) only from the user's default
locations (every file ``$KUBECONFIG`` lists, else ``~/.kube/config``) or an explicit allow-list
(``kubegap mcp --allow-kubeconfig PATH``, repeatable, or ``KUBEGAP_MCP_KUBECONFIGS``, paths
separated like ``PATH``), compared after resolving symlinks and ``..``. Any other path is refused
with a message naming those places, before the file is opened.
"""

from __future__ import annotations

import os
import re
import threading
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated
from typing import Any

import httpx
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from .cases import CASES
from .cases import case_url
from .cases import cited_cases
from .checks import ALL_CHECKS
from .checks import REGISTRY
from .errors import KubegapError
from .model import SEVERITY_RANK
from .report import check_to_dict
from .report import summary
from .runner import AuditOptions
from .runner import audit_once
from .runner import collector_paused

MAX_TOP = 100
ALLOWED_KUBECONFIGS_ENV = "KUBEGAP_MCP_KUBECONFIGS"
_AUDITS = threading.Semaphore(2)  # at most two audits at once, like kubescape's MCP server


def list_checks_data() -> list[dict[str, Any]]:
    return [
        {
            "id": c.id,
            "title": c.title,
            "severity": c.severity,
            "category": c.category,
            "cases": list(c.cases),
        }
        for c in ALL_CHECKS
    ]


def _resolved(path: str) -> Path:
    return Path(path).expanduser().resolve()


def allowed_kubeconfigs(extra: Iterable[str] = ()) -> set[Path]:
    """The kubeconfig files the MCP server may read: the user's defaults and the allow-list."""
    from .kubeconfig import kubeconfig_paths

    listed = [*extra, *os.environ.get(ALLOWED_KUBECONFIGS_ENV, "").split(os.pathsep)]
    return {p.resolve() for p in kubeconfig_paths(None)} | {_resolved(p) for p in listed if p}


def kubeconfig_refusal(kubeconfig: str | None, allowed: set[Path]) -> str | None:
    """Why ``kubeconfig`` may not be read, or None when it may (or when none is named)."""
    if not kubeconfig or _resolved(kubeconfig) in allowed:
        return None
    return (
        f"kubeconfig {kubeconfig} is not one this server may read: it reads only $KUBECONFIG's "
        f"files, ~/.kube/config, or paths allowed with kubegap mcp --allow-kubeconfig PATH or "
        f"{ALLOWED_KUBECONFIGS_ENV}; omit kubeconfig to use the default"
    )


def audit_summary(
    library_url: str | None,
    options: AuditOptions,
    *,
    fail_on: str = "high",
    top: int = 20,
    allowed: set[Path] | None = None,
) -> dict[str, Any]:
    """Run an audit and return a bounded summary: counts, coverage gaps, top failing findings.

    ``allowed``: the kubeconfig files that may be read (default :func:`allowed_kubeconfigs`).
    """
    if fail_on not in SEVERITY_RANK:
        return {"error": f"fail_on must be one of {', '.join(SEVERITY_RANK)}"}
    allowed = allowed_kubeconfigs() if allowed is None else allowed
    refusal = kubeconfig_refusal(options.kubeconfig, allowed)
    if refusal:
        return {"error": refusal}
    try:
        with _AUDITS, collector_paused():
            result = audit_once(options)
    except KubegapError as exc:
        return {"error": str(exc)}
    fails = sorted(
        (f for f in result.findings if f.status == "fail"),
        key=lambda f: (SEVERITY_RANK[f.severity], f.check.id, f.resource.logical_name),
    )
    top = max(1, min(int(top), MAX_TOP))
    failing = Counter(f.check.id for f in fails)
    checks = {f.check.id: f.check for f in fails}  # in `fails`' order: worst first
    return {
        "summary": summary(result, fail_on),
        # Every failing check, worst first, with its count: the top findings alone may all be
        # one check's (on a large cluster, thousands of findings of one check come first).
        "failing_checks": [
            {"check_id": c.id, "severity": c.severity, "title": c.title, "failing": failing[c.id]}
            for c in checks.values()
        ],
        "coverage_gaps": {
            k: c.status for k, c in sorted(result.coverage.items()) if c.status != "listed"
        },
        "not_evaluated": sorted(
            {f.check.id for f in result.findings if f.status == "not_evaluated"}
        ),
        "top_findings": [
            {
                "check_id": f.check.id,
                "severity": f.severity,
                "resource": f.resource.logical_name,
                "message": f.message,
                "evidence": [e.to_dict() for e in f.evidence[:2]],
                "members": list(f.members[:5]),
                "cases": [
                    c.get("library_url") or c["source_url"]
                    for c in cited_cases(f.check.cases[:2], library_url)
                ],
            }
            for f in fails[:top]
        ],
        "truncated": max(0, len(fails) - top),
    }


def _offline_search(query: str, limit: int, library_url: str | None) -> list[dict[str, Any]]:
    words = [w for w in re.findall(r"\w+", query.lower()) if len(w) > 1]
    scored = []
    for slug, case in CASES.items():
        title, text = case.title.lower(), f"{slug} {case.organisation} {case.summary}".lower()
        score = sum(3 * (w in title) + (w in text) for w in words)
        if score:
            scored.append((-score, slug))
    return [
        {
            "slug": slug,
            "title": CASES[slug].title,
            "url": case_url(library_url, slug) if library_url else CASES[slug].source_url,
            "summary": CASES[slug].summary[:300],
            "source": "bundled",
        }
        for _, slug in sorted(scored)[:limit]
    ]


def search_cases_data(query: str, limit: int, library_url: str | None) -> list[dict[str, Any]]:
    """Search the library's REST API; fall back to the bundled case list when it is unreachable
    (or no library URL is configured)."""
    limit = max(1, min(int(limit), 50))
    if not library_url:
        return _offline_search(query, limit, None)
    try:
        response = httpx.get(
            f"{library_url.rstrip('/')}/api/cases/", params={"q": query}, timeout=3.0
        )
        response.raise_for_status()
        body = response.json()
        rows = body.get("results", body) if isinstance(body, dict) else body
        out = []
        for row in rows[:limit]:
            slug = str(row.get("slug", ""))
            out.append(
                {
                    "slug": slug,
                    "title": row.get("title"),
                    "url": case_url(library_url, slug),
                    "summary": str(row.get("summary", ""))[:300],
                    "source": "library",
                }
            )
        return out
    except (httpx.HTTPError, ValueError, AttributeError, TypeError):
        return _offline_search(query, limit, library_url)


def _answer(data: dict[str, Any]) -> dict[str, Any]:
    """``data``, or a tool error (``isError: true``, the message as its text) when it is one: an
    agent that checks ``isError`` does not read a refused audit as a clean one."""
    if "error" in data:
        raise ToolError(data["error"])
    return data


# What each argument takes, as an agent reads it in the tool's input schema.
ABOUT = {
    "checks": 'Check ids, e.g. ["GPU-002", "JOB-001"] or "GPU-002,JOB-001"; all if omitted',
    "snapshot": "A snapshot file to audit instead of a cluster: kubegap collect's .json or "
    ".json.gz, or a YAML file of items",
    "context": "The kubeconfig context to audit; its current one if omitted",
    "kubeconfig": "A kubeconfig file: only $KUBECONFIG's files, ~/.kube/config or those the "
    "server allows",
    "namespace": "Audit only this namespace's objects (cluster-scoped ones, such as nodes, are "
    "still read); every namespace if omitted",
    "config": "A kubegap.yaml: checks on or off, thresholds, exemptions",
    "fail_on": "The lowest severity that fails: critical, high, medium, low or info",
    "top": f"How many failing findings to return, worst first (1 to {MAX_TOP})",
    "check_id": "A check id from list_checks, e.g. GPU-002 (any case)",
    "query": "Words to look for, e.g. 'NCCL timeout after a reboot'",
    "limit": "How many cases to return (1 to 50)",
}
CheckIds = Annotated[str | list[str] | None, Field(description=ABOUT["checks"])]
Snapshot = Annotated[str | None, Field(description=ABOUT["snapshot"])]
Context = Annotated[str | None, Field(description=ABOUT["context"])]
Kubeconfig = Annotated[str | None, Field(description=ABOUT["kubeconfig"])]
Namespace = Annotated[str | None, Field(description=ABOUT["namespace"])]
Config = Annotated[str | None, Field(description=ABOUT["config"])]
FailOn = Annotated[str, Field(description=ABOUT["fail_on"])]
Top = Annotated[int, Field(description=ABOUT["top"])]
CheckId = Annotated[str, Field(description=ABOUT["check_id"])]
Query = Annotated[str, Field(description=ABOUT["query"])]
Limit = Annotated[int, Field(description=ABOUT["limit"])]


def build_server(library_url: str | None, allow_kubeconfigs: Iterable[str] = ()) -> MCPServer:
    """The MCP server; ``allow_kubeconfigs``: kubeconfig files allowed beyond the defaults."""
    extra = tuple(allow_kubeconfigs)
    server = MCPServer(
        "kubegap",
        instructions="Read-only Kubernetes GPU-cluster audit. Findings cite public incident cases.",
    )

    @server.tool()
    def list_checks() -> list[dict[str, Any]]:
        """List kubegap's checks: id, title, severity, category and cited case slugs."""
        return list_checks_data()

    @server.tool()
    def explain_check(check_id: CheckId) -> dict[str, Any]:
        """What a check reads, why it matters, the cases it cites, how to fix, the RBAC it needs."""
        check = REGISTRY.get(check_id.upper())
        if check is None:
            raise ToolError(f"unknown check id {check_id!r} (see list_checks)")
        return check_to_dict(check, library_url)

    @server.tool()
    def audit(
        snapshot: Snapshot = None,
        context: Context = None,
        kubeconfig: Kubeconfig = None,
        namespace: Namespace = None,
        checks: CheckIds = None,
        config: Config = None,
        fail_on: FailOn = "high",
        top: Top = 20,
    ) -> dict[str, Any]:
        """Audit a cluster (kubeconfig context) or a snapshot file, read-only. Returns counts,
        every failing check with its number of findings (failing_checks), coverage gaps and the
        top failing findings (at most ``top``, max 100). A refused or failed audit is a tool
        error. ``config``: a kubegap.yaml with checks on/off, thresholds and exemptions.
        ``kubeconfig``: only the user's default kubeconfig files or those the server was started
        to allow."""
        options = AuditOptions(
            snapshot=snapshot,
            kubeconfig=kubeconfig,
            context=context,
            namespace=namespace,
            checks=",".join(checks) if isinstance(checks, list) else checks,
            config=config,
        )
        return _answer(
            audit_summary(
                library_url, options, fail_on=fail_on, top=top, allowed=allowed_kubeconfigs(extra)
            )
        )

    @server.tool()
    def search_cases(query: Query, limit: Limit = 10) -> list[dict[str, Any]]:
        """Search the incident library's cases (titles, summaries) for words."""
        return search_cases_data(query, limit, library_url)

    return server
