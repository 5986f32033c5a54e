"""Where to connect and how to authenticate: kubeconfig files and the in-cluster service account.

Supports what real kubeconfigs use: bearer token (inline or tokenFile), client certificate and key
(file or base64 data), CA (file or data), insecure-skip-tls-verify, tls-server-name, basic auth and
``exec`` credential plugins (client.authentication.k8s.io ExecCredential, refreshed on expiry and
on 401, see :mod:`.credentials`). Relative paths are resolved against the directory of the
kubeconfig file that named them.
"""

from __future__ import annotations

import base64
import os
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from .credentials import Credentials
from .credentials import ExecCredentials
from .credentials import TokenFile
from .errors import ConfigError
from .yamlfile import read_yaml

DEFAULT_TIMEOUT = 30.0  # seconds per API request, connect and read (--timeout)
PAGE_LIMIT = 500  # objects per list request (--chunk-size; kubectl's default too)
MAX_PAGE_LIMIT = 10_000

SA_DIR = Path("/var/run/secrets/kubernetes.io/serviceaccount")


@dataclass
class Connection:
    """Everything needed to reach one API server."""

    server: str
    context: str
    token: str | None = None
    username: str | None = None
    password: str | None = None
    ca_file: str | None = None
    ca_data: str | None = None  # PEM text
    client_cert_file: str | None = None
    client_key_file: str | None = None
    client_cert_data: bytes | None = None  # PEM bytes
    client_key_data: bytes | None = None
    insecure: bool = False
    tls_server_name: str | None = None
    source: str = ""
    extra_headers: dict[str, str] = field(default_factory=dict)
    # Credentials that can change during a run (exec plugin, rotated token file); when set, the
    # HTTP session takes the token and client certificate from here and refreshes them.
    credentials: Credentials | None = None


def _read_yaml(path: Path) -> dict[str, Any]:
    data = read_yaml(path, "kubeconfig", ConfigError)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"kubeconfig {path} is not a mapping")
    return data


def _b64(value: str, what: str) -> bytes:
    try:
        return base64.b64decode(value, validate=False)
    except (ValueError, TypeError):
        raise ConfigError(f"kubeconfig field {what} is not valid base64") from None


def _named(entries: Any, name: str, what: str, path: str) -> dict[str, Any]:
    for entry in entries or []:
        if isinstance(entry, dict) and entry.get("name") == name:
            value = entry.get(what)
            return value if isinstance(value, dict) else {}
    raise ConfigError(f"kubeconfig {path}: {what} {name!r} not found")


def kubeconfig_paths(explicit: str | None) -> list[Path]:
    if explicit:
        return [Path(explicit).expanduser()]
    env = os.environ.get("KUBECONFIG")
    if env:
        return [Path(p).expanduser() for p in env.split(os.pathsep) if p]
    return [Path("~/.kube/config").expanduser()]


def _merge(paths: list[Path]) -> tuple[dict[str, Any], dict[str, Path]]:
    """Merge kubeconfig files like kubectl: the first file to define a name wins."""
    merged: dict[str, Any] = {"clusters": [], "users": [], "contexts": []}
    origin: dict[str, Path] = {}
    existing = [p for p in paths if p.exists()]
    if not existing:
        raise ConfigError(f"no kubeconfig found at {', '.join(str(p) for p in paths)}")
    for path in existing:
        data = _read_yaml(path)
        if "current-context" in data and "current-context" not in merged:
            merged["current-context"] = data["current-context"]
        for section in ("clusters", "users", "contexts"):
            items = data.get(section) or []
            if not isinstance(items, list):
                raise ConfigError(f"kubeconfig {path}: {section} must be a list")
            for item in items:
                if not isinstance(item, dict) or "name" not in item:
                    raise ConfigError(f"kubeconfig {path}: an entry of {section} has no name")
                key = f"{section}/{item['name']}"
                if key not in origin:
                    origin[key] = path
                    merged[section].append(item)
    return merged, origin


def _resolve(path: str | None, base: Path) -> str | None:
    if not path:
        return None
    p = Path(path).expanduser()
    return str(p if p.is_absolute() else base.parent / p)


