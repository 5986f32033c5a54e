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
import os
import zlib
from collections.abc import Iterator
from dataclasses import asdict
from dataclasses import dataclass
from dataclasses import field
from datetime import UTC
from datetime import datetime
from pathlib import Path
from typing import IO
from typing import Any
from typing import Literal

import yaml

from .compact import Sharer
from .errors import SnapshotError
from .jsonio import dumps
from .jsonio import loads
from .k8s import Obj
from .kinds import KINDS
from .kinds import checked
from .kinds import project
from .kinds import spec_for_object
from .projection import PROJECTION_VERSION

# libyaml's safe loader where PyYAML has it (several times faster on a large snapshot); the zipapp
# runs without compiled extensions and reads with PyYAML's own.
_YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

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
    """Write ``snap`` as JSON (gzip if the name ends in .gz), atomically, one object a line.

    The file is one JSON document (``json.load`` reads it) laid out so that :func:`load` can read
    it a line at a time: a header line, then per kind a line with its coverage, one line per
    object, and a closing line.
    """
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp")
    try:
        opener = gzip.open if target.name.endswith(".gz") else open
        with opener(tmp, "wb") as fh:  # type: ignore[operator]
            for chunk in _lines(snap):
                fh.write(chunk)
        tmp.replace(target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise SnapshotError(f"cannot write snapshot {target}: {exc.strerror or exc}") from None


_KINDS_OPEN = b',"kinds":{'
_ITEMS_OPEN = b',"items":['


def _lines(snap: Snapshot) -> Iterator[bytes]:
    header = {
        "format": SNAPSHOT_FORMAT,
        "version": SNAPSHOT_VERSION,
        "projection": PROJECTION_VERSION,
        "collected_at": snap.collected_at,
        "context": snap.context,
        "namespace": snap.namespace,
        "server_version": snap.server_version,
    }
    yield dumps(header)[:-1] + _KINDS_OPEN + b"\n"
    keys = sorted(snap.coverage)
    for i, key in enumerate(keys):
        coverage = dumps({"coverage": snap.coverage[key].to_dict()})[:-1]
        yield dumps(key) + b":" + coverage + _ITEMS_OPEN + b"\n"
        items = snap.objects.get(key, [])
        last = len(items) - 1
        for j, obj in enumerate(items):
            yield dumps(obj) + (b",\n" if j < last else b"\n")
        yield b"]},\n" if i < len(keys) - 1 else b"]}\n"
    yield b"}}\n"


class _NotLineLayout(Exception):
    """The file is JSON, but not laid out one object a line (hand-written, or pretty-printed)."""


def _open(path: Path) -> IO[bytes]:
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise SnapshotError(f"cannot read snapshot {path}: {exc.strerror or exc}") from None
    if fh.read(2) == b"\x1f\x8b":
        fh.seek(0)
        return gzip.GzipFile(fileobj=fh, mode="rb")  # type: ignore[return-value]
    fh.seek(0)
    return fh


def _read_lines(path: Path) -> Snapshot | None:
    """The snapshot, read a line at a time, if the file is in :func:`save`'s layout; else None.

    Only one object's text is held at a time. Objects written with this kubegap's projection are
    kept as they are (projecting them again would give the same objects); older ones are
    projected. Equal values are shared between objects (:mod:`.compact`).
    """
    with _open(path) as fh:
        first = fh.readline()
        if not first.startswith(b'{"format":') or not first.rstrip().endswith(_KINDS_OPEN):
            return None
        try:
            header = loads(first.rstrip()[: -len(_KINDS_OPEN)] + b"}")
            if header.get("format") != SNAPSHOT_FORMAT:
                return None
            _check_version(path, header)
            snap = _snapshot_from_header(header)
            reproject = header.get("projection") != PROJECTION_VERSION
            share = Sharer()
            for line in fh:
                if line.startswith(b"}}"):
                    return snap
                key, coverage = _kind_line(line)
                items = _items(fh)
                if key not in KINDS:
                    for _ in items:  # written by a newer kubegap; nothing here reads it
                        pass
                    continue
                snap.coverage[key] = _coverage(path, key, coverage)
                try:
                    snap.objects[key] = [
                        share(project(key, o) if reproject else checked(o)) for o in items
                    ]
                except (TypeError, ValueError, AttributeError):
                    raise SnapshotError(f"snapshot {path}: kind {key!r} is malformed") from None
        except (_NotLineLayout, ValueError):
            return None
    return None  # no closing line: let the whole-document reader say what is wrong


def _kind_line(line: bytes) -> tuple[str, Any]:
    text = line.rstrip()
    if not text.endswith(_ITEMS_OPEN):
        raise _NotLineLayout
    entry = loads(b"{" + text[: -len(_ITEMS_OPEN)] + b"}}")
    if not isinstance(entry, dict) or len(entry) != 1:
        raise _NotLineLayout
    ((key, value),) = entry.items()
    if not isinstance(value, dict) or "coverage" not in value:
        raise _NotLineLayout
    return key, value["coverage"]


def _items(fh: IO[bytes]) -> Iterator[Obj]:
    for line in fh:
        if line.startswith(b"]}"):
            return
        item = loads(line.rstrip().removesuffix(b","))
        if not isinstance(item, dict):
            raise _NotLineLayout
        yield item
    raise _NotLineLayout


def _read(path: Path) -> Any:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SnapshotError(f"cannot read snapshot {path}: {exc.strerror or exc}") from None
    try:
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        text = raw.decode("utf-8")
    except (OSError, EOFError, UnicodeDecodeError, zlib.error):
        raise SnapshotError(f"snapshot {path} is corrupt (bad gzip or not UTF-8)") from None
    del raw
    try:
        if path.suffix in (".yaml", ".yml"):
            return yaml.load(text, Loader=_YAML_LOADER)  # noqa: S506 - a safe loader
        return loads(text)
    except (ValueError, yaml.YAMLError):
        raise SnapshotError(f"snapshot {path} is not valid JSON/YAML") from None


def load(path: str | os.PathLike[str]) -> Snapshot:
    """Read a snapshot written by ``kubegap collect``, or an ``items:`` fixture file."""
    p = Path(path)
    if p.suffix not in (".yaml", ".yml"):
        try:
            snap = _read_lines(p)
        except (OSError, EOFError, zlib.error):
            raise SnapshotError(f"snapshot {p} is corrupt (bad gzip or not UTF-8)") from None
        if snap is not None:
            return snap
    return from_document(_read(p), p)


def from_document(data: Any, p: Path) -> Snapshot:
    """The snapshot in ``data``, the parsed content of the snapshot or fixture file ``p``."""
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


def _check_version(p: Path, data: dict[str, Any]) -> None:
    version = data.get("version")
    if version != SNAPSHOT_VERSION:
        raise SnapshotError(
            f"snapshot {p} has format version {version!r}; this kubegap reads {SNAPSHOT_VERSION}"
        )


def _snapshot_from_header(data: dict[str, Any]) -> Snapshot:
    return Snapshot(
        server_version=dict(data.get("server_version") or {}),
        context=data.get("context"),
        namespace=data.get("namespace"),
        collected_at=data.get("collected_at"),
    )


def _coverage(p: Path, key: str, cov: Any) -> Coverage:
    try:
        status = cov["status"]
        if status not in COVERAGE_STATUSES:
            raise ValueError(status)
        return Coverage(
            status,
            cov.get("api_version"),
            int(cov.get("count", 0)),
            int(cov.get("pages", 0)),
            cov.get("message"),
            bool(cov.get("truncated", False)),
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        raise SnapshotError(f"snapshot {p}: kind {key!r} is malformed") from None


def _from_saved(p: Path, data: dict[str, Any]) -> Snapshot:
    """A snapshot from a whole parsed document (an older layout, or one edited by hand)."""
    _check_version(p, data)
    snap = _snapshot_from_header(data)
    kinds = data.pop("kinds", None)
    if not isinstance(kinds, dict):
        raise SnapshotError(f"snapshot {p}: 'kinds' must be a mapping")
    reproject = data.get("projection") != PROJECTION_VERSION
    share = Sharer()
    for key in list(kinds):
        entry = kinds.pop(key)  # the parsed items go as their kind is read
        if key not in KINDS:
            continue  # written by a newer kubegap; nothing here reads it
        try:
            snap.coverage[key] = _coverage(p, key, entry["coverage"])
            items = entry.get("items") or []
            if not isinstance(items, list) or not all(isinstance(o, dict) for o in items):
                raise TypeError(key)
            snap.objects[key] = [share(project(key, o) if reproject else checked(o)) for o in items]
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
