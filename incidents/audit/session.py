"""The one HTTP session to an API server that every kubegap request goes through.

It applies the connection as kubectl would (CA, client certificate, ``tls-server-name``, bearer
token or basic auth, exec-plugin and token-file credentials refreshed on expiry and on 401), sends
kubegap's user agent, bounds every request with ``--timeout``, and retries 429 and 5xx answers
with backoff, honouring ``Retry-After``, a bounded number of times. A ``guard`` hook sees every
request before a byte leaves the process: the read-only client refuses anything but GET, the
access-review client anything but its one POST.
"""

from __future__ import annotations

import email.utils
import os
import ssl
import tempfile
import time
from collections.abc import Callable
from datetime import UTC
from datetime import datetime
from typing import Any

import httpx

from . import __version__
from .errors import ConfigError
from .kubeconfig import DEFAULT_TIMEOUT
from .kubeconfig import Connection

USER_AGENT = f"kubegap/{__version__} (read-only audit)"
CONNECT_TIMEOUT = 10.0
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_RETRIES = 4
MAX_DELAY = 10.0  # longest single wait, whatever Retry-After asks
MAX_TOTAL_DELAY = 30.0


def _load_cert_data(ctx: ssl.SSLContext, cert: bytes, key: bytes) -> None:
    # ssl only loads certificates from files: write them to a private temp dir, load, delete.
    with tempfile.TemporaryDirectory(prefix="kubegap-") as tmp:
        cert_path, key_path = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
        for path, data in ((cert_path, cert), (key_path, key)):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
        ctx.load_cert_chain(cert_path, key_path if key else None)


def ssl_context(conn: Connection) -> ssl.SSLContext | bool:
    """The TLS context for ``conn``: its CA, its client certificate (from exec too), or no TLS."""
    if not conn.server.startswith("https://"):
        return False
    if conn.insecure:
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    else:
        try:
            ctx = ssl.create_default_context(cafile=conn.ca_file, cadata=conn.ca_data)
        except (ssl.SSLError, OSError) as exc:
            raise ConfigError(f"cannot load the cluster CA certificate: {exc}") from None
    creds = conn.credentials
    cert, key = (
        (creds.cert, creds.key)
        if creds and creds.cert
        else (conn.client_cert_data, conn.client_key_data)
    )
    try:
        if conn.client_cert_file and not (creds and creds.cert):
            ctx.load_cert_chain(conn.client_cert_file, conn.client_key_file)
        elif cert:
            _load_cert_data(ctx, cert, key or b"")
    except (ssl.SSLError, OSError) as exc:
        raise ConfigError(f"cannot load the client certificate or key: {exc}") from None
    return ctx


def retry_after(response: httpx.Response) -> float | None:
    """Seconds the server asks to wait (``Retry-After``: seconds or an HTTP date), if it says."""
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


class ApiSession:
    """HTTP to one API server with kubectl's view of the connection (see the module docstring)."""

    def __init__(
        self,
        conn: Connection,
        guard: Callable[[httpx.Request], None],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.conn = conn
        self.server = conn.server
        self.timeout = timeout
        self._guard = guard
        self._transport = transport
        self._sleep = sleep
        self._extensions = {"sni_hostname": conn.tls_server_name} if conn.tls_server_name else {}
        self._cert = self._current_cert()
        self.http = self._client()

    def _current_cert(self) -> bytes | None:
        return self.conn.credentials.cert if self.conn.credentials else None

    def _client(self) -> httpx.Client:
        headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        headers.update(self.conn.extra_headers)
        auth = None
        if self.conn.username is not None and self.conn.password is not None and not self._token():
            auth = (self.conn.username, self.conn.password)
        return httpx.Client(
            base_url=self.conn.server,
            headers=headers,
            auth=auth,
            verify=ssl_context(self.conn),
            timeout=httpx.Timeout(self.timeout, connect=min(self.timeout, CONNECT_TIMEOUT)),
            transport=self._transport,
            event_hooks={"request": [self._guard]},
        )

    def _token(self) -> str | None:
        creds = self.conn.credentials
        if creds is not None and creds.token:
            return creds.token
        return self.conn.token

    def _renew(self) -> None:
        """Fetch fresh credentials; rebuild the client when the client certificate changed."""
        assert self.conn.credentials is not None
        self.conn.credentials.refresh()
        if self._current_cert() != self._cert:
            self._cert = self._current_cert()
            self.http.close()
            self.http = self._client()

    def close(self) -> None:
        self.http.close()

    def request(
        self, method: str, path: str, *, params: dict[str, str] | None = None, json: Any = None
    ) -> httpx.Response:
        """Send one request; retry 429/5xx with backoff; map transport failures to ConfigError."""
        renewed = False
        waited = 0.0
        attempt = 0
        while True:
            creds = self.conn.credentials
            if creds is not None and creds.expired():
                self._renew()
            token = self._token()
            headers = {"Authorization": f"Bearer {token}"} if token else None
            try:
                response = self.http.request(
                    method,
                    path,
                    params=params,
                    json=json,
                    headers=headers,
                    extensions=self._extensions,
                )
            except httpx.TimeoutException as exc:
                phase = "connect" if isinstance(exc, httpx.ConnectTimeout) else "read"
                limit = min(self.timeout, CONNECT_TIMEOUT) if phase == "connect" else self.timeout
                raise ConfigError(
                    f"the API server at {self.server} did not answer within {limit:g} s "
                    f"({phase} timeout; --timeout sets it)"
                ) from None
            except httpx.TransportError as exc:
                raise ConfigError(f"cannot reach the API server at {self.server}: {exc}") from None
            if response.status_code == 401 and creds is not None and not renewed:
                renewed = True
                self._renew()
                continue
            if response.status_code in RETRY_STATUSES and attempt < MAX_RETRIES:
                delay = min(retry_after(response) or 0.5 * 2**attempt, MAX_DELAY)
                if waited + delay <= MAX_TOTAL_DELAY:
                    self._sleep(delay)
                    waited += delay
                    attempt += 1
                    continue
            return response
