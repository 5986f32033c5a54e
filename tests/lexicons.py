"""The suggestion engine's lexicons kept for the test session, one per library signature.

`incidents.suggest.library` keeps one lexicon, for the library's current signature, as a server
process needs. The tests switch libraries all the time (the small one, the seeded one, synthetic
cases; each test rolled back), so a process rebuilt the seeded library's lexicon (about 0.3 s of
CPU) whenever a test on it followed one on another library: 77 builds in a run, about 4 s. Here a
build is kept by the signature it was made for (the app's own key: the same contents give the
same signature), and a later build for that signature returns it; the app's cache, its signature
query and its rebuild on a change run as they do in a server.

Under pytest-xdist the lexicon of a library every process restores (the small and the seeded one,
tests/conftest.py) is built once per run: the first process to need it pickles it into the run's
folder, the others read it (0.03 s of CPU, against 0.3 s to build the seeded library's).
"""

from __future__ import annotations

import fcntl
import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from incidents.suggest import library

KEPT = 8  # the libraries of a module or two; synthetic ones are seldom seen twice

# This process's signature of each library restored from a shared snapshot -> the snapshot's name.
_restored: dict[Any, str] = {}


def restored(name: str) -> None:
    """The database now holds the library of the shared snapshot `name` (just written back)."""
    _restored[library._signature()] = name


def _shared(folder: Path, name: str, build: Callable[[], Any]) -> Any:
    """The lexicon pickled in `folder` under `name` by another process, or built and pickled."""
    pickled = folder / f"lexicon-{name}.pickle"
    with open(folder / f"lexicon-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if pickled.exists():
            return pickle.loads(pickled.read_bytes())
        built = build()
        pickled.write_bytes(pickle.dumps(built))
        return built


@contextmanager
def lexicons_kept_by_signature(shared: Path | None = None) -> Iterator[None]:
    """Lexicons kept by signature; `shared`, the run's folder under pytest-xdist."""
    signature, build = library._signature, library._build
    last = threading.local()  # live servers read suggestions in their own threads
    kept: OrderedDict[Any, Any] = OrderedDict()
    lock = threading.Lock()

    def signature_seen() -> tuple[Any, ...]:
        last.signature = signature()
        return last.signature

    def build_or_kept(given: Any) -> Any:
        key = getattr(last, "signature", None)
        if key is None:
            return build(given)
        with lock:
            if key in kept:
                kept.move_to_end(key)
                return kept[key]
        name = _restored.get(key)
        if shared is not None and name is not None:
            built = _shared(shared, name, lambda: build(given))
        else:
            built = build(given)
        with lock:
            kept[key] = built
            if len(kept) > KEPT:
                kept.popitem(last=False)
        return built

    library._signature, library._build = signature_seen, build_or_kept  # type: ignore[assignment]
    try:
        yield
    finally:
        library._signature, library._build = signature, build  # type: ignore[assignment]
