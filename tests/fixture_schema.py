"""Validating library data against the JSON Schemas in fixtures/schema/, as an editor would."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from tests.conftest import REPO_ROOT

SCHEMAS = REPO_ROOT / "fixtures" / "schema"


def schema(name: str) -> dict[str, Any]:
    """The schema fixtures/schema/<name>.schema.json (case, vocabulary or shared)."""
    loaded: dict[str, Any] = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    return loaded


def as_json(value: Any) -> Any:
    """YAML data as an editor's language server sees it: dates are text, as in YAML 1.2."""
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {key: as_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [as_json(item) for item in value]
    return value


def schema_errors(name: str, data: Any) -> list[str]:
    """Every way `data` breaks the schema, as "path: message" lines; empty when it obeys."""
    from jsonschema import Draft7Validator  # here, not when every xdist worker collects

    validator = Draft7Validator(schema(name))
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in validator.iter_errors(as_json(data))
    ]
