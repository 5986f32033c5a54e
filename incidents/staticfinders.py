"""``kubegap/kubegap.pyz`` as a static file, built from this checkout's kubegap once per process.

Built at ``collectstatic`` time (the Docker build, ``make serve``): the file goes into STATIC_ROOT
with the other assets, so production serves a hashed, immutable ``kubegap.<hash>.pyz`` through
WhiteNoise, always from the code it runs, and builds nothing at run time (the Deployment's root
filesystem is read-only). In development, where the finders serve static files, it is built on
its first request (about a second) and kept for the life of the process.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from typing import Literal
from typing import overload

from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

from incidents.audit.zipapp import build

PYZ = "kubegap/kubegap.pyz"
_lock = threading.Lock()
_root: Path | None = None


def built_root() -> Path:
    """The directory holding ``PYZ``, built on the first call of the process."""
    global _root
    with _lock:
        if _root is None:
            root = Path(tempfile.mkdtemp(prefix="kubegap-pyz-"))
            atexit.register(shutil.rmtree, root, ignore_errors=True)
            (root / PYZ).parent.mkdir(parents=True)
            build(root / PYZ)
            _root = root
        return _root


class KubegapFinder(BaseFinder):
    """Finds ``kubegap/kubegap.pyz`` (and nothing else), building it when it is first wanted."""

    def check(self, **kwargs: Any) -> list[Any]:
        return []

    @overload
    def find(self, path: str, find_all: Literal[False] = False) -> str | None: ...

    @overload
    def find(self, path: str, find_all: Literal[True]) -> list[str]: ...

    def find(self, path: str, find_all: bool = False, **kwargs: Any) -> str | list[str] | None:
        find_all = find_all or bool(kwargs.get("all"))  # Django < 5.2 says all=
        if path != PYZ:
            return [] if find_all else None
        found = str(built_root() / PYZ)
        return [found] if find_all else found

    def list(self, ignore_patterns: Any) -> Iterator[tuple[str, FileSystemStorage]]:
        yield PYZ, FileSystemStorage(location=str(built_root()))
