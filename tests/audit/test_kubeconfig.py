"""Kubeconfig and in-cluster configuration."""

from __future__ import annotations

import base64
import json
import stat
from pathlib import Path

import pytest
import yaml

from incidents.audit import kubeconfig
from incidents.audit.errors import ConfigError
from incidents.audit.session import ssl_context as _ssl_context


def _write(path: Path, user: dict, cluster: dict | None = None) -> str:
    doc = {
        "current-context": "a",
        "clusters": [{"name": "c", "cluster": cluster or {"server": "https://10.0.0.1:6443"}}],
        "users": [{"name": "u", "user": user}],
        "contexts": [
            {"name": "a", "context": {"cluster": "c", "user": "u"}},
            {"name": "b", "context": {"cluster": "c"}},
        ],
    }
    path.write_text(yaml.safe_dump(doc))
    return str(path)


def test_exec_plugin_supplies_the_token(tmp_path: Path) -> None:
    plugin = tmp_path / "get-token"
    cred = {
        "apiVersion": "client.authentication.k8s.io/v1",
        "kind": "ExecCredential",
        "status": {"token": "from-exec"},
    }
    plugin.write_text(f"#!/bin/sh\necho '{json.dumps(cred)}'\n")
    plugin.chmod(plugin.stat().st_mode | stat.S_IEXEC)
    path = _write(
        tmp_path / "kc",
        {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": "./get-token"}},
    )
    creds = kubeconfig.load_kubeconfig(path).credentials
    assert creds is not None and creds.token == "from-exec"


def test_failing_exec_plugin_is_a_config_error(tmp_path: Path) -> None:
    path = _write(tmp_path / "kc", {"exec": {"command": "/bin/false"}})
    with pytest.raises(ConfigError, match="exited 1"):
        kubeconfig.load_kubeconfig(path)


def test_token_file_relative_to_the_kubeconfig(tmp_path: Path) -> None:
    (tmp_path / "tok").write_text("abc\n")
    creds = kubeconfig.load_kubeconfig(_write(tmp_path / "kc", {"tokenFile": "tok"})).credentials
    assert creds is not None and creds.token == "abc"


def test_context_selection_and_kubeconfig_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path / "kc", {"token": "t"})
    monkeypatch.setenv("KUBECONFIG", path)
    conn = kubeconfig.resolve_connection(None, "b")
    assert conn.context == "b" and conn.token is None and conn.server == "https://10.0.0.1:6443"


def test_client_certificate_data_loads(tls: dict[str, str], tmp_path: Path) -> None:
    cert = base64.b64encode(Path(tls["cert"]).read_bytes()).decode()
    key = base64.b64encode(Path(tls["key"]).read_bytes()).decode()
    ca = base64.b64encode(Path(tls["ca"]).read_bytes()).decode()
    path = _write(
        tmp_path / "kc",
        {"client-certificate-data": cert, "client-key-data": key},
        {"server": "https://127.0.0.1:1", "certificate-authority-data": ca},
    )
    conn = kubeconfig.load_kubeconfig(path)
    assert conn.client_cert_data and conn.ca_data and "BEGIN CERTIFICATE" in conn.ca_data
    assert _ssl_context(conn)  # loads the CA and the client pair
    bad = _write(tmp_path / "kc2", {"client-certificate-data": cert, "client-key-data": ca})
    with pytest.raises(ConfigError, match="client certificate"):
        _ssl_context(kubeconfig.load_kubeconfig(bad))


def test_in_cluster_service_account(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "token").write_text("sa-token")
    monkeypatch.setattr(kubeconfig, "SA_DIR", tmp_path)
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    conn = kubeconfig.resolve_connection(None, None)
    assert conn.credentials is not None
    assert (conn.server, conn.credentials.token, conn.context) == (
        "https://10.96.0.1:443",
        "sa-token",
        "in-cluster",
    )
