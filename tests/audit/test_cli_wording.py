"""What the CLI says to a person: explain's RBAC lines, argument errors, counts in words."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .conftest import run

REPO = Path(__file__).resolve().parents[2]
HEALTHY = str(REPO / "fixtures/snapshots/demo-healthy-gpu-cluster.json")


def test_explain_lists_rbac_as_verbs_on_resources(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "explain", "GPU-002")
    assert code == 0
    rbac = out.split("RBAC it needs:\n", 1)[1].splitlines()
    assert "  get, list, watch on core/nodes" in rbac
    assert not [line for line in rbac if "[" in line or "'" in line]  # no Python list repr


@pytest.mark.parametrize("value", ["0", "-1", "3601"])
def test_a_timeout_out_of_range_says_what_is_allowed(
    capsys: pytest.CaptureFixture[str], value: str
) -> None:
    code, _, err = run(capsys, "audit", "--snapshot", HEALTHY, f"--timeout={value}")
    assert code == 2
    assert f"must be more than 0 and at most 3600 seconds, not '{value}'" in err


@pytest.mark.parametrize(
    "url", ["not a url", "library.example.org", "ftp://lib.example", "https://"]
)
def test_a_library_url_must_be_http_or_https(capsys: pytest.CaptureFixture[str], url: str) -> None:
    code, out, err = run(capsys, "audit", "--snapshot", HEALTHY, "--library-url", url)
    assert code == 2 and not out
    assert "must be an http(s) URL" in err and repr(url) in err


def test_the_library_url_from_the_environment_is_checked_too(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KUBEGAP_LIBRARY_URL", "lib")
    code, _, err = run(capsys, "list-checks")
    assert code == 2 and "KUBEGAP_LIBRARY_URL" in err
    monkeypatch.setenv("KUBEGAP_LIBRARY_URL", "http://127.0.0.1:8000")
    broken = str(REPO / "fixtures/snapshots/demo-broken-gpu-cluster.json")
    code, out, _ = run(capsys, "audit", "--snapshot", broken, "--checks", "GPU-002")
    assert code == 1 and "(library: http://127.0.0.1:8000/cases/" in out


def test_counts_of_one_are_singular(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "audit", "--snapshot", HEALTHY, "--checks", "PLAT-002")
    assert code == 0
    assert "1 check: 1 pass." in out
    assert not re.search(r"\b1 (checks|objects|pages|findings)\b", out)
    # a pass over several objects names its count after the claim, whatever the number
    assert re.search(r"etcd members have a raised storage quota \(\d+ examined\)", out), out
