"""The ``kubegap`` command line: audit, collect, list-checks, explain, rbac, mcp.

``main(argv)`` returns the exit code: 0 clean, 1 findings at or above --fail-on, 2 usage or
configuration error (one clear line on stderr, never a traceback), 3 coverage incomplete.
As in kubectl, ``-o``/``--output`` names the format; ``--output-file`` (or ``--format
FORMAT=PATH``, repeatable) writes to files.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .arguments import LIBRARY_ENV
from .arguments import chunk_size
from .arguments import library_url
from .arguments import seconds
from .checks import ALL_CHECKS
from .checks import REGISTRY
from .checks import select
from .engine import needed_kinds
from .errors import KubegapError
from .errors import UsageError
from .explain import explain_text
from .kinds import KINDS
from .kubeconfig import DEFAULT_TIMEOUT
from .kubeconfig import PAGE_LIMIT
from .model import SEVERITIES
from .model import Check
from .report import EXIT_COVERAGE
from .report import EXIT_USAGE
from .report import check_to_dict
from .report import exit_code
from .report import render_json_bytes
from .runner import AuditOptions
from .runner import audit_once
from .runner import collector_paused
from .runner import live_snapshot
from .runner import load_options_config
from .text import render_text

FORMATS = ("text", "json", "sarif")


def _progress() -> Callable[[str], None] | None:
    if not sys.stderr.isatty():
        return None

    def show(message: str) -> None:
        sys.stderr.write(f"\r\033[K{message}")
        sys.stderr.flush()

    return show


def _clear_progress(progress: Callable[[str], None] | None) -> None:
    if progress is not None:
        sys.stderr.write("\r\033[K")


def _cluster_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--kubeconfig", help="kubeconfig file (default: $KUBECONFIG, ~/.kube/config)")
    p.add_argument("--context", help="kubeconfig context (default: current-context)")
    p.add_argument("-n", "--namespace", help="list namespaced kinds in this namespace only")
    p.add_argument("--checks", help="comma-separated check ids (default: all)")
    p.add_argument(
        "--timeout",
        type=seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"per API request, connect and read (default: {DEFAULT_TIMEOUT:g})",
    )
    p.add_argument(
        "--chunk-size",
        type=chunk_size,
        default=PAGE_LIMIT,
        metavar="N",
        help=f"objects per list request, the rest fetched with continue tokens; smaller pages "
        f"for an API server that times out on large lists (default: {PAGE_LIMIT})",
    )


def _library_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--library-url",
        type=library_url,
        default=os.environ.get(LIBRARY_ENV) or None,
        help=f"base URL of an incident library to link cases to (default: ${LIBRARY_ENV}; "
        "without it, cases link to their public sources only)",
    )


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
    _cluster_args(audit)
    _library_arg(audit)
    audit.add_argument("--snapshot", help="audit this snapshot file instead of a live cluster")
    audit.add_argument("--config", help="kubegap.yaml: checks on/off, thresholds, exemptions")
    audit.add_argument(
        "--fail-on",
        choices=SEVERITIES,
        default="high",
        help="exit 1 on failing findings of this severity or worse (default: high)",
    )
    audit.add_argument("-o", "--output", choices=FORMATS, help="output format (default: text)")
    audit.add_argument("--output-file", metavar="PATH", help="write the -o format to this file")
    audit.add_argument(
        "--format",
        action="append",
        metavar="FORMAT[=PATH]",
        help="one more output, to a file with =PATH; repeat for several, e.g. "
        "--format json=out.json --format sarif=out.sarif",
    )
    audit.add_argument(
        "--no-color", action="store_true", help="no colour in the text report (also: NO_COLOR set)"
    )
    audit.add_argument(
        "--preflight",
        action="store_true",
        help="only ask the server (SelfSubjectAccessReview) which kinds may be "
        "listed, print it and exit (0 all allowed, 3 some denied)",
    )

    collect = sub.add_parser("collect", help="save a read-only snapshot of the kinds checks need")
    _cluster_args(collect)
    collect.add_argument(
        "--output-file", required=True, metavar="PATH", help="snapshot file (.json or .json.gz)"
    )

    lst = sub.add_parser("list-checks", help="list the checks")
    lst.add_argument(
        "-o", "--output", "--format", dest="output", choices=("text", "json"), default="text"
    )
    _library_arg(lst)

    explain = sub.add_parser("explain", help="what a check reads, why, cases, fix, RBAC")
    explain.add_argument("check_id", metavar="ID")
    explain.add_argument(
        "-o", "--output", "--format", dest="output", choices=("text", "json"), default="text"
    )
    _library_arg(explain)

    rbac = sub.add_parser("rbac", help="print the read-only RBAC manifest the checks need")
    rbac.add_argument("--output-file", metavar="PATH", help="write it to this file")

    mcp = sub.add_parser(
        "mcp", help="run the read-only MCP server on stdio (needs the mcp package)"
    )
    _library_arg(mcp)
    mcp.add_argument(
        "--allow-kubeconfig",
        action="append",
        default=[],
        metavar="PATH",
        help="a kubeconfig the audit tool may read besides $KUBECONFIG's and ~/.kube/config "
        "(repeatable; also KUBEGAP_MCP_KUBECONFIGS)",
    )
    return parser


def parse_outputs(args: argparse.Namespace) -> list[tuple[str, str | None]]:
    """Where each format goes: ``[("json", "out.json"), ("text", None)]``; None is stdout."""
    out: list[tuple[str, str | None]] = []
    for spec in args.format or []:
        fmt, _, path = spec.partition("=")
        fmt = fmt.strip().lower()
        if fmt not in FORMATS:
            raise UsageError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
        out.append((fmt, path or None))
    if args.output:
        out.append((args.output, args.output_file))
    elif args.output_file:
        unnamed = [i for i, (_, p) in enumerate(out) if p is None]
        if len(unnamed) > 1:
            raise UsageError(
                "--output-file needs -o FORMAT (or exactly one --format without =PATH)"
            )
        if unnamed:
            out[unnamed[0]] = (out[unnamed[0]][0], args.output_file)
        else:
            out.append(("text", args.output_file))
    if not out:
        out = [("text", None)]
    if sum(1 for _, p in out if p is None) > 1:
        raise UsageError("several formats to stdout; give each but one a file: --format json=FILE")
    return out


def _options(args: argparse.Namespace) -> AuditOptions:
    return AuditOptions(
        snapshot=getattr(args, "snapshot", None),
        kubeconfig=args.kubeconfig,
        context=args.context,
        namespace=args.namespace,
        checks=args.checks,
        config=getattr(args, "config", None),
        timeout=args.timeout,
        chunk_size=args.chunk_size,
    )


def _write(path: str | None, text: str | bytes) -> None:
    if path is None:
        if isinstance(text, bytes):
            sys.stdout.flush()
            sys.stdout.buffer.write(text)
            sys.stdout.buffer.flush()
        else:
            sys.stdout.write(text)
        return
    try:
        if isinstance(text, bytes):
            Path(path).write_bytes(text)
        else:
            Path(path).write_text(text)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


def _color(args: argparse.Namespace) -> bool:
    return not args.no_color and "NO_COLOR" not in os.environ and sys.stdout.isatty()


def cmd_audit(args: argparse.Namespace) -> int:
    checks = select(args.checks)
    if args.preflight:
        return cmd_preflight(args, checks)
    outputs = parse_outputs(args)
    with collector_paused():
        return _audit_and_render(args, checks, outputs)


def _audit_and_render(
    args: argparse.Namespace, checks: list[Check], outputs: list[tuple[str, str | None]]
) -> int:
    progress = _progress()
    result = audit_once(_options(args), checks, progress)
    _clear_progress(progress)
    # The reports are made from the findings alone: let the objects go before they are built.
    result.snapshot.objects.clear()
    from .sarif import render_sarif

    for fmt, path in outputs:
        text: str | bytes
        if fmt == "text":
            text = render_text(
                result, args.fail_on, args.library_url, path is None and _color(args)
            )
        elif fmt == "json":
            text = render_json_bytes(result, args.fail_on, args.library_url)
        else:
            text = render_sarif(result, args.fail_on, args.library_url)
        _write(path, text)
    return exit_code(result, args.fail_on)


def cmd_preflight(args: argparse.Namespace, checks: list[Check]) -> int:
    from .access_review import review
    from .kubeconfig import resolve_connection

    if args.snapshot:
        raise UsageError("--preflight asks a live cluster; it cannot be combined with --snapshot")
    config = load_options_config(_options(args))
    active = [c for c in checks if c.id not in config.disabled]
    conn = resolve_connection(args.kubeconfig, args.context)
    results = review(
        conn, [KINDS[k] for k in needed_kinds(active)], args.namespace, timeout=args.timeout
    )
    for r in results:
        print(f"{'allowed' if r.allowed else 'DENIED':<8} list {r.kind}")
    return 0 if all(r.allowed for r in results) else EXIT_COVERAGE


def cmd_collect(args: argparse.Namespace) -> int:
    from .snapshot import save

    checks = select(args.checks)
    progress = _progress()
    with collector_paused():
        snap = live_snapshot(_options(args), checks, progress)
        _clear_progress(progress)
        save(snap, args.output_file)
    incomplete = [k for k, c in snap.coverage.items() if c.status in ("forbidden", "error")]
    total = sum(len(v) for v in snap.objects.values())
    print(f"wrote {args.output_file}: {len(snap.coverage)} kinds, {total} objects", file=sys.stderr)
    for key in incomplete:
        print(f"  {snap.coverage[key].status}: {key}", file=sys.stderr)
    return EXIT_COVERAGE if incomplete else 0


def cmd_list(args: argparse.Namespace) -> int:
    if args.output == "json":
        doc = {"checks": [check_to_dict(c, args.library_url) for c in ALL_CHECKS]}
        print(json.dumps(doc, indent=2))
        return 0
    for c in ALL_CHECKS:
        print(f"{c.id:<10} {c.severity:<9} {c.category:<14} {c.title}")
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    check = REGISTRY.get(args.check_id.upper())
    if check is None:
        raise UsageError(f"unknown check id {args.check_id!r} (see kubegap list-checks)")
    if args.output == "json":
        print(json.dumps(check_to_dict(check, args.library_url), indent=2))
    else:
        sys.stdout.write(explain_text(check, args.library_url))
    return 0


def cmd_rbac(args: argparse.Namespace) -> int:
    from .rbac import manifest

    _write(args.output_file, manifest(ALL_CHECKS))
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    try:
        from .mcp_server import build_server
    except ImportError as exc:
        raise UsageError(
            f"kubegap mcp needs the 'mcp' package, which this install lacks ({exc.name or exc}): "
            "install kubegap with its dependencies (pip install -e . in the repository), not the "
            "one-file kubegap.pyz"
        ) from None
    build_server(args.library_url, args.allow_kubeconfig).run("stdio")
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
    except Exception as exc:  # a kubegap bug: one line, not a traceback (KUBEGAP_DEBUG=1 shows it)
        if os.environ.get("KUBEGAP_DEBUG"):
            raise
        print(
            f"kubegap: internal error: {type(exc).__name__}: {exc} (KUBEGAP_DEBUG=1 shows the "
            "traceback; please report it)",
            file=sys.stderr,
        )
        return EXIT_USAGE
