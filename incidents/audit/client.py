"""Read-only access to a Kubernetes API server.

:class:`ReadOnlyClient` is the only way kubegap lists a cluster, and it can only send GET: it has
no method for any other verb, its session refuses any other method before a byte leaves the
process, and it refuses paths of resources kubegap must never read (Secrets, logs, exec). The
connection itself (TLS, credentials, retries, timeouts) is :class:`~.session.ApiSession`'s.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from typing import Any

import httpx

from .errors import ApiError
from .errors import ConfigError
from .k8s import Obj
from .kinds import forbidden_path
from .kinds import project
from .kindspec import KindSpec
from .kubeconfig import PAGE_LIMIT
from .kubeconfig import Connection
from .session import DEFAULT_TIMEOUT
from .session import ApiSession


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
    truncated: bool = False  # stopped at the kind's max_items


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
    if forbidden_path(request.url.path):
        raise RuntimeError(f"kubegap never reads {request.url.path}")


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
        timeout: float = DEFAULT_TIMEOUT,
        page_limit: int = PAGE_LIMIT,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.server = conn.server
        self.context = conn.context
        self.page_limit = page_limit
        self._session = ApiSession(
            conn, _refuse_non_get, timeout=timeout, transport=transport, sleep=sleep
        )

    def close(self) -> None:
        self._session.close()

    def __enter__(self) -> ReadOnlyClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get(self, path: str, params: dict[str, str] | None = None) -> Any:
        """GET ``path`` and return the decoded JSON body; map HTTP errors to exceptions."""
        response = self._session.request("GET", path, params=params)
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
                    params = {"limit": str(self.page_limit)}
                    if spec.field_selector:
                        params["fieldSelector"] = spec.field_selector
                    if token:
                        params["continue"] = token
                    body = self.get(path, params)
                    pages += 1
                    for obj in body.get("items") or []:
                        items.append(project(spec.key, obj))
                    if on_page is not None:
                        on_page(pages, len(items))
                    token = (body.get("metadata") or {}).get("continue") or None
                    if token and spec.max_items is not None and len(items) >= spec.max_items:
                        return ListResult(items, pages, attempt == 1, truncated=True)
                    if not token:
                        return ListResult(items, pages, restarted=attempt == 1)
            except Gone:
                if attempt == 1 or token is None:
                    raise
        raise AssertionError("unreachable")
