"""``kubegap explain ID``: what a check reads, why it matters, its settings, cases, fix and RBAC."""

from __future__ import annotations

from .model import Check
from .report import check_to_dict


def explain_text(check: Check, library_url: str | None) -> str:
    d = check_to_dict(check, library_url)
    lines = [
        f"{check.id}: {check.title}",
        f"a pass means: {check.title_for('pass')}",
        f"severity {check.severity}, category {check.category}, confidence {check.confidence}",
        "",
        "Why it matters:",
        f"  {check.why}",
        "",
        "How to fix:",
        f"  {check.remediation}",
        "",
        "Reads (get/list/watch):",
    ]
    lines += [f"  {r['kind']} ({'/'.join(r['versions'])})" for r in d["reads"]]
    if d["settings"]:
        lines += ["", "Settings (--config checks.<ID>.<name>):"]
        lines += [f"  {s['name']} = {s['default']}: {s['help']}" for s in d["settings"]]
    lines += ["", "Cases it cites:"]
    for c in d["cases"]:
        lines.append(f"  {c['title']}\n    {c['source_url']}")
        if "library_url" in c:
            lines.append(f"    {c['library_url']}")
    lines += ["", "Public references:"]
    lines += [f"  {r['title']}: {r['url']}" for r in d["references"]]
    lines += ["", "RBAC it needs:"]
    lines += [
        f"  {', '.join(r['verbs'])} on {r['apiGroup'] or 'core'}/{r['resource']}" for r in d["rbac"]
    ]
    return "\n".join(lines) + "\n"
