"""The text report, for a person: one block per check, worst first; colour on a terminal.

Every list that is cut says how many more there are; ``-o json`` has them all.
"""

from __future__ import annotations

import json
from typing import Any

from . import __version__
from .cases import cited_cases
from .engine import AuditResult
from .model import SEVERITY_RANK
from .model import Finding
from .report import check_status
from .report import summary
from .wording import counted

FINDINGS_SHOWN = 10
EVIDENCE_SHOWN = 3
MEMBERS_SHOWN = 6
CASES_SHOWN = 3
EXAMINED_SHOWN = 5
_STYLE = {
    "fail": "1;31",
    "not_evaluated": "33",
    "exempted": "36",
    "pass": "32",
    "not_applicable": "2",
    "critical": "1;31",
    "high": "31",
    "dim": "2",
}
_LABEL = {"not_applicable": "N/A", "not_evaluated": "NOT EVALUATED"}


class Painter:
    """ANSI colour when wanted (a terminal, no NO_COLOR, no --no-color), plain text otherwise."""

    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, style: str, text: str) -> str:
        code = _STYLE.get(style)
        return f"\033[{code}m{text}\033[0m" if self.color and code else text


def _short(value: Any, limit: int = 120) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def cut(items: list[str], limit: int) -> str:
    """``a, b, c and 4 more``."""
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _finding_lines(f: Finding, paint: Painter) -> list[str]:
    target = "cluster" if f.resource.kind == "Cluster" else f.resource.logical_name
    lines = [f"  - {target}: {f.message}"]
    if f.exemption is not None:
        lines.append(
            paint("exempted", f"      exempted: {f.exemption.reason} ({f.exemption.rule})")
        )
    if f.members:
        lines.append(f"      made of: {cut(list(f.members), MEMBERS_SHOWN)}")
    for e in f.evidence[:EVIDENCE_SHOWN]:
        lines.append(
            f"      {e.path}: observed {_short(e.observed)}; expected {_short(e.expected)}"
        )
    if len(f.evidence) > EVIDENCE_SHOWN:
        lines.append(
            f"      and {len(f.evidence) - EVIDENCE_SHOWN} more evidence (-o json for all)"
        )
    if f.examined:
        lines.append(paint("dim", f"      examined: {cut(list(f.examined), EXAMINED_SHOWN)}"))
    for gap in f.not_seen:
        lines.append(paint("dim", f"      not seen: {gap}"))
    return lines


def render_text(
    result: AuditResult, fail_on: str, library_url: str | None, color: bool = False
) -> str:
    paint = Painter(color)
    snap = result.snapshot
    out: list[str] = []
    where = f"snapshot {result.source_detail}" if result.source == "snapshot" else "cluster"
    out.append(
        f"kubegap {__version__}: {where} context={snap.context or '-'} "
        f"server={snap.server_version.get('gitVersion', '?')}"
    )
    if snap.namespace:
        out.append(f"namespace: {snap.namespace} (namespaced kinds only)")
    if result.config.path:
        disabled = f"; disabled: {', '.join(result.disabled)}" if result.disabled else ""
        out.append(f"config: {result.config.path}{disabled}")
    out += ["", "Coverage"]
    # A kind the server does not serve (its CRD is not installed) needs no line of its own: one
    # line names them all, so the findings follow the command by a screen, not by 30 lines.
    absent = sorted(key for key, cov in result.coverage.items() if cov.status == "absent")
    for key, cov in sorted(result.coverage.items()):
        if cov.status == "absent":
            continue
        listed = f"{counted(cov.count, 'object')}, {counted(cov.pages, 'page')}"
        detail = listed if cov.status == "listed" else ""
        if cov.message:
            detail = f"{detail}; {cov.message}" if detail else cov.message
        status = paint(
            "fail" if cov.status in ("forbidden", "error") else "dim", f"{cov.status:<10}"
        )
        out.append(f"  {status} {key:<44} {detail}")
    if absent:
        kinds = f"{counted(len(absent), 'kind')} not served by this server: {', '.join(absent)}"
        out.append(f"  {paint('dim', 'absent'.ljust(10))} {kinds}")
    by_check: dict[str, list[Finding]] = {}
    for f in result.findings:
        by_check.setdefault(f.check.id, []).append(f)
    for check in sorted(result.checks, key=lambda c: (SEVERITY_RANK[c.severity], c.id)):
        findings = by_check.get(check.id, [])
        status = check_status(check, findings)
        label = _LABEL.get(status, status.upper())
        severity = paint(check.severity, check.severity)
        # A pass prints what it means; N/A and not evaluated say the title is what was sought.
        headline = (
            check.title_for(status) if status in ("pass", "fail") else f"checks for: {check.title}"
        )
        out += ["", f"{paint(status, f'[{label}]')} {check.id} {headline} ({severity})"]
        shown = [f for f in findings if f.status in ("fail", "not_evaluated")] or [
            f for f in findings if f.status != "exempted"
        ]
        for f in shown[:FINDINGS_SHOWN]:
            out += _finding_lines(f, paint)
        if len(shown) > FINDINGS_SHOWN:
            more = counted(len(shown) - FINDINGS_SHOWN, "more finding", "more findings")
            out.append(f"  … and {more} (-o json for all)")
        exempted = [f for f in findings if f.status == "exempted"]
        for f in exempted[:FINDINGS_SHOWN]:
            out += [paint("exempted", line) for line in _finding_lines(f, paint)[:2]]
        if len(exempted) > FINDINGS_SHOWN:
            out.append(f"  … and {len(exempted) - FINDINGS_SHOWN} more exempted")
        if status == "fail":
            out.append(f"  fix: {check.remediation}")
            cases = cited_cases(check.cases, library_url)
            for case in cases[:CASES_SHOWN]:
                link = f" (library: {case['library_url']})" if "library_url" in case else ""
                out.append(f"  case: {case['title']}\n        {case['source_url']}{link}")
            if len(cases) > CASES_SHOWN:
                out.append(
                    f"  and {counted(len(cases) - CASES_SHOWN, 'more case', 'more cases')}"
                    f" (kubegap explain {check.id})"
                )
    s = summary(result, fail_on)
    counts = ", ".join(f"{n} {k}" for k, n in s["checks_by_status"].items() if n)
    exempted_n = s["findings_by_status"]["exempted"]
    out.append("")
    out.append(
        f"{counted(s['checks'], 'check')}: {counts}"
        + (f"; {counted(exempted_n, 'finding')} exempted" if exempted_n else "")
        + f". Exit code {s['exit_code']} (--fail-on {fail_on})."
    )
    if result.disabled:
        out.append(f"Disabled by {result.config.path}: {', '.join(result.disabled)}.")
    if not result.coverage_complete:
        out.append(
            "Coverage incomplete: some kinds could not be listed; their checks were not evaluated."
        )
    return "\n".join(out) + "\n"
