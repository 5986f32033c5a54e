"""The project's cache outside any checkout, shared by every clone (tests/kubeapi/provision.sh's
rule): $KUBEGAP_CACHE_DIR, else $XDG_CACHE_HOME/incident-library, else ~/.cache/incident-library."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    if os.environ.get("KUBEGAP_CACHE_DIR"):
        return Path(os.environ["KUBEGAP_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "incident-library"
