"""The JSON Schemas in fixtures/schema/: every library file names one and obeys it, and the schema
refuses what the loader refuses, so an editor's inline validation and `load_cases` agree.

The loader keeps its own checks and messages (file, entry, field) and does not read the schema at
run time; these tests hold the two together.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from incidents.models import Bound
from incidents.models import CaseKind
from incidents.models import Confirmation
from incidents.models import CostKind
from incidents.models import CostUnit
from incidents.models import CountUnit
from incidents.models import Setting
from incidents.models import SourceKind
from incidents.services.breakdown_fields import BREAKDOWN_KEYS
from incidents.services.breakdown_fields import ROW_KEYS
from incidents.services.case_fields import read_case_mapping
from incidents.services.cost_fields import COST_KEYS
from incidents.services.library_entries import CASE_KEYS
from incidents.services.library_entries import LibraryError
from incidents.services.library_files import read_library
from incidents.services.safe_yaml import safe_load
from tests.conftest import REPO_ROOT
from tests.fixture_schema import schema as _schema
from tests.fixture_schema import schema_errors as _errors

FIXTURES = REPO_ROOT / "fixtures"
SCHEMA_OF = {"cases": "case", "vocabulary": "vocabulary", "shared": "shared"}


def _library_files() -> list[Path]:
    return sorted(p for folder in SCHEMA_OF for p in (FIXTURES / folder).glob("*.yaml"))


@pytest.mark.parametrize("name", ["case", "vocabulary", "shared"])
def test_the_schemas_are_valid_json_schemas(name: str) -> None:
    from jsonschema import Draft7Validator  # here, not when every xdist worker collects

    Draft7Validator.check_schema(_schema(name))


def test_every_library_file_names_its_schema_on_its_first_line() -> None:
    files = _library_files()
    assert len(files) > 40
    for path in files:
        wanted = (
            f"# yaml-language-server: $schema=../schema/{SCHEMA_OF[path.parent.name]}.schema.json"
        )
        assert path.read_text(encoding="utf-8").split("\n", 1)[0] == wanted, path


def test_every_library_file_obeys_its_schema() -> None:
    problems = {
        str(path.relative_to(FIXTURES)): errors
        for path in _library_files()
        if (errors := _errors(SCHEMA_OF[path.parent.name], safe_load(path.read_text())))
    }
    assert problems == {}


def test_the_case_schema_knows_the_loaders_fields_and_choices() -> None:
    schema = _schema("case")
    properties = schema["properties"]
    assert set(properties) == CASE_KEYS
    assert properties["kind"]["enum"] == list(CaseKind.values)
    assert properties["setting"]["enum"] == list(Setting.values)
    assert properties["sources"]["items"]["properties"]["kind"]["enum"] == list(SourceKind.values)
    definitions = schema["definitions"]
    cost = definitions["cost"]["properties"]
    assert set(cost) == COST_KEYS
    assert cost["kind"]["enum"] == list(CostKind.values)
    assert definitions["bound"]["enum"] == list(Bound.values)
    assert definitions["status"]["enum"] == list(Confirmation.values)
    table = definitions["breakdown"]["properties"]
    assert set(table) == BREAKDOWN_KEYS
    assert table["counted"]["enum"] == list(CountUnit.values)
    assert table["cost_unit"]["enum"] == list(CostUnit.values)
    assert set(definitions["breakdownRow"]["properties"]) == ROW_KEYS


SEED = yaml.safe_load(
    (FIXTURES / "cases" / "acme-seren-kalos-pretraining-failures.yaml").read_text()
)


def _without(data: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in keys}


def _with(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(data)
    *parents, last = path.split(".")
    target: Any = changed
    for key in parents:
        target = target[int(key)] if isinstance(target, list) else target[key]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return changed


URL = SEED["sources"][0]["url"]
COST = {"kind": "interruptions", "value": 3, "locator": "Table 1", "source": URL}
TABLE = {
    "slug": "t",
    "title": "A table",
    "counted": "failed_jobs",
    "source": URL,
    "locator": "Table 3",
    "rows": [{"label": "Infrastructure", "count_share": 11}],
}

BROKEN_CASES = {
    "neither period nor published": _without(SEED, "period", "published"),
    "a period without a start": _with(SEED, "period", {"end": "2023-08"}),
    "a date in words": _with(_without(SEED, "period"), "published", "March 2024"),
    "an unknown field": _with(SEED, "severity", "high"),
    "an unknown kind": _with(SEED, "kind", "outage"),
    "no organisation": _with(SEED, "organisations", []),
    "a slug with capitals": _with(SEED, "symptoms", ["NCCL-timeout"]),
    "a slug listed twice": _with(SEED, "components", ["gpu", "gpu"]),
    "no sources": _with(SEED, "sources", []),
    "a source that is not a URL": _with(SEED, "sources.0.url", "arxiv 2403.07648"),
    "a figure that is not a number": _with(SEED, "key_figures.0.value", "many"),
    "a figure without measures": _with(
        SEED, "key_figures.0", {"value": 1, "source": "https://x.org"}
    ),
    "a title too long": _with(SEED, "title", "x" * 251),
    "the old cost mapping": _with(SEED, "cost", {"interruptions": {"value": 1, "source": URL}}),
    "an unknown cost kind": _with(SEED, "costs", [{**COST, "kind": "dollars"}]),
    "a cost without a locator": _with(SEED, "costs", [_without(COST, "locator")]),
    "a share above 100": _with(
        SEED, "costs", [{**COST, "kind": "gpu_time_share", "of": "x", "value": 120}]
    ),
    "a share without its whole": _with(SEED, "costs", [{**COST, "kind": "gpu_time_share"}]),
    "a derived cost without a formula": _with(SEED, "costs", [{**COST, "derived": True}]),
    "an unknown bound": _with(SEED, "costs", [{**COST, "bound": "roughly"}]),
    "a table without rows": _with(SEED, "breakdowns", [{**TABLE, "rows": []}]),
    "a table with an unknown unit": _with(SEED, "breakdowns", [{**TABLE, "cost_unit": "dollars"}]),
    "a table with neither unit": _with(
        SEED, "breakdowns", [_without(TABLE, "counted", "cost_unit")]
    ),
    "a row without a number": _with(SEED, "breakdowns", [{**TABLE, "rows": [{"label": "x"}]}]),
    "a row share above 100": _with(
        SEED, "breakdowns", [{**TABLE, "rows": [{"label": "x", "count_share": 101}]}]
    ),
    "a row mapping an unknown facet": _with(
        SEED,
        "breakdowns",
        [{**TABLE, "rows": [{"label": "x", "count": 1, "maps_to": {"colour": ["red"]}}]}],
    ),
    "a secondary table without notes": _with(
        SEED, "breakdowns", [{**TABLE, "status": "secondary"}]
    ),
}


@pytest.mark.parametrize("broken", BROKEN_CASES.values(), ids=BROKEN_CASES.keys())
def test_what_the_loader_refuses_the_schema_refuses(broken: dict[str, Any]) -> None:
    with pytest.raises(LibraryError):
        read_case_mapping("seed", broken, display="seed.yaml")
    assert _errors("case", broken)


def test_the_seed_case_passes_both() -> None:
    read_case_mapping("seed", SEED, display="seed.yaml")
    assert _errors("case", SEED) == []
    with_table = _with(SEED, "breakdowns", [TABLE])
    read_case_mapping("seed", with_table, display="seed.yaml")
    assert _errors("case", with_table) == []


BROKEN_VALUES = {
    "no name": [{"slug": "gpu"}],
    "aliases not a list": [{"slug": "gpu", "name": "GPU", "aliases": "GPU card"}],
    "a blank alias": [{"slug": "gpu", "name": "GPU", "aliases": ["  "]}],
    "an unknown field": [{"slug": "gpu", "name": "GPU", "synonyms": ["card"]}],
    "a bad slug": [{"slug": "GPU card", "name": "GPU"}],
}


@pytest.mark.parametrize("broken", BROKEN_VALUES.values(), ids=BROKEN_VALUES.keys())
def test_what_the_loader_refuses_in_a_vocabulary_the_schema_refuses(
    broken: list[dict[str, Any]], tmp_path: Path
) -> None:
    folder = tmp_path / "vocabulary"
    folder.mkdir()
    (folder / "component.yaml").write_text(yaml.safe_dump(broken))
    with pytest.raises(LibraryError):
        read_library([tmp_path])
    assert _errors("vocabulary", broken)
