"""The ``kubegap`` command line: audit, collect, list-checks, explain, rbac, mcp.

``main(argv)`` returns the exit code: 0 clean, 1 findings at or above --fail-on, 2 usage or
configuration error (one clear line on stderr, no traceback), 3 coverage incomplete.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from . import __version__
from .checks import ALL_CHECKS, REGISTRY, select
from .engine import needed_kinds
from .errors import KubegapError, UsageError
from .kinds import KINDS
from .model import SEVERITIES, Check
from .report import (
    DEFAULT_LIBRARY_URL,
    EXIT_COVERAGE,
    EXIT_USAGE,
    check_to_dict,
    exit_code,
    render_json,
    render_text,
)
from .runner import AuditOptions, audit_once, live_snapshot

FORMATS = ("text", "json", "sarif")


def _progress() -> Callable[[str], None] | None:
    if not sys.stderr.isatty():
        return None

    def show(message: str) -> None:
        sys.stderr.write(f"\r\033[K{message}")
        sys.stderr.flush()

    return show


def _common_cluster_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--kubeconfig", help="kubeconfig file (default: $KUBECONFIG, ~/.kube/config)")
    p.add_argument("--context", help="kubeconfig context (default: current-context)")
    p.add_argument("-n", "--namespace", help="list namespaced kinds in this namespace only")
    p.add_argument("--checks", help="comma-separated check ids (default: all)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kubegap",
        description="Read-only audit of a Kubernetes GPU cluster for the gaps that public "
        "incident reports show; every finding cites library cases.",
        epilog="Exit codes: 0 clean, 1 findings at or above --fail-on, 2 usage/configuration "
        "error, 3 coverage incomplete (a needed kind could not be listed).",
    )
    parser.add_argument("--version", action="version", version=f"kubegap {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    audit = sub.add_parser("audit", help="audit a cluster (or a saved snapshot)")
    _common_cluster_args(audit)
    audit.add_argument("--snapshot", help="audit this snapshot file instead of a live cluster")
    audit.add_argument(
        "--fail-on",
        choices=SEVERITIES,
        default="high",
        help="exit 1 on failing findings of this severity or worse (default: high)",
    )
    audit.add_argument(
        "--format",
        action="append",
        metavar="FORMAT[=PATH]",
        help="text, json or sarif; repeat for several, e.g. "
        "--format json=out.json --format sarif=out.sarif (default: text)",
    )
    audit.add_argument("-o", "--output", help="write the (single) format without =PATH here")
    audit.add_argument(
        "--library-url",
        default=DEFAULT_LIBRARY_URL,
        help=f"base URL of the incident library (default: {DEFAULT_LIBRARY_URL})",
    )
    audit.add_argument(
        "--preflight",
        action="store_true",
        help="only ask the server (SelfSubjectAccessReview) which kinds may be "
        "listed, print it and exit (0 all allowed, 3 some denied)",
    )

    collect = sub.add_parser("collect", help="save a read-only snapshot of the kinds checks need")
    _common_cluster_args(collect)
    collect.add_argument("-o", "--output", required=True, help="snapshot file (.json or .json.gz)")

    lst = sub.add_parser("list-checks", help="list the checks")
    lst.add_argument("--format", choices=("text", "json"), default="text")
    lst.add_argument("--library-url", default=DEFAULT_LIBRARY_URL)

    explain = sub.add_parser("explain", help="what a check reads, why, cases, fix, RBAC")
    explain.add_argument("check_id", metavar="ID")
    explain.add_argument("--format", choices=("text", "json"), default="text")
    explain.add_argument("--library-url", default=DEFAULT_LIBRARY_URL)

    rbac = sub.add_parser("rbac", help="print the read-only RBAC manifest the checks need")
    rbac.add_argument("-o", "--output", help="write it to this file")

    mcp = sub.add_parser("mcp", help="run the read-only MCP server on stdio")
    mcp.add_argument("--library-url", default=DEFAULT_LIBRARY_URL)
    return parser


def parse_formats(specs: list[str] | None, output: str | None) -> list[tuple[str, str | None]]:
    """``["json=a.json", "text"]`` -> ``[("json", "a.json"), ("text", None)]``; None = stdout."""
    out: list[tuple[str, str | None]] = []
    for spec in specs or ["text"]:
        fmt, _, path = spec.partition("=")
        fmt = fmt.strip().lower()
        if fmt not in FORMATS:
            raise UsageError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
        out.append((fmt, path or None))
    if output:
        unnamed = [i for i, (_, p) in enumerate(out) if p is None]
        if len(unnamed) != 1:
            raise UsageError("--output needs exactly one --format without =PATH")
        out[unnamed[0]] = (out[unnamed[0]][0], output)
    if sum(1 for _, p in out if p is None) > 1:
        raise UsageError("several formats to stdout; give each but one a path: --format json=FILE")
    return out


def _options(args: argparse.Namespace) -> AuditOptions:
    return AuditOptions(
        snapshot=getattr(args, "snapshot", None),
        kubeconfig=args.kubeconfig,
        context=args.context,
        namespace=args.namespace,
        checks=args.checks,
    )


def _clear_progress(progress: Callable[[str], None] | None) -> None:
    if progress is not None:
        sys.stderr.write("\r\033[K")


def _write(path: str | None, text: str) -> None:
    if path is None:
        sys.stdout.write(text)
        return
    try:
        Path(path).write_text(text)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


def cmd_audit(args: argparse.Namespace) -> int:
    checks = select(args.checks)
    if args.preflight:
        return cmd_preflight(args, checks)
    formats = parse_formats(args.format, args.output)
    progress = _progress()
    result = audit_once(_options(args), checks, progress)
    _clear_progress(progress)
    from .sarif import render_sarif

    renderers = {"text": render_text, "json": render_json, "sarif": render_sarif}
    for fmt, path in formats:
        _write(path, renderers[fmt](result, args.fail_on, args.library_url))
    return exit_code(result, args.fail_on)


def cmd_preflight(args: argparse.Namespace, checks: list[Check]) -> int:
    from .access_review import review
    from .kubeconfig import resolve_connection

    if args.snapshot:
        raise UsageError("--preflight asks a live cluster; it cannot be combined with --snapshot")
    conn = resolve_connection(args.kubeconfig, args.context)
    results = review(conn, [KINDS[k] for k in needed_kinds(checks)], args.namespace)
    for r in results:
        print(f"{'allowed' if r.allowed else 'DENIED':<8} list {r.kind}")
    return 0 if all(r.allowed for r in results) else EXIT_COVERAGE


def cmd_collect(args: argparse.Namespace) -> int:
    from .snapshot import save

    checks = select(args.checks)
    progress = _progress()
    snap = live_snapshot(_options(args), checks, progress)
    _clear_progress(progress)
    save(snap, args.output)
    incomplete = [k for k, c in snap.coverage.items() if c.status in ("forbidden", "error")]
    total = sum(len(v) for v in snap.objects.values())
    print(f"wrote {args.output}: {len(snap.coverage)} kinds, {total} objects", file=sys.stderr)
    for key in incomplete:
        print(f"  {snap.coverage[key].status}: {key}", file=sys.stderr)
    return EXIT_COVERAGE if incomplete else 0


def cmd_list(args: argparse.Namespace) -> int:
    if args.format == "json":
        doc = {"checks": [check_to_dict(c, args.library_url) for c in ALL_CHECKS]}
        print(json.dumps(doc, indent=2))
        return 0
    for c in ALL_CHECKS:
        print(f"{c.id:<10} {c.severity:<9} {c.category:<14} {c.title}")
    return 0


def explain_text(check: Check, library_url: str) -> str:
    d = check_to_dict(check, library_url)
    lines = [
        f"{check.id}: {check.title}",
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
    lines += ["", "Cases it cites:"]
    lines += [f"  {c['title']}\n    {c['url']}" for c in d["cases"]]
    lines += ["", "Public references:"]
    lines += [f"  {r['title']}: {r['url']}" for r in d["references"]]
    lines += ["", "RBAC it needs:"]
    lines += [f"  {r['verbs']} {r['apiGroup'] or 'core'}/{r['resource']}" for r in d["rbac"]]
    return "\n".join(lines) + "\n"


def cmd_explain(args: argparse.Namespace) -> int:
    check = REGISTRY.get(args.check_id.upper())
    if check is None:
        raise UsageError(f"unknown check id {args.check_id!r} (see kubegap list-checks)")
    if args.format == "json":
        print(json.dumps(check_to_dict(check, args.library_url), indent=2))
    else:
        sys.stdout.write(explain_text(check, args.library_url))
    return 0


def cmd_rbac(args: argparse.Namespace) -> int:
    from .rbac import manifest

    _write(args.output, manifest(ALL_CHECKS))
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from .mcp_server import build_server

    build_server(args.library_url).run("stdio")
    return 0


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "audit": cmd_audit,
    "collect": cmd_collect,
    "list-checks": cmd_list,
    "explain": cmd_explain,
    "rbac": cmd_rbac,
    "mcp": cmd_mcp,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) and usage errors (2)
        return int(exc.code or 0)
    try:
        return COMMANDS[args.command](args)
    except KubegapError as exc:
        print(f"kubegap: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("kubegap: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`kubegap list-checks | head`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
