"""A minimal Kubernetes client for setting up test clusters, and the audit log's events.

:class:`KubeClient` creates objects as the admin (create, patch ``/status``, apply manifests),
resolving kinds through the server's own discovery documents. :mod:`kubeapi_harness` runs the
server it talks to.
"""

from __future__ import annotations

import json
import ssl
import time
from collections.abc import Iterable
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import yaml


class HarnessError(RuntimeError):
    """The API server or etcd could not be started or did not become ready."""


class ApiError(RuntimeError):
    def __init__(self, method: str, path: str, response: httpx.Response) -> None:
        self.status_code = response.status_code
        super().__init__(f"{method} {path} -> {response.status_code}: {response.text[:500]}")


@dataclass(frozen=True)
class Resource:
    group_version: str
    plural: str
    namespaced: bool

    def path(self, namespace: str | None = None, name: str | None = None) -> str:
        prefix = "/api/" if "/" not in self.group_version else "/apis/"
        parts = [prefix + self.group_version]
        if self.namespaced:
            if namespace is None:
                raise ValueError(f"{self.plural} is namespaced: a namespace is required")
            parts.append(f"namespaces/{namespace}")
        parts.append(self.plural)
        if name:
            parts.append(name)
        return "/".join(parts)


class KubeClient:
    """Just enough of a Kubernetes client to build test clusters (any verb, any kind)."""

    def __init__(self, url: str, token: str, verify: ssl.SSLContext) -> None:
        self._http = httpx.Client(
            base_url=url, headers={"Authorization": f"Bearer {token}"}, verify=verify, timeout=30
        )
        self._resources: dict[tuple[str, str], Resource] = {}

    def close(self) -> None:
        self._http.close()

    def request(
        self, method: str, path: str, body: Any = None, content_type: str = "application/json"
    ) -> httpx.Response:
        content = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": content_type} if body is not None else {}
        return self._http.request(method, path, content=content, headers=headers)

    def call(self, method: str, path: str, body: Any = None, **kw: Any) -> dict[str, Any]:
        r = self.request(method, path, body, **kw)
        if r.status_code >= 400:
            raise ApiError(method, path, r)
        result: dict[str, Any] = r.json()
        return result

    def get(self, path: str) -> dict[str, Any]:
        return self.call("GET", path)

    # -- discovery ------------------------------------------------------------------------
    def resource(self, api_version: str, kind: str) -> Resource:
        """The plural and scope of ``kind`` in ``api_version``, from the server's discovery."""
        key = (api_version, kind)
        if key not in self._resources:
            prefix = "/api/" if "/" not in api_version else "/apis/"
            doc = self.get(prefix + api_version)
            for res in doc["resources"]:
                if "/" not in res["name"]:
                    self._resources[(api_version, res["kind"])] = Resource(
                        api_version, res["name"], res["namespaced"]
                    )
            if key not in self._resources:
                raise LookupError(f"the API server does not serve {kind} in {api_version}")
        return self._resources[key]

    def served(self, api_version: str, kind: str) -> bool:
        try:
            self.resource(api_version, kind)
        except (LookupError, ApiError):
            return False
        return True

    # -- writes ---------------------------------------------------------------------------
    def create(self, obj: dict[str, Any]) -> dict[str, Any]:
        """POST ``obj``; if it carries a ``status``, PUT that through the /status subresource."""
        res = self.resource(obj["apiVersion"], obj["kind"])
        ns = obj["metadata"].get("namespace") if res.namespaced else None
        if res.namespaced and ns is None:
            ns = "default"
        status = obj.get("status")
        created = self.call("POST", res.path(ns), obj)
        if obj["kind"] == "CustomResourceDefinition":
            self._wait_established(created["metadata"]["name"])
        if status:
            created = self.patch_status(obj, status)
        return created

    def create_all(self, objs: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        return [self.create(o) for o in objs]

    def patch_status(self, obj: dict[str, Any], status: dict[str, Any]) -> dict[str, Any]:
        res = self.resource(obj["apiVersion"], obj["kind"])
        ns = obj["metadata"].get("namespace", "default") if res.namespaced else None
        path = res.path(ns, obj["metadata"]["name"]) + "/status"
        return self.call(
            "PATCH", path, {"status": status}, content_type="application/merge-patch+json"
        )

    def delete(self, obj: dict[str, Any]) -> None:
        res = self.resource(obj["apiVersion"], obj["kind"])
        ns = obj["metadata"].get("namespace", "default") if res.namespaced else None
        self.call("DELETE", res.path(ns, obj["metadata"]["name"]))

    def _wait_established(self, name: str, timeout: float = 30) -> None:
        path = f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            conditions = (self.get(path).get("status") or {}).get("conditions") or []
            if any(c["type"] == "Established" and c["status"] == "True" for c in conditions):
                # Discovery for the new group is served a moment after Established.
                group_version = self._crd_group_version(name)
                if (
                    group_version
                    and self.request("GET", "/apis/" + group_version).status_code == 200
                ):
                    return
            time.sleep(0.02)
        raise HarnessError(f"CRD {name} not established after {timeout} s")

    def _crd_group_version(self, name: str) -> str | None:
        crd = self.get(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}")
        for v in crd["spec"]["versions"]:
            if v.get("served"):
                return f"{crd['spec']['group']}/{v['name']}"
        return None


def load_manifest(path: Path) -> list[dict[str, Any]]:
    """The objects of a multi-document YAML manifest (empty documents dropped)."""
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc]


def iter_audit_requests(
    events: Iterable[dict[str, Any]], username: str
) -> Iterator[dict[str, Any]]:
    """Audit events (ResponseComplete/Panic stage) made by ``username``."""
    for ev in events:
        if ev.get("user", {}).get("username") == username and ev.get("stage") != "RequestReceived":
            yield ev
