"""Shared fixtures: a small library loaded from tests/data/library, and helpers."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from incidents.services import load_library

DATA = Path(__file__).parent / "data"
SMALL_LIBRARY = DATA / "library"
REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def small_library(db: None) -> None:
    """The three-case library of tests/data/library, loaded."""
    load_library([SMALL_LIBRARY])


@pytest.fixture
def library_copy(tmp_path: Path) -> Path:
    """A writable copy of the small library, for tests that break it."""
    target = tmp_path / "library"
    shutil.copytree(SMALL_LIBRARY, target)
    return target
