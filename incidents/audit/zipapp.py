"""Build ``kubegap.pyz``: kubegap in one file that any Python >= 3.11 runs, nothing installed.

    python -m incidents.audit.zipapp kubegap.pyz        (or: make kubegap.pyz)

The archive holds the ``incidents.audit`` package (without Django: ``incidents/__init__.py`` is a
docstring, and nothing in ``incidents.audit`` imports Django or a database driver) and the
runtime dependencies of the audit, copied from the installed distributions (the files
``importlib.metadata`` lists for each), so building needs no network:

- PyYAML, without its optional C extension ``_yaml``: PyYAML then uses its pure-Python loader,
  which reads kubeconfigs, fixtures and config files the same way, only slower.
- httpx and what it requires (httpcore, h11, anyio, idna, certifi): all pure Python. Keeping
  httpx rather than writing a second, stdlib-only HTTP path means the zipapp runs exactly the
  client the tests exercise (read-only guard, TLS, retries, credentials).

``mcp`` (and its pydantic/starlette stack, partly compiled) is left out: ``kubegap mcp`` says it
needs the full install. The build fails if a dependency ships compiled code it would need.
"""

from __future__ import annotations

import argparse
import importlib.metadata as metadata
import re
import shutil
import sys
import tempfile
import zipapp
from pathlib import Path

ROOT_DISTRIBUTIONS = ("httpx", "PyYAML")
# Compiled modules the archive may leave out because a pure-Python fallback exists.
OPTIONAL_BINARIES = {"PyYAML": ("yaml/_yaml",)}
EXCLUDED_DISTRIBUTIONS = frozenset({"mcp", "django", "psycopg", "psycopg-binary"})
BINARY = (".so", ".pyd", ".dll", ".dylib")
MAIN = "from incidents.audit.cli import main\n\nraise SystemExit(main())\n"
MAX_BYTES = 5 * 1024 * 1024


class BuildError(RuntimeError):
    pass


def _requirement_name(requirement: str) -> str:
    return re.split(r"[\s;<>=!~\[(]", requirement.strip(), maxsplit=1)[0]


def _applies(requirement: str) -> bool:
    """Whether a requirement applies here: no extra, and its environment marker holds."""
    if ";" not in requirement:
        return True
    marker = requirement.split(";", 1)[1]
    if "extra" in marker:
        return False
    try:
        from packaging.markers import Marker
    except ImportError:  # without packaging, keep what is installed
        return True
    return bool(Marker(marker).evaluate())


def dependency_closure(roots: tuple[str, ...] = ROOT_DISTRIBUTIONS) -> list[metadata.Distribution]:
    """The installed distributions ``roots`` need at run time, roots first."""
    seen: dict[str, metadata.Distribution] = {}
    todo = list(roots)
    while todo:
        name = todo.pop(0)
        key = name.lower().replace("_", "-")
        if key in seen:
            continue
        if key in EXCLUDED_DISTRIBUTIONS:
            raise BuildError(f"{name} must not go into kubegap.pyz")
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            raise BuildError(f"{name} is not installed; run make install first") from None
        seen[key] = dist
        todo += [_requirement_name(r) for r in dist.requires or [] if _applies(r)]
    return list(seen.values())


def _copy_distribution(dist: metadata.Distribution, staging: Path) -> list[str]:
    """Copy a distribution's importable files; return the compiled files it left out."""
    name = dist.metadata["Name"]
    optional = OPTIONAL_BINARIES.get(name, ())
    left_out = []
    for entry in dist.files or []:
        parts = entry.parts
        if parts[0].endswith((".dist-info", ".egg-info", ".data")) or parts[0] in ("..", "bin"):
            continue
        if "__pycache__" in parts or entry.name.endswith(".pyc"):
            continue
        if entry.name.endswith(BINARY):
            if not any(str(entry).startswith(o) for o in optional):
                raise BuildError(f"{name} ships compiled code kubegap would need: {entry}")
            left_out.append(str(entry))
            continue
        source = Path(str(dist.locate_file(entry)))
        target = staging / str(entry)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    return left_out


def _copy_kubegap(staging: Path) -> None:
    package = Path(__file__).resolve().parent
    (staging / "incidents").mkdir()
    (staging / "incidents" / "__init__.py").write_text(
        '"""kubegap, without the incident library."""\n'
    )
    shutil.copytree(
        package,
        staging / "incidents" / "audit",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "zipapp.py"),
    )


def build(target: Path) -> list[str]:
    """Write the archive to ``target``; return the compiled files left out (optional ones)."""
    with tempfile.TemporaryDirectory(prefix="kubegap-pyz-") as tmp:
        staging = Path(tmp) / "app"
        staging.mkdir()
        _copy_kubegap(staging)
        left_out = []
        for dist in dependency_closure():
            left_out += _copy_distribution(dist, staging)
        (staging / "__main__.py").write_text(MAIN)
        zipapp.create_archive(staging, target, interpreter="/usr/bin/env python3", compressed=True)
    size = target.stat().st_size
    if size >= MAX_BYTES:
        raise BuildError(f"{target} is {size} bytes, over the {MAX_BYTES}-byte budget")
    return left_out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the one-file kubegap.pyz.")
    parser.add_argument("target", nargs="?", default="kubegap.pyz")
    args = parser.parse_args(argv)
    target = Path(args.target)
    try:
        left_out = build(target)
    except BuildError as exc:
        print(f"zipapp: error: {exc}", file=sys.stderr)
        return 2
    kib = target.stat().st_size / 1024
    print(
        f"wrote {target} ({kib:.0f} KiB); left out optional compiled code: {', '.join(left_out) or 'none'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
