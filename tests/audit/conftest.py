"""Fixtures for kubegap tests: TLS material, kubeconfig files, a realistic fake cluster."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

FIXTURES = Path(__file__).parent / "fixtures"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``kubegap ARGV`` in this process: its exit code, standard output and standard error."""
    from incidents.audit.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def fixture_items(*names: str) -> list[dict[str, Any]]:
    """The ``items`` of fixture files named ``CHECK-ID/file`` (without .yaml), concatenated."""
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, str, str]] = set()
    for name in names:
        for obj in yaml.safe_load((FIXTURES / f"{name}.yaml").read_text())["items"]:
            key = (obj["kind"], obj["metadata"].get("namespace", ""), obj["metadata"]["name"])
            if key not in seen:
                seen.add(key)
                out.append(obj)
    return out


@pytest.fixture(scope="session")
def tls(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A CA and a server certificate for 127.0.0.1, made with the openssl CLI (P-256 keys:
    generating two RSA keys took about half a second of CPU)."""
    d = tmp_path_factory.mktemp("tls")

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True)

    run(
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
        "-subj",
        "/CN=kubegap-test-ca",
        "-days",
        "2",
    )
    run(
        "req",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=127.0.0.1",
    )
    (d / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    run(
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.crt",
        "-days",
        "2",
        "-extfile",
        "san.ext",
    )
    return {
        k: str(d / f) for k, f in (("ca", "ca.crt"), ("cert", "server.crt"), ("key", "server.key"))
    }


@pytest.fixture
def write_kubeconfig(tmp_path: Path) -> Callable[..., str]:
    """Write a kubeconfig for ``server`` (token auth; CA file or insecure) and return its path."""

    def write(
        server: str, token: str | None = "t0ken", ca: str | None = None, **cluster: Any
    ) -> str:
        entry: dict[str, Any] = {"server": server, **cluster}
        if ca:
            entry["certificate-authority"] = ca
        user: dict[str, Any] = {"token": token} if token else {}
        doc = {
            "apiVersion": "v1",
            "kind": "Config",
            "current-context": "test",
            "clusters": [{"name": "c", "cluster": entry}],
            "users": [{"name": "u", "user": user}],
            "contexts": [{"name": "test", "context": {"cluster": "c", "user": "u"}}],
        }
        path = tmp_path / "kubeconfig"
        path.write_text(yaml.safe_dump(doc))
        return str(path)

    return write


@pytest.fixture
def gpu_cluster_objects() -> list[dict[str, Any]]:
    """A small broken GPU cluster: faults on a schedulable node, a gap in exporter coverage,
    jobs without restarts or deadlines, OOM history."""
    return fixture_items(
        "GPU-002/fail-xid-schedulable",
        "MON-001/fail-node-missing-exporter",
        "JOB-003/fail-jobset-no-restarts",
        "JOB-002/fail-monitoring-off",
        "MEM-003/fail-recent-oom",
        "ALERT-001/pass-temp-alert",
        "PLAT-002/fail-default-quota",
    )
