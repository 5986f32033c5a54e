"""kubegap.pyz: one file, no Django, under 5 MB, runs on a bare Python with nothing installed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from .fakeapi import FakeApiServer
from .fakeapi import FakeCluster

REPO = Path(__file__).resolve().parents[2]
MAX_BYTES = 5 * 1024 * 1024


@pytest.fixture(scope="module")
def pyz(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("pyz") / "kubegap.pyz"
    proc = subprocess.run(
        [sys.executable, "-m", "incidents.audit.zipapp", str(target)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return target


def _bare(pyz: Path, cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """``python3 -I -S kubegap.pyz ...``: no site-packages, no user site, no environment."""
    return subprocess.run(
        [sys.executable, "-I", "-S", str(pyz), *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin"},
    )


def test_the_archive_is_small_and_holds_no_django_or_database_driver(pyz: Path) -> None:
    assert pyz.stat().st_size < MAX_BYTES
    tops = {name.split("/")[0] for name in zipfile.ZipFile(pyz).namelist()}
    assert {"incidents", "httpx", "yaml", "__main__.py"} <= tops
    assert not tops & {"django", "psycopg", "psycopg_binary", "mcp", "pydantic", "rest_framework"}
    assert not [n for n in zipfile.ZipFile(pyz).namelist() if n.endswith((".so", ".pyd"))]


def test_it_audits_a_snapshot_in_a_clean_directory(pyz: Path, tmp_path: Path) -> None:
    shutil.copy(REPO / "fixtures/snapshots/demo-broken-gpu-cluster.json", tmp_path / "cluster.json")
    proc = _bare(pyz, tmp_path, "audit", "--snapshot", "cluster.json", "-o", "json")
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["schema"] == "kubegap-report" and doc["summary"]["checks_by_status"]["fail"] > 0
    assert _bare(pyz, tmp_path, "list-checks").stdout.count("\n") == doc["summary"]["checks"]


def test_it_audits_a_live_server(
    pyz: Path, tmp_path: Path, write_kubeconfig: Callable[..., str]
) -> None:
    cluster = FakeCluster(token="t0ken")
    with FakeApiServer(cluster) as server:
        proc = _bare(
            pyz, tmp_path, "audit", "--kubeconfig", write_kubeconfig(server.url), "-o", "json"
        )
    assert proc.returncode in (0, 3), proc.stderr
    assert json.loads(proc.stdout)["source"]["type"] == "live"
    assert {m for m, _, _ in cluster.requests} == {"GET"}


def test_mcp_says_it_needs_the_full_install(pyz: Path, tmp_path: Path) -> None:
    proc = _bare(pyz, tmp_path, "mcp")
    assert proc.returncode == 2
    assert "kubegap mcp needs the 'mcp' package" in proc.stderr and "Traceback" not in proc.stderr
