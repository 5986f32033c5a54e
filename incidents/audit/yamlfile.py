"""Reading a YAML file the user names (kubeconfig, config), with errors that say where."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .errors import KubegapError


def read_yaml(path: Path, what: str, error: type[KubegapError]) -> Any:
    """The parsed document, or ``error`` naming the file (and the line of a syntax error)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise error(f"{what} {path} is not valid YAML{where}") from None
