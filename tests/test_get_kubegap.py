"""Getting kubegap from the site: the /kubegap/ page, the one-file download, the RBAC manifest,
and the links to them from the checks page and a case page's command."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from io import BytesIO
from pathlib import Path

import pytest
from django.test import Client

from incidents.audit import __version__
from incidents.audit.checks import ALL_CHECKS
from incidents.audit.rbac import manifest

pytestmark = pytest.mark.django_db


def test_the_page_gives_the_download_usage_and_rbac(client: Client) -> None:
    response = client.get("/kubegap/")
    assert response.status_code == 200
    page = response.content.decode()
    assert 'href="/kubegap.pyz" download="kubegap.pyz"' in page
    assert "curl -fLO http://testserver/kubegap.pyz" in page
    assert "python3 kubegap.pyz audit --library-url http://testserver" in page
    assert "kubectl apply -f http://testserver/kubegap-rbac.yaml" in page
    assert "kind: ClusterRole" in page and f"kubegap {__version__}" in page
    assert "Content-Security-Policy" in response  # the site's policy, as on every page


def test_the_rbac_manifest_is_served_as_yaml(client: Client) -> None:
    response = client.get("/kubegap-rbac.yaml")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/yaml")
    assert response.content.decode() == manifest(ALL_CHECKS)


def test_the_download_is_a_kubegap_that_runs(client: Client, tmp_path: Path) -> None:
    response = client.get("/kubegap.pyz")
    assert response.status_code == 302 and response["Location"] == "/static/kubegap/kubegap.pyz"
    static = client.get(response["Location"])  # served by the finder, built on this request
    assert static.status_code == 200
    body = b"".join(static.streaming_content)  # type: ignore[attr-defined]
    assert body.startswith(b"#!/usr/bin/env python3\n")
    assert "incidents/audit/cli.py" in zipfile.ZipFile(BytesIO(body)).namelist()
    pyz = tmp_path / "kubegap.pyz"
    pyz.write_bytes(body)
    result = subprocess.run(
        [sys.executable, "-I", "-S", str(pyz), "--version"], capture_output=True, text=True
    )
    assert result.stdout.strip() == f"kubegap {__version__}", result.stderr


@pytest.mark.usefixtures("seeded_library")
def test_the_checks_page_and_a_case_page_link_to_it(client: Client) -> None:
    checks = client.get("/checks/").content.decode()
    assert 'href="/kubegap/">Get kubegap</a>' in checks
    assert "python3 kubegap.pyz audit" in checks
    case = client.get("/cases/acme-seren-kalos-pretraining-failures/").content.decode()
    command = case.index("kubegap audit --checks ")
    assert 'href="/kubegap/">Get kubegap</a>' in case[command:]
