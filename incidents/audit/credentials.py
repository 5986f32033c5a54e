"""Credentials that change while kubegap runs: exec plugins and rotated token files.

An ``exec`` credential plugin (client.authentication.k8s.io ExecCredential) returns a token or
a client certificate and, optionally, ``status.expirationTimestamp``. As client-go does, kubegap
runs the plugin again when that time has passed and when the server answers 401. A token file
(the in-cluster service account, ``tokenFile`` in a kubeconfig) is re-read on 401, because the
kubelet rotates projected tokens.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from dataclasses import field
from datetime import UTC
from datetime import datetime
from datetime import timedelta
from pathlib import Path
from typing import Any

from .errors import ConfigError
from .k8s import parse_time

EXEC_TIMEOUT = 60
EXPIRY_SKEW = timedelta(seconds=10)  # refresh a little before the plugin's expiry


@dataclass
class ExecCredentials:
    """An exec plugin and what it last returned."""

    spec: dict[str, Any]
    base: Path  # the kubeconfig that named it (relative commands are resolved against it)
    cluster: dict[str, Any] = field(default_factory=dict)  # for provideClusterInfo
    token: str | None = None
    cert: bytes | None = None
    key: bytes | None = None
    expires: datetime | None = None
    runs: int = 0

    @property
    def command(self) -> str:
        return str(self.spec.get("command") or "")

    def expired(self, now: datetime | None = None) -> bool:
        if self.expires is None:
            return False
        return (now or datetime.now(UTC)) >= self.expires - EXPIRY_SKEW

    def refresh(self) -> None:
        """Run the plugin and keep its token, certificate and expiry."""
        status = self._run()
        self.runs += 1
        self.token = str(status["token"]) if status.get("token") else None
        cert, key = status.get("clientCertificateData"), status.get("clientKeyData")
        self.cert = str(cert).encode() if cert else None
        self.key = str(key).encode() if key else None
        self.expires = parse_time(status.get("expirationTimestamp"))

    def _run(self) -> dict[str, Any]:
        if not self.command:
            raise ConfigError("kubeconfig exec plugin has no command")
        env = dict(os.environ)
        for item in self.spec.get("env") or []:
            env[str(item.get("name"))] = str(item.get("value", ""))
        info: dict[str, Any] = {"interactive": False}
        if self.spec.get("provideClusterInfo"):
            info["cluster"] = self.cluster
        env["KUBERNETES_EXEC_INFO"] = json.dumps(
            {
                "apiVersion": self.spec.get("apiVersion", "client.authentication.k8s.io/v1"),
                "kind": "ExecCredential",
                "spec": info,
            }
        )
        cmd = [self.command, *[str(a) for a in self.spec.get("args") or []]]
        if "/" in cmd[0] and not Path(cmd[0]).is_absolute():
            cmd[0] = str(self.base.parent / cmd[0])
        try:
            proc = subprocess.run(
                cmd, env=env, capture_output=True, text=True, timeout=EXEC_TIMEOUT, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ConfigError(
                f"kubeconfig exec plugin {self.command!r} failed to run: {exc}"
            ) from None
        if proc.returncode != 0:
            detail = proc.stderr.strip().splitlines()[-1:] or ["no message"]
            raise ConfigError(
                f"kubeconfig exec plugin {self.command!r} exited {proc.returncode}: {detail[0]}"
            )
        try:
            status = json.loads(proc.stdout).get("status") or {}
        except (ValueError, AttributeError):
            raise ConfigError(
                f"kubeconfig exec plugin {self.command!r} printed no ExecCredential"
            ) from None
        if not isinstance(status, dict) or not (
            status.get("token") or status.get("clientCertificateData")
        ):
            raise ConfigError(
                f"kubeconfig exec plugin {self.command!r} returned neither a token nor a certificate"
            )
        return status


@dataclass
class TokenFile:
    """A bearer token read from a file, re-read when the server rejects it."""

    path: Path
    token: str = ""
    reads: int = 0
    cert: bytes | None = None  # a token file never carries a client certificate
    key: bytes | None = None

    def refresh(self) -> None:
        try:
            self.token = self.path.read_text().strip()
        except OSError:
            raise ConfigError(f"token file {self.path} is unreadable") from None
        self.reads += 1

    def expired(self, now: datetime | None = None) -> bool:
        return False


Credentials = ExecCredentials | TokenFile
