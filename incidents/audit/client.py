"""Read-only access to a Kubernetes API server.

:class:`ReadOnlyClient` is the only way kubegap talks to a cluster, and it can only send GET: it
has no method for any other verb, its transport refuses any other method before a byte leaves the
process, and it refuses paths of resources kubegap must never read (Secrets, logs, exec).
"""

from __future__ import annotations

import os
import ssl
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from .errors import ApiError, ConfigError
from .kinds import FORBIDDEN_SEGMENTS, KindSpec
from .kubeconfig import Connection
from .projection import Obj, project

PAGE_LIMIT = 500


class Forbidden(ApiError):
    """403: the identity may not list this kind."""


class NotFound(ApiError):
    """404: the path does not exist (e.g. a CRD that is not installed)."""


class Gone(ApiError):
    """410: the continue token expired."""


@dataclass
class ListResult:
    """A full (all pages) list of one kind, already projected."""

    items: list[Obj]
    pages: int
    restarted: bool = False


@dataclass
class Discovery:
    """What the server serves: (group, version) -> resource names that support list."""

    resources: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    failed: dict[tuple[str, str], str] = field(default_factory=dict)
    # kind key -> other versions of its group that serve it (none of the versions kubegap reads):
    # installed, so not "absent", but unreadable by this kubegap.
    unsupported: dict[str, list[str]] = field(default_factory=dict)

    def version_for(self, spec: KindSpec) -> str | None:
        for version in spec.versions:
            if spec.resource in self.resources.get((spec.group, version), set()):
                return version
        return None


