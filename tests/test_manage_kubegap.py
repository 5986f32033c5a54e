"""`manage.py kubegap` passes its arguments to kubegap unchanged and keeps its exit status."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import REPO_ROOT

MANAGE = [sys.executable, str(REPO_ROOT / "manage.py"), "kubegap"]
ENV = {**os.environ, "DEBUG": "1"}


def test_manage_kubegap_audits_a_snapshot_with_kubegaps_flags_and_exit_code() -> None:
    snapshot = REPO_ROOT / "fixtures" / "snapshots" / "demo-broken-gpu-cluster.json"
    result = subprocess.run(
        [*MANAGE, "audit", "--snapshot", str(snapshot), "--format", "json"],
        env=ENV,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1, result.stderr  # the broken demo cluster has high findings
    report = json.loads(result.stdout)
    assert any(f["status"] == "fail" for f in report["findings"])


def test_manage_kubegap_help_is_kubegaps_help() -> None:
    result = subprocess.run([*MANAGE, "--help"], env=ENV, capture_output=True, text=True)
    assert result.returncode == 0
    assert result.stdout.startswith("usage: kubegap")
