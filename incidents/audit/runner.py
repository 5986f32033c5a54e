"""One audit, from typed options: the entry point the CLI and the MCP server share."""

from __future__ import annotations

import gc
from collections.abc import Callable
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from .checks import REGISTRY
from .checks import select
from .config import AuditConfig
from .config import load_config
from .engine import AuditResult
from .engine import needed_kinds
from .engine import run_checks
from .kubeconfig import DEFAULT_TIMEOUT
from .kubeconfig import PAGE_LIMIT
from .model import Check
from .snapshot import Snapshot


@dataclass(frozen=True)
class AuditOptions:
    """What to audit and how to reach it. ``snapshot`` set means offline: no cluster is contacted."""

    snapshot: str | None = None
    kubeconfig: str | None = None
    context: str | None = None
    namespace: str | None = None
    checks: str | None = None  # comma-separated ids; None or "" means every check
    config: str | None = None  # a kubegap.yaml (checks on/off, thresholds, exemptions)
    timeout: float = DEFAULT_TIMEOUT  # seconds per API request (connect and read)
    chunk_size: int = PAGE_LIMIT  # objects per list request (limit/continue)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Hold Python's cycle collector back while an audit builds and reads millions of objects.

    Snapshot objects, workloads and findings form no reference cycles (reference counting frees
    them), but each collection of the oldest generation walks every live object: at 100,000
    pods the collector's passes took longer than the checks themselves.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def selected_checks(options: AuditOptions) -> list[Check]:
    return select(options.checks)


def load_options_config(options: AuditOptions) -> AuditConfig:
    return load_config(options.config, REGISTRY) if options.config else AuditConfig()


def live_snapshot(
    options: AuditOptions, checks: list[Check], progress: Callable[[str], None] | None = None
) -> Snapshot:
    """Collect the kinds ``checks`` read from the cluster ``options`` name (read-only)."""
    from .client import ReadOnlyClient
    from .collect import collect
    from .kubeconfig import resolve_connection

    conn = resolve_connection(options.kubeconfig, options.context)
    with ReadOnlyClient(conn, timeout=options.timeout, page_limit=options.chunk_size) as client:
        return collect(client, needed_kinds(checks), options.namespace, progress)


def audit_once(
    options: AuditOptions,
    checks: list[Check] | None = None,
    progress: Callable[[str], None] | None = None,
) -> AuditResult:
    """Run ``checks`` (default: those ``options`` select) on a snapshot file or a live cluster."""
    from .snapshot import load

    checks = selected_checks(options) if checks is None else checks
    config = load_options_config(options)  # a bad config fails before any request is sent
    active = [c for c in checks if c.id not in config.disabled]
    if options.snapshot:
        snap = load(options.snapshot)
        if options.namespace:
            snap.limit_to_namespace(options.namespace)
        result = run_checks(checks, snap, config)
        result.source, result.source_detail = "snapshot", str(options.snapshot)
        return result
    return run_checks(checks, live_snapshot(options, active, progress), config)