def _status_message(response: httpx.Response) -> str:
    """The ``message`` of a Kubernetes Status body, or the start of the body."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:200]
    if isinstance(body, dict) and body.get("message"):
        return str(body["message"])[:300]
    return response.text[:200]


def _refuse_non_get(request: httpx.Request) -> None:
    if request.method != "GET":
        raise RuntimeError(f"kubegap is read-only: refused {request.method} {request.url.path}")
    segments = set(request.url.path.strip("/").split("/"))
    if segments & FORBIDDEN_SEGMENTS:
        raise RuntimeError(f"kubegap never reads {request.url.path}")


def _ssl_context(conn: Connection) -> ssl.SSLContext | bool:
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
    try:
        if conn.client_cert_file:
            ctx.load_cert_chain(conn.client_cert_file, conn.client_key_file)
        elif conn.client_cert_data:
            _load_cert_data(ctx, conn.client_cert_data, conn.client_key_data or b"")
    except (ssl.SSLError, OSError) as exc:
        raise ConfigError(f"cannot load the client certificate or key: {exc}") from None
    return ctx


def _load_cert_data(ctx: ssl.SSLContext, cert: bytes, key: bytes) -> None:
    # ssl only loads certificates from files: write them to a private temp dir, load, delete.
    with tempfile.TemporaryDirectory(prefix="kubegap-") as tmp:
        cert_path, key_path = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
        for path, data in ((cert_path, cert), (key_path, key)):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
        ctx.load_cert_chain(cert_path, key_path if key else None)


def _listable(listing: Any) -> set[str]:
    return {
        str(r["name"])
        for r in listing.get("resources") or []
        if "list" in (r.get("verbs") or []) and "/" not in str(r.get("name"))
    }


class ReadOnlyClient:
    """GET-only HTTP access to one API server. There is deliberately no other verb here."""

    def __init__(
        self,
        conn: Connection,
        *,
        timeout: float = 60.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        headers = {"Accept": "application/json", "User-Agent": "kubegap (read-only audit)"}
        headers.update(conn.extra_headers)
        auth: tuple[str, str] | None = None
        if conn.token:
            headers["Authorization"] = f"Bearer {conn.token}"
        elif conn.username is not None and conn.password is not None:
            auth = (conn.username, conn.password)
        verify = _ssl_context(conn)
        self.server = conn.server
        self.context = conn.context
        self._http = httpx.Client(
            base_url=conn.server,
            headers=headers,
            auth=auth,
            verify=verify,
            timeout=timeout,
            transport=transport,
            event_hooks={"request": [_refuse_non_get]},
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> ReadOnlyClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get(self, path: str, params: dict[str, str] | None = None) -> Any:
        """GET ``path`` and return the decoded JSON body; map HTTP errors to exceptions."""
        try:
            response = self._http.request("GET", path, params=params)
        except httpx.TransportError as exc:
            raise ConfigError(f"cannot reach the API server at {self.server}: {exc}") from None
        status = response.status_code
        if status == 200:
            try:
                return response.json()
            except ValueError:
                raise ApiError(f"GET {path}: response is not JSON", status) from None
        message = _status_message(response)
        if status == 401:
            raise ConfigError(f"the API server at {self.server} rejected the credentials (401)")
        if status == 403:
            raise Forbidden(f"GET {path}: forbidden: {message}", status)
        if status == 404:
            raise NotFound(f"GET {path}: not found", status)
        if status == 410:
            raise Gone(f"GET {path}: continue token expired", status)
        raise ApiError(f"GET {path}: HTTP {status}: {message}", status)

    def server_version(self) -> dict[str, str]:
        data = self.get("/version")
        keys = ("gitVersion", "major", "minor", "platform")
        return {k: str(data[k]) for k in keys if k in data}

    def discover(self, specs: list[KindSpec]) -> Discovery:
        """Which of ``specs`` the server serves, asking only about the group versions needed."""
        disc = Discovery()
        core = self.get("/api")
        served: dict[str, set[str]] = {"": set(core.get("versions") or [])}
        try:
            groups = self.get("/apis")
        except NotFound:
            groups = {}
        for group in groups.get("groups") or []:
            served[str(group.get("name"))] = {str(v.get("version")) for v in group["versions"]}
        for spec in specs:
            for version in spec.versions:
                key = (spec.group, version)
                if version not in served.get(spec.group, set()) or key in disc.resources:
                    continue
                path = f"/apis/{spec.group}/{version}" if spec.group else f"/api/{version}"
                try:
                    listing = self.get(path)
                except (NotFound, Forbidden, ApiError) as exc:
                    disc.failed[key] = str(exc)
                    continue
                disc.resources[key] = _listable(listing)
        for spec in specs:
            others = sorted(served.get(spec.group, set()) - set(spec.versions))
            if disc.version_for(spec) is not None or not others or not spec.group:
                continue
            for version in others:
                key = (spec.group, version)
                if key not in disc.resources:
                    try:
                        disc.resources[key] = _listable(self.get(f"/apis/{spec.group}/{version}"))
                    except (NotFound, Forbidden, ApiError):
                        continue  # a version kubegap does not read anyway
                if spec.resource in disc.resources.get(key, set()):
                    disc.unsupported.setdefault(spec.key, []).append(version)
        return disc

    def list_kind(
        self,
        spec: KindSpec,
        version: str,
        namespace: str | None = None,
        on_page: Callable[[int, int], None] | None = None,
    ) -> ListResult:
        """All objects of one kind, paged (limit/continue), projected page by page.

        An expired continue token (410 Gone) restarts the list from scratch, once.
        """
        path = spec.list_path(version, namespace)
        for attempt in (0, 1):
            items: list[Obj] = []
            pages = 0
            token: str | None = None
            try:
                while True:
                    params = {"limit": str(PAGE_LIMIT)}
                    if token:
                        params["continue"] = token
                    body = self.get(path, params)
                    pages += 1
                    for obj in body.get("items") or []:
                        items.append(project(spec.key, obj))
                    if on_page is not None:
                        on_page(pages, len(items))
                    token = (body.get("metadata") or {}).get("continue") or None
                    if not token:
                        return ListResult(items, pages, restarted=attempt == 1)
            except Gone:
                if attempt == 1 or token is None:
                    raise
        raise AssertionError("unreachable")
