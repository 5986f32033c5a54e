"""The malformed corpus (tests/data/malformed/): every file refused with its file, case and field,
no traceback, and the database exactly as it was, through the loader and through the submission."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.apps import apps
from django.db import connection

from incidents.models import SearchIndex
from incidents.services import LibraryError
from incidents.services import load_library
from incidents.services.case_submission import submit_case
from incidents.services.safe_yaml import MAX_FILE_BYTES
from incidents.services.safe_yaml import LibraryLoader
from incidents.services.safe_yaml import load_file
from incidents.services.safe_yaml import load_text
from tests.conftest import DATA
from tests.conftest import FIXTURES
from tests.conftest import SMALL_LIBRARY
from tests.server import REPO_ROOT
from tests.server import base_env

CORPUS = DATA / "malformed"
EXPECTED: list[dict[str, str]] = yaml.safe_load((CORPUS / "expected.yaml").read_text())
KINDS = {"non-finite", "date", "length", "yaml", "size", "shape"}


def _rows() -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the app's tables, every column as stored, to compare before and after (read
    in SQL: the ORM's building of each row took most of a test's CPU); the search index, an FTS5
    table on SQLite, by its case ids (its hidden column reads differently every time)."""
    quote = connection.ops.quote_name
    rows = {}
    with connection.cursor() as cursor:
        for model in apps.get_app_config("incidents").get_models():
            if model._meta.managed:
                table, pk = quote(model._meta.db_table), quote(model._meta.pk.column)
                cursor.execute(f"SELECT * FROM {table} ORDER BY {pk}")
                rows[model.__name__] = cursor.fetchall()
    rows["SearchIndex"] = [(i,) for i in SearchIndex.objects.values_list("pk", flat=True)]
    return rows


def _library_with(tmp_path: Path, item: dict[str, str]) -> Path:
    library = tmp_path / "library"
    shutil.copytree(SMALL_LIBRARY, library)
    shutil.copy(CORPUS / item["file"], library / item["file"])
    return library


def test_the_corpus_covers_every_kind_with_25_files_or_more() -> None:
    files = sorted(str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*.yaml"))
    files.remove("expected.yaml")
    assert sorted(item["file"] for item in EXPECTED) == files
    assert len(files) >= 25
    assert {item["kind"] for item in EXPECTED} == KINDS
    assert (CORPUS / "cases" / "over-one-mebibyte.yaml").stat().st_size > MAX_FILE_BYTES


def _read(text: str, read: Any) -> Any:
    try:
        return read(text)
    except yaml.YAMLError as error:
        return f"{type(error).__name__}: {error}"


def test_libyamls_parser_reads_every_file_as_pyyamls_does() -> None:
    """`load_text` reads with libyaml where it can, and falls back on PyYAML's own parser when
    libyaml refuses: the same data for every library file, the same refusal for every corpus file
    (PyYAML's words)."""
    files = [*FIXTURES.rglob("*.yaml"), *SMALL_LIBRARY.rglob("*.yaml"), *CORPUS.rglob("*.yaml")]
    assert len(files) > 100
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # refused before it is parsed, as one too large is
        if len(text) > MAX_FILE_BYTES:
            continue
        python = _read(text, lambda t: yaml.load(t, Loader=LibraryLoader))  # noqa: S506
        assert _read(text, load_text) == python, path


@pytest.mark.parametrize("item", EXPECTED, ids=lambda item: item["file"])
def test_the_loader_refuses_with_file_case_and_field(
    item: dict[str, str], small_library: None, tmp_path: Path
) -> None:
    library = _library_with(tmp_path, item)
    before = _rows()
    with pytest.raises(LibraryError) as raised:
        load_library([library], root=library)
    assert _rows() == before
    problems = raised.value.problems
    matching = [p for p in problems if p.file == item["file"] and item["says"] in p.message]
    assert matching, [str(p) for p in problems]
    problem = matching[0]
    assert problem.field == (item["field"] or None)
    if item["field"] and item["file"].startswith("cases/"):
        assert problem.entry == f"case '{Path(item['file']).stem}'"
    # The other files of the library are fine: only the malformed one is named.
    assert {p.file for p in problems} == {item["file"]}


SUBMITTABLE = [
    item
    for item in EXPECTED
    if item["file"].startswith("cases/") and item["kind"] in {"non-finite", "date", "length"}
]


@pytest.mark.parametrize("item", SUBMITTABLE, ids=lambda item: item["file"])
def test_the_submission_refuses_the_same_values(item: dict[str, str], small_library: None) -> None:
    entry = load_file(CORPUS / item["file"])
    slug = Path(item["file"]).stem
    before = _rows()
    with pytest.raises(LibraryError) as raised:
        submit_case(slug=slug, entry=entry)
    assert _rows() == before
    fields = {p.field for p in raised.value.problems if item["says"] in p.message}
    assert (item["field"] or "slug") in fields, [str(p) for p in raised.value.problems]


def test_load_cases_lists_every_file_without_a_traceback(
    tmp_path: Path, migrated_sqlite: Path
) -> None:
    library = tmp_path / "library"
    shutil.copytree(SMALL_LIBRARY, library)
    for item in EXPECTED:
        shutil.copy(CORPUS / item["file"], library / item["file"])
    # A fresh SQLite database, migrated (unknown values are looked up in it).
    database = shutil.copy(migrated_sqlite, tmp_path / "fresh.sqlite3")
    env = base_env() | {"DEBUG": "1", "DATABASE_URL": f"sqlite:///{database}"}
    # Without the system checks, which import every view for the URL checks (0.3 s of CPU) and
    # are not what is tested here (tests/test_deploy.py runs them).
    result = subprocess.run(
        [sys.executable, "manage.py", "load_cases", "--skip-checks", str(library)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr + result.stdout
    assert "nothing was loaded" in result.stderr
    for item in EXPECTED:
        assert item["file"] in result.stderr
