"""The cluster as data, and its files: per-kind object lists plus what could and could not be read.

This module is the snapshot data model and the only code that reads or writes snapshot files; it
does no I/O with a cluster (live collection is :mod:`.collect`). A :class:`Snapshot` is filled by
:func:`.collect.collect` or loaded from a file written by ``kubegap collect`` (``.json`` or
``.json.gz``). A YAML file holding
``items:`` (full or projected objects) and optional ``coverage:`` is accepted too; test fixtures
use it. Auditing a saved snapshot gives the same findings as auditing the cluster it came from.
"""

from __future__ import annotations

import gzip
import json
import os
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import yaml

from .errors import SnapshotError
from .k8s import Obj
from .kinds import KINDS, project, spec_for_object

SNAPSHOT_FORMAT = "kubegap-snapshot"
SNAPSHOT_VERSION = 1
CoverageStatus = Literal["listed", "forbidden", "absent", "error"]
COVERAGE_STATUSES: tuple[str, ...] = ("listed", "forbidden", "absent", "error")


@dataclass
class Coverage:
    """How one kind was read: listed (count, pages), forbidden, absent (not served) or error."""

    status: CoverageStatus
    api_version: str | None = None
    count: int = 0
    pages: int = 0
    message: str | None = None
    truncated: bool = False  # stopped at the kind's max_items (events)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None and v is not False}


@dataclass
class Snapshot:
    """Objects by kind key (``pods``, ``daemonsets.apps``...), with coverage for each kind."""

    objects: dict[str, list[Obj]] = field(default_factory=dict)
    coverage: dict[str, Coverage] = field(default_factory=dict)
    server_version: dict[str, str] = field(default_factory=dict)
    context: str | None = None
    namespace: str | None = None
    collected_at: str | None = None

    def items(self, key: str) -> list[Obj]:
        return self.objects.get(key, [])

    def limit_to_namespace(self, namespace: str) -> None:
        """Keep only ``namespace``'s objects of namespaced kinds, as ``--namespace`` lists them."""
        for key, items in self.objects.items():
            if KINDS[key].namespaced:
                self.objects[key] = [
                    o for o in items if o["metadata"].get("namespace") == namespace
                ]
        self.namespace = namespace

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": SNAPSHOT_FORMAT,
            "version": SNAPSHOT_VERSION,
            "collected_at": self.collected_at,
            "context": self.context,
            "namespace": self.namespace,
            "server_version": self.server_version,
            "kinds": {
                key: {"coverage": self.coverage[key].to_dict(), "items": self.objects.get(key, [])}
                for key in sorted(self.coverage)
            },
        }


def now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def save(snap: Snapshot, path: str | os.PathLike[str]) -> None:
    """Write ``snap`` as JSON (gzip if the name ends in .gz), atomically."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp")
    data = json.dumps(snap.to_dict(), sort_keys=True, separators=(",", ":")).encode()
    try:
        if target.name.endswith(".gz"):
            with gzip.open(tmp, "wb") as fh:
                fh.write(data)
        else:
            tmp.write_bytes(data)
        tmp.replace(target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise SnapshotError(f"cannot write snapshot {target}: {exc.strerror or exc}") from None


def _read(path: Path) -> Any:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SnapshotError(f"cannot read snapshot {path}: {exc.strerror or exc}") from None
    try:
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        text = raw.decode("utf-8")
    except (OSError, EOFError, UnicodeDecodeError):
        raise SnapshotError(f"snapshot {path} is corrupt (bad gzip or not UTF-8)") from None
    try:
        if path.suffix in (".yaml", ".yml"):
            return yaml.safe_load(text)
        return json.loads(text)
    except (ValueError, yaml.YAMLError):
        raise SnapshotError(f"snapshot {path} is not valid JSON/YAML") from None


def load(path: str | os.PathLike[str]) -> Snapshot:
    """Read a snapshot written by ``kubegap collect``, or an ``items:`` fixture file."""
    p = Path(path)
    data = _read(p)
    if not isinstance(data, dict):
        raise SnapshotError(f"snapshot {p} is not a kubegap snapshot (top level is not a mapping)")
    if data.get("format") == SNAPSHOT_FORMAT:
        return _from_saved(p, data)
    if "items" in data:
        snap = from_objects(data.get("items") or [], data.get("coverage") or {}, source=str(p))
        snap.collected_at = data.get("collected_at")
        if data.get("server_version"):
            snap.server_version = {"gitVersion": str(data["server_version"])}
        return snap
    raise SnapshotError(f"snapshot {p} is not a kubegap snapshot (no 'format' field)")


def _from_saved(p: Path, data: dict[str, Any]) -> Snapshot:
    version = data.get("version")
    if version != SNAPSHOT_VERSION:
        raise SnapshotError(
            f"snapshot {p} has format version {version!r}; this kubegap reads {SNAPSHOT_VERSION}"
        )
    snap = Snapshot(
        server_version=dict(data.get("server_version") or {}),
        context=data.get("context"),
        namespace=data.get("namespace"),
        collected_at=data.get("collected_at"),
    )
    kinds = data.get("kinds")
    if not isinstance(kinds, dict):
        raise SnapshotError(f"snapshot {p}: 'kinds' must be a mapping")
    for key, entry in kinds.items():
        if key not in KINDS:
            continue  # written by a newer kubegap; nothing here reads it
        try:
            cov = entry["coverage"]
            status = cov["status"]
            if status not in COVERAGE_STATUSES:
                raise ValueError(status)
            snap.coverage[key] = Coverage(
                status,
                cov.get("api_version"),
                int(cov.get("count", 0)),
                int(cov.get("pages", 0)),
                cov.get("message"),
                bool(cov.get("truncated", False)),
            )
            snap.objects[key] = [project(key, o) for o in entry.get("items") or []]
        except (KeyError, TypeError, ValueError, AttributeError):
            raise SnapshotError(f"snapshot {p}: kind {key!r} is malformed") from None
    return snap


def from_objects(
    items: list[Obj], coverage: dict[str, str] | None = None, source: str = "objects"
) -> Snapshot:
    """A snapshot from Kubernetes objects: every known kind is 'listed' unless ``coverage`` says
    it was ``forbidden``, ``absent`` or ``error``."""
    coverage = dict(coverage or {})
    unknown = sorted(set(coverage) - set(KINDS))
    if unknown:
        raise SnapshotError(f"{source}: coverage names unknown kinds: {', '.join(unknown)}")
    snap = Snapshot(context=source, collected_at=None, server_version={"gitVersion": "v1.30.0"})
    for key in KINDS:
        snap.objects[key] = []
    for obj in items:
        if not isinstance(obj, dict):
            raise SnapshotError(f"{source}: an item is not a mapping")
        spec = spec_for_object(str(obj.get("apiVersion", "")), str(obj.get("kind", "")))
        if spec is None:
            raise SnapshotError(
                f"{source}: kubegap does not read {obj.get('apiVersion')} {obj.get('kind')}"
            )
        snap.objects[spec.key].append(project(spec.key, obj))
    for key, spec in KINDS.items():
        status: CoverageStatus = coverage.get(key, "listed")  # type: ignore[assignment]
        if status not in COVERAGE_STATUSES:
            raise SnapshotError(f"{source}: coverage of {key} must be one of {COVERAGE_STATUSES}")
        if status == "listed":
            snap.coverage[key] = Coverage(
                "listed", spec.api_version(spec.versions[0]), len(snap.objects[key]), 1
            )
        else:
            snap.objects[key] = []
            snap.coverage[key] = Coverage(status, message=f"{status} (declared in {source})")
    return snap