def load_kubeconfig(kubeconfig: str | None = None, context: str | None = None) -> Connection:
    """The connection for ``context`` (default: current-context) of the merged kubeconfig."""
    paths = kubeconfig_paths(kubeconfig)
    merged, origin = _merge(paths)
    ctx_name = context or merged.get("current-context")
    if not ctx_name:
        raise ConfigError("kubeconfig has no current-context; pass --context")
    source = str(origin.get(f"contexts/{ctx_name}", paths[0]))
    ctx = _named(merged["contexts"], ctx_name, "context", source)
    cluster_name, user_name = ctx.get("cluster"), ctx.get("user")
    if not cluster_name:
        raise ConfigError(f"kubeconfig {source}: context {ctx_name!r} names no cluster")
    cluster = _named(merged["clusters"], cluster_name, "cluster", source)
    cbase = origin.get(f"clusters/{cluster_name}", Path(source))
    server = cluster.get("server")
    if not server or not str(server).startswith(("https://", "http://")):
        raise ConfigError(f"kubeconfig {cbase}: cluster {cluster_name!r} has no valid server URL")
    conn = Connection(server=str(server).rstrip("/"), context=str(ctx_name), source=source)
    conn.insecure = bool(cluster.get("insecure-skip-tls-verify"))
    conn.tls_server_name = cluster.get("tls-server-name")
    conn.ca_file = _resolve(cluster.get("certificate-authority"), cbase)
    if cluster.get("certificate-authority-data"):
        data = _b64(cluster["certificate-authority-data"], "certificate-authority-data")
        conn.ca_data = data.decode("ascii", "replace")
    if conn.ca_file and not Path(conn.ca_file).exists():
        raise ConfigError(f"kubeconfig {cbase}: certificate-authority {conn.ca_file} not found")
    if user_name:
        user = _named(merged["users"], user_name, "user", source)
        _apply_user(conn, user, origin.get(f"users/{user_name}", Path(source)), cluster)
    return conn


def _apply_user(
    conn: Connection, user: dict[str, Any], base: Path, cluster: dict[str, Any]
) -> None:
    if user.get("auth-provider"):
        raise ConfigError("kubeconfig auth-provider plugins are not supported; use exec or a token")
    if user.get("token"):
        conn.token = str(user["token"])
    elif user.get("tokenFile"):
        token_file = TokenFile(Path(str(_resolve(user["tokenFile"], base))))
        try:
            token_file.refresh()
        except ConfigError:
            raise ConfigError(
                f"kubeconfig {base}: tokenFile {token_file.path} unreadable"
            ) from None
        conn.credentials = token_file
    elif user.get("exec"):
        info = {
            k: v
            for k, v in cluster.items()
            if k
            in (
                "server",
                "certificate-authority-data",
                "insecure-skip-tls-verify",
                "tls-server-name",
            )
        }
        creds = ExecCredentials(dict(user["exec"]), base, info)
        creds.refresh()  # fail now, with the plugin's message, rather than on the first request
        conn.credentials = creds
    conn.username, conn.password = user.get("username"), user.get("password")
    conn.client_cert_file = _resolve(user.get("client-certificate"), base)
    conn.client_key_file = _resolve(user.get("client-key"), base)
    for what in ("client_cert_file", "client_key_file"):
        value = getattr(conn, what)
        if value and not Path(value).exists():
            raise ConfigError(f"kubeconfig {base}: {what.replace('_', '-')} {value} not found")
    if user.get("client-certificate-data"):
        conn.client_cert_data = _b64(user["client-certificate-data"], "client-certificate-data")
    if user.get("client-key-data"):
        conn.client_key_data = _b64(user["client-key-data"], "client-key-data")


def in_cluster() -> Connection | None:
    """The pod's service account, when running inside a cluster."""
    host, port = (
        os.environ.get("KUBERNETES_SERVICE_HOST"),
        os.environ.get("KUBERNETES_SERVICE_PORT"),
    )
    token_path = SA_DIR / "token"
    if not host or not port or not token_path.exists():
        return None
    if ":" in host:
        host = f"[{host}]"
    ca = SA_DIR / "ca.crt"
    token = TokenFile(token_path)
    token.refresh()
    return Connection(
        server=f"https://{host}:{port}",
        context="in-cluster",
        ca_file=str(ca) if ca.exists() else None,
        source="in-cluster service account",
        credentials=token,
    )


def resolve_connection(kubeconfig: str | None, context: str | None) -> Connection:
    """kubeconfig when given or present, else the in-cluster service account."""
    if kubeconfig or context or os.environ.get("KUBECONFIG"):
        return load_kubeconfig(kubeconfig, context)
    if not Path("~/.kube/config").expanduser().exists():
        conn = in_cluster()
        if conn is not None:
            return conn
    return load_kubeconfig(None, None)
