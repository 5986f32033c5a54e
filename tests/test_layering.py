"""The layers keep to their jobs (ARCHITECTURE.md): kubegap imports nothing of the Django app,
selectors build no URLs, presenters and views run no queries of their own."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext

from incidents.facets import spec
from incidents.graph.kinds import parse_node_ref
from incidents.presenters import browse_page
from incidents.presenters import case_page
from incidents.presenters import cost_page
from incidents.presenters import graph_page
from incidents.presenters import library_page
from incidents.presenters.query_state import QueryState
from incidents.selectors.browse import facet_value_page
from incidents.selectors.cases import case_detail
from incidents.selectors.cases import case_list
from incidents.selectors.cost import cost_view
from incidents.selectors.facet_counts import suggestions_for
from incidents.selectors.graph import GraphOptions
from incidents.selectors.graph import graph_view
from tests.conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "incidents"
# Top-level packages that belong to Django and its ecosystem.
DJANGO_PACKAGES = {
    "django",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "template_partials",
    "dj_database_url",
    "django_stubs_ext",
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, source: str | None = None) -> list[str]:
    """Every module a file imports, relative imports resolved (`from x import y` gives x.y too,
    since y may be a module)."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text() if source is None else source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            found.append(base)
            found += [f"{base}.{alias.name}" for alias in node.names]
    return found


def _is_django_app(name: str) -> bool:
    top = name.split(".")[0]
    if top in DJANGO_PACKAGES:
        return True
    return top == "incidents" and name != "incidents" and not name.startswith("incidents.audit")


def test_the_import_reader_sees_every_form_of_import() -> None:
    sample = (
        "import django.db\nfrom incidents import selectors\nfrom .. import cli\n"
        "from ...models import Case\nimport incidents.models\n"
    )
    found = imported_modules(PACKAGE / "audit" / "checks" / "probe.py", sample)
    assert {"django.db", "incidents.selectors", "incidents.audit.cli", "incidents.models"} <= set(
        found
    )
    assert [n for n in found if _is_django_app(n)] == [
        "django.db",
        "incidents.selectors",
        "incidents.models",
        "incidents.models.Case",
        "incidents.models",
    ]


def test_kubegap_imports_nothing_of_django_or_the_library() -> None:
    offenders = [
        f"{path.relative_to(REPO_ROOT)}: {name}"
        for path in sorted((PACKAGE / "audit").rglob("*.py"))
        for name in imported_modules(path)
        if _is_django_app(name)
    ]
    assert not offenders


def test_kubegap_loads_without_django_at_run_time() -> None:
    """Importing every kubegap module pulls in no Django and no other part of the app."""
    script = (
        "import importlib, pkgutil, sys\n"
        "import incidents.audit as audit\n"
        "for info in pkgutil.walk_packages(audit.__path__, 'incidents.audit.'):\n"
        "    if not info.name.endswith('__main__'):\n"
        "        importlib.import_module(info.name)\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin"},
        check=True,
    )
    loaded = result.stdout.split()
    assert "incidents.audit.cli" in loaded
    assert [name for name in loaded if _is_django_app(name)] == []


def _python_files(folder: str) -> list[Path]:
    return sorted((PACKAGE / folder).rglob("*.py"))


@pytest.mark.parametrize("path", _python_files("selectors"), ids=lambda p: p.name)
def test_selectors_build_no_urls(path: Path) -> None:
    assert not [n for n in imported_modules(path) if n.startswith("django.urls")]
    assert "reverse(" not in path.read_text()


@pytest.mark.parametrize(
    "path", _python_files("presenters") + _python_files("views"), ids=lambda p: p.name
)
def test_presenters_and_views_do_not_use_the_orm(path: Path) -> None:
    assert not [n for n in imported_modules(path) if n.startswith("django.db")]
    assert ".objects" not in path.read_text()


def _no_queries() -> CaptureQueriesContext:
    connection.queries_log.clear()
    return CaptureQueriesContext(connection)


def test_presenters_run_no_queries(small_library: None) -> None:
    params = QueryDict("organisation=meta")
    result = case_list(params=params)
    state = QueryState.of(result.query.filterset, params)
    suggestions = suggestions_for(result.query.filterset, "nccl timeouts")
    case = case_detail(slug="leaky-loader")
    cost = cost_view(params=QueryDict(""))
    graph = graph_view(params=params)
    focus = graph_view(params=params, options=GraphOptions(parse_node_ref("case:hbm-failures")))
    value = facet_value_page(spec=spec("component"), slug="gpu-hardware")
    with _no_queries() as captured:
        assert library_page.context(result, state, suggestions, params)["rows"]
        assert case_page.context(case)["breakdowns"][0].rows
        assert cost_page.context(cost, params, [])["panels"]
        assert graph_page.context(graph, params)["drawing"].nodes
        assert graph_page.data(focus, params)["nodes"]
        assert graph_page.context(focus, params, panel=True)["columns"]
        assert browse_page.value_context(value)["rows"]
    assert [q["sql"] for q in captured.captured_queries] == []


MAX_MODULE_LINES = 400


def test_no_module_of_the_app_is_over_400_lines() -> None:
    """Small modules (issue 7): a module past 400 lines is split by what its parts do
    (migrations, generated, are left out)."""
    root = Path(__file__).resolve().parents[1] / "incidents"
    long = {
        str(path.relative_to(root)): lines
        for path in root.rglob("*.py")
        if "migrations" not in path.parts
        and (lines := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert not long, long
