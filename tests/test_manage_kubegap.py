"""`manage.py kubegap` passes its arguments to kubegap unchanged and keeps its exit status.

Run in-process through Django's command line (as manage.py does); tests/test_fixtures.py runs
manage.py itself in a subprocess.
"""

from __future__ import annotations

import json

import pytest
from django.core.management import execute_from_command_line

from tests.conftest import REPO_ROOT


def test_manage_kubegap_audits_a_snapshot_with_kubegaps_flags_and_exit_code(
    capsys: pytest.CaptureFixture[str],
) -> None:
    snapshot = REPO_ROOT / "fixtures" / "snapshots" / "demo-broken-gpu-cluster.json"
    with pytest.raises(SystemExit) as exited:
        execute_from_command_line(
            ["manage.py", "kubegap", "audit", "--snapshot", str(snapshot), "--format", "json"]
        )
    assert exited.value.code == 1  # the broken demo cluster has high findings
    report = json.loads(capsys.readouterr().out)
    assert any(f["status"] == "fail" for f in report["findings"])


def test_manage_kubegap_help_is_kubegaps_help(capsys: pytest.CaptureFixture[str]) -> None:
    execute_from_command_line(["manage.py", "kubegap", "--help"])
    assert capsys.readouterr().out.startswith("usage: kubegap")
