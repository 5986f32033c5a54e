"""A real kube-apiserver + etcd on loopback, for kubegap's tests.

:class:`ApiServer` starts etcd (data in a temporary directory: in /dev/shm where there is one, as
etcd syncs every write to disk, about 2 s of waiting per test run on a disk) and kube-apiserver
with static token authentication, RBAC authorization, a service-account signing key and an audit
log that records every request at ``Metadata`` level. :class:`kube_client.KubeClient` talks to it.

The binaries come from ``tests/kubeapi/provision.sh`` (kube-apiserver is built once and cached
outside the clone); :func:`find_binaries` locates them.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
from collections.abc import Callable
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import httpx
import yaml
from kube_client import HarnessError
from kube_client import KubeClient

from tests.cache import cache_dir  # where provision.sh caches the build

K8S_VERSION = "1.20.2"
PROVISION_SCRIPT = "tests/kubeapi/provision.sh"
ADMIN_TOKEN = "admin-token-kubegap-tests"
KUBEGAP_USER_TOKEN = "kubegap-user-token-kubegap-tests"
KUBEGAP_USER = "kubegap"

AUDIT_POLICY = """\
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Metadata
"""


@dataclass(frozen=True)
class Binaries:
    kube_apiserver: Path
    etcd: Path


def find_binaries() -> Binaries | str:
    """The kube-apiserver and etcd to run, or a message saying what is missing and what to do."""
    apiserver = Path(
        os.environ.get("KUBEGAP_KUBE_APISERVER")
        or cache_dir() / f"kube-apiserver-{K8S_VERSION}" / "kube-apiserver"
    )
    etcd_env = os.environ.get("KUBEGAP_ETCD")
    etcd = Path(etcd_env) if etcd_env else None
    if etcd is None:
        found = shutil.which("etcd")
        etcd = Path(found) if found else None
    missing = []
    if not (apiserver.is_file() and os.access(apiserver, os.X_OK)):
        missing.append(f"kube-apiserver (looked for {apiserver})")
    if etcd is None or not (etcd.is_file() and os.access(etcd, os.X_OK)):
        missing.append("etcd (not on PATH; package etcd-server)")
    if missing:
        return (
            "real API server tests need "
            + " and ".join(missing)
            + f"; run `bash {PROVISION_SCRIPT}` (as root, builds kube-apiserver {K8S_VERSION}"
            " once, 6-20 minutes) or set KUBEGAP_KUBE_APISERVER / KUBEGAP_ETCD"
        )
    assert etcd is not None
    return Binaries(apiserver, etcd)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def generate_rsa_key(private_path: Path, public_path: Path) -> None:
    """An RSA key pair for signing service-account tokens (cryptography, else openssl CLI)."""
    try:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa
    except ImportError:
        subprocess.run(
            ["openssl", "genrsa", "-out", str(private_path), "2048"],
            check=True,
            capture_output=True,
        )
        subprocess.run(
            ["openssl", "rsa", "-in", str(private_path), "-pubout", "-out", str(public_path)],
            check=True,
            capture_output=True,
        )
        return
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption(),
        )
    )
    public_path.write_bytes(
        key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )


def write_kubeconfig(path: Path, server: str, ca_pem: bytes, user: str, token: str) -> Path:
    """A kubeconfig with one cluster, one token user and one current context."""
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": "kubeapi-test",
                "cluster": {
                    "server": server,
                    "certificate-authority-data": base64.b64encode(ca_pem).decode(),
                },
            }
        ],
        "users": [{"name": user, "user": {"token": token}}],
        "contexts": [
            {"name": f"{user}@kubeapi-test", "context": {"cluster": "kubeapi-test", "user": user}}
        ],
        "current-context": f"{user}@kubeapi-test",
    }
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    path.chmod(0o600)
    return path


def _wait_for(
    description: str,
    probe: Any,
    processes: Iterable[tuple[str, subprocess.Popen[bytes], Path]],
    timeout: float,
) -> None:
    """Poll ``probe()`` until it returns True; fail early if a process died."""
    deadline = time.monotonic() + timeout
    last_error = ""
    while time.monotonic() < deadline:
        for name, proc, log in processes:
            if proc.poll() is not None:
                tail = "\n".join(log.read_text(errors="replace").splitlines()[-40:])
                raise HarnessError(
                    f"{name} exited with {proc.returncode} before {description}:\n{tail}"
                )
        try:
            if probe():
                return
        except (httpx.HTTPError, OSError) as exc:
            last_error = repr(exc)
        time.sleep(0.1)
    raise HarnessError(
        f"timed out after {timeout:.0f} s waiting for {description}; last: {last_error}"
    )


# Free room etcd's data needs in /dev/shm (about 125 MB at start: a preallocated 64 MB log).
SHM_NEEDED_BYTES = 512 * 1024 * 1024


@dataclass
class ApiServer:
    """etcd + kube-apiserver on loopback, with everything in ``workdir``."""

    binaries: Binaries
    workdir: Path
    url: str = ""
    etcd_url: str = ""
    ca_pem: bytes = b""
    audit_log: Path = field(init=False)
    audit_offset: int = 0  # where this view's part of the audit log starts
    _procs: list[tuple[str, subprocess.Popen[bytes], Path]] = field(default_factory=list)
    _etcd_data: Path | None = None

    def __post_init__(self) -> None:
        self.audit_log = self.workdir / "audit.log"

    # -- lifecycle ------------------------------------------------------------------------
    def start(self, timeout: float = 60.0) -> ApiServer:
        self.workdir.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        # kube-apiserver is started without waiting for etcd (it connects when etcd is up):
        # writing its keys and the two start-ups overlap.
        self.etcd_url, etcd_healthy = self._start_etcd()
        apiserver_ready = self._start_apiserver(self.etcd_url)
        _wait_for("etcd to be healthy", etcd_healthy, self._procs, timeout)
        _wait_for("kube-apiserver /readyz", apiserver_ready, self._procs, timeout)
        # The self-signed serving certificate is written together with its CA.
        self.ca_pem = (self.workdir / "certs" / "apiserver.crt").read_bytes()
        self.startup_seconds = time.monotonic() - started
        return self

    def _spawn(self, name: str, argv: list[str]) -> subprocess.Popen[bytes]:
        log = self.workdir / f"{name}.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                argv,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        self._procs.append((name, proc, log))
        return proc

    def _etcd_data_dir(self) -> Path:
        """A fresh directory for etcd's data: in /dev/shm when there is one with room (a tmpfs,
        where etcd's fsync per write costs nothing; its data takes about 125 MB, more than a
        container's default /dev/shm of 64 MB holds), else in ``workdir``; removed by
        :meth:`stop`."""
        shm = Path("/dev/shm")
        if (
            shm.is_dir()
            and os.access(shm, os.W_OK)
            and shutil.disk_usage(shm).free >= SHM_NEEDED_BYTES
        ):
            self._etcd_data = Path(tempfile.mkdtemp(prefix="kubeapi-etcd-", dir=shm))
        else:
            self._etcd_data = self.workdir / "etcd-data"
        return self._etcd_data

    def _start_etcd(self) -> tuple[str, Callable[[], bool]]:
        """Start etcd; its client URL and a probe of its health."""
        client_port, peer_port = free_port(), free_port()
        client = f"http://127.0.0.1:{client_port}"
        peer = f"http://127.0.0.1:{peer_port}"
        flags = {
            "name": "kubeapi-test",
            "data-dir": str(self._etcd_data_dir()),
            "listen-client-urls": client,
            "advertise-client-urls": client,
            "listen-peer-urls": peer,
            "initial-advertise-peer-urls": peer,
            "initial-cluster": f"kubeapi-test={peer}",
            "log-level": "warn",
        }
        self._spawn("etcd", [str(self.binaries.etcd), *(f"--{k}={v}" for k, v in flags.items())])

        def healthy() -> bool:
            r = httpx.get(f"{client}/health", timeout=2)
            return r.status_code == 200 and r.json().get("health") == "true"

        return client, healthy

    def _start_apiserver(self, etcd_url: str) -> Callable[[], bool]:
        """Start kube-apiserver on ``etcd_url``; a probe of its readiness."""
        w = self.workdir
        tokens = w / "tokens.csv"
        tokens.write_text(
            f'{ADMIN_TOKEN},admin,admin-uid,"system:masters"\n'
            f"{KUBEGAP_USER_TOKEN},{KUBEGAP_USER},kubegap-uid\n"
        )
        policy = w / "audit-policy.yaml"
        policy.write_text(AUDIT_POLICY)
        sa_key, sa_pub = w / "sa.key", w / "sa.pub"
        generate_rsa_key(sa_key, sa_pub)
        cert_dir = w / "certs"
        port = free_port()
        self.url = f"https://127.0.0.1:{port}"
        flags = {
            "etcd-servers": etcd_url,
            "bind-address": "127.0.0.1",
            "advertise-address": "127.0.0.1",
            "secure-port": str(port),
            "insecure-port": "0",
            "cert-dir": str(cert_dir),
            "token-auth-file": str(tokens),
            "authorization-mode": "RBAC",
            "service-account-key-file": str(sa_pub),
            "service-account-signing-key-file": str(sa_key),
            "service-account-issuer": "https://kubernetes.default.svc",
            "service-cluster-ip-range": "10.96.0.0/24",
            "audit-policy-file": str(policy),
            "audit-log-path": str(self.audit_log),
            "audit-log-format": "json",
            "audit-log-mode": "blocking",
            # No controller-manager runs, so no "default" ServiceAccount is ever created;
            # without this, every pod would be rejected by the ServiceAccount admission.
            "disable-admission-plugins": "ServiceAccount",
            "v": "1",
        }
        argv = [str(self.binaries.kube_apiserver), *(f"--{k}={v}" for k, v in flags.items())]
        self._spawn("kube-apiserver", argv)
        crt = cert_dir / "apiserver.crt"

        def ready() -> bool:
            if not crt.exists():
                return False
            r = httpx.get(
                f"{self.url}/readyz",
                headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
                verify=False,
                timeout=2,
            )
            return r.status_code == 200

        return ready

    def stop(self, kill: bool = False) -> None:
        """Stop kube-apiserver, then etcd: gracefully (about 1 s), or at once with ``kill``."""
        for _name, proc, _log in reversed(self._procs):
            if proc.poll() is None:
                proc.kill() if kill else proc.terminate()
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=5)
        self._procs.clear()
        if self._etcd_data is not None:
            shutil.rmtree(self._etcd_data, ignore_errors=True)
            self._etcd_data = None

    def view(self, workdir: Path) -> ApiServer:
        """This running server as one test module sees it: kubeconfigs written in ``workdir``,
        the audit log read from here on. Stopping the view stops nothing."""
        view = ApiServer(self.binaries, workdir, self.url, self.etcd_url, self.ca_pem)
        view.audit_log = self.audit_log
        if self.audit_log.exists():
            # After the last whole line: a line being written belongs to what came before.
            view.audit_offset = self.audit_log.read_bytes().rfind(b"\n") + 1
        return view

    def __enter__(self) -> ApiServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def compact_etcd(self) -> int:
        """Compact etcd past every revision read so far (expires outstanding continue tokens).

        A write outside the API server's keys first moves the revision on, so the revision a
        pending continue token points at is strictly older than the compaction.
        """
        key = base64.b64encode(b"/kubeapi-test/compaction-marker").decode()
        put = httpx.post(f"{self.etcd_url}/v3/kv/put", json={"key": key, "value": key}, timeout=10)
        put.raise_for_status()
        revision = int(put.json()["header"]["revision"])
        done = httpx.post(
            f"{self.etcd_url}/v3/kv/compaction",
            json={"revision": revision, "physical": True},
            timeout=30,
        )
        done.raise_for_status()
        return revision

    # -- identities -----------------------------------------------------------------------
    def ssl_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cadata=self.ca_pem.decode())

    def client(self, token: str = ADMIN_TOKEN) -> KubeClient:
        return KubeClient(self.url, token, self.ssl_context())

    def kubeconfig(self, name: str, user: str, token: str) -> Path:
        return write_kubeconfig(
            self.workdir / f"{name}.kubeconfig", self.url, self.ca_pem, user, token
        )

    def audit_events(self) -> list[dict[str, Any]]:
        """Every event the API server has written to its audit log so far (for a view, since
        the view was taken)."""
        if not self.audit_log.exists():
            return []
        with self.audit_log.open("rb") as log:
            log.seek(self.audit_offset)
            text = log.read().decode()
        return [json.loads(line) for line in text.splitlines() if line]


@dataclass(frozen=True)
class KubegapIdentity:
    """An identity kubegap runs as (e.g. the shipped ServiceAccount), with its kubeconfig."""

    username: str  # as the API server's audit log records it
    token: str
    kubeconfig: Path
