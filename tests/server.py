"""A real production server for tests and benchmarks: gunicorn with the production settings.

`production_env()` is site/env.example with a fresh secret and the given database; `Gunicorn`
collects the static files, starts gunicorn as `make serve` does (same config module) and waits for
/healthz. `TcpProxy` stands between the server and PostgreSQL so a test can take the database away
(refusing and dropping connections) and bring it back.
"""

from __future__ import annotations

import os
import secrets
import select
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType

REPO_ROOT = Path(__file__).resolve().parent.parent
ENV_EXAMPLE = REPO_ROOT / "site" / "env.example"
BIN = Path(sys.executable).parent


def env_example() -> dict[str, str]:
    """The variables site/env.example sets."""
    values: dict[str, str] = {}
    for line in ENV_EXAMPLE.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, value = line.partition("=")
            values[name.strip()] = value.strip()
    return values


def base_env() -> dict[str, str]:
    """The process environment without the test settings and database of this test run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL"))}
    for name in env_example():
        env.pop(name, None)
    return env


def production_env(database_url: str, static_root: Path, **overrides: str) -> dict[str, str]:
    """site/env.example as an operator fills it in: a real secret, this machine, this database."""
    env = base_env() | env_example()
    env |= {
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": database_url,
        "STATIC_ROOT": str(static_root),
        "CSRF_TRUSTED_ORIGINS": "https://127.0.0.1",
        "DB_CONNECT_TIMEOUT": "2",
    }
    return env | overrides


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


def get(url: str, headers: dict[str, str] | None = None, timeout: float = 15) -> tuple[int, bytes]:
    """Status and body of a GET, errors and redirects included (not followed)."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


class Gunicorn:
    """gunicorn serving the app with `env`, started on enter and stopped on exit."""

    def __init__(self, env: dict[str, str], *, workers: int = 2, threads: int = 4) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = env | {
            "GUNICORN_BIND": f"127.0.0.1:{self.port}",
            "GUNICORN_WORKERS": str(workers),
            "GUNICORN_THREADS": str(threads),
            "GUNICORN_ACCESSLOG": "",
            "PYTHONPATH": str(REPO_ROOT),
        }
        self.process: subprocess.Popen[bytes] | None = None
        self.log = b""

    def manage(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=REPO_ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        )

    def __enter__(self) -> Gunicorn:
        if not (Path(self.env["STATIC_ROOT"]) / "staticfiles.json").exists():
            self.manage("collectstatic", "--no-input", "--verbosity", "0")
        self.process = subprocess.Popen(
            [str(BIN / "gunicorn"), "--config", "python:incidents.config.gunicorn"],
            cwd=REPO_ROOT,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited: {self.process.stdout.read()!r}")  # type: ignore[union-attr]
            try:
                if get(f"{self.url}/healthz", timeout=2)[0] == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.05)
        self.__exit__(None, None, None)
        raise RuntimeError("gunicorn did not answer /healthz within 30 s")

    def worker_pids(self) -> list[int]:
        assert self.process is not None
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return [int(pid) for pid in children.read_text().split()]

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                out, _ = self.process.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                out, _ = self.process.communicate()
            self.log = out or b""


class TcpProxy:
    """Forwards 127.0.0.1:<port> to a target; `stop()` refuses and drops, `start()` restores."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = free_port()
        self._listener: socket.socket | None = None
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()

    def start(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def stop(self) -> None:
        """The database goes away: no new connection is accepted, open ones are cut."""
        if self._listener is not None:
            # shutdown() wakes the thread blocked in accept(); close() alone leaves it listening.
            try:
                self._listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._listener.close()
            self._listener = None
        with self._lock:
            for sock in self._sockets:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()
            self._sockets.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets += [client, upstream]
            threading.Thread(target=self._pipe, args=(client, upstream), daemon=True).start()

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        pair = {a: b, b: a}
        try:
            while True:
                readable, _, _ = select.select(list(pair), [], [], 1)
                for sock in readable:
                    data = sock.recv(65536)
                    if not data:
                        return
                    pair[sock].sendall(data)
        except (OSError, ValueError):
            return
        finally:
            a.close()
            b.close()
