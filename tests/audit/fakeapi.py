"""A small fake Kubernetes API server over real HTTP(S), for client and CLI tests.

It serves discovery (/version, /api, /apis, /api/v1, /apis/<g>/<v>) and list endpoints with
limit/continue paging, can answer 403 for chosen resources, 410 Gone for the first continue
token, 401 without the right bearer token, and records every request (method, path, query).
"""

from __future__ import annotations

import json
import ssl
import threading
from dataclasses import dataclass
from dataclasses import field
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs
from urllib.parse import urlparse

from incidents.audit.kinds import KINDS
from incidents.audit.kinds import spec_for_object


@dataclass
class FakeCluster:
    objects: list[dict[str, Any]] = field(default_factory=list)
    forbidden: set[str] = field(default_factory=set)  # kind keys answering 403
    absent: set[str] = field(default_factory=set)  # kind keys not served (CRD not installed)
    unserved: set[tuple[str, str]] = field(default_factory=set)  # (kind key, version), 1.20-style
    gone_once: set[str] = field(default_factory=set)  # kind keys whose first continue gets 410
    served_as: dict[str, str] = field(default_factory=dict)  # kind key -> the only version served
    token: str | None = None
    git_version: str = "v1.20.2"
    requests: list[tuple[str, str, dict[str, list[str]]]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)  # of each request, in order
    # Answers to give before serving normally: (status, extra headers) per request, in order.
    replies: list[tuple[int, dict[str, str]]] = field(default_factory=list)

    def items(self, key: str, namespace: str | None) -> list[dict[str, Any]]:
        out = []
        for obj in self.objects:
            spec = spec_for_object(obj["apiVersion"], obj["kind"])
            if spec is not None and spec.key == key:
                if namespace is None or obj["metadata"].get("namespace") == namespace:
                    out.append(obj)
        return sorted(
            out, key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"])
        )

    def served(self) -> dict[tuple[str, str], list[str]]:
        groups: dict[tuple[str, str], list[str]] = {}
        for spec in KINDS.values():
            if spec.key in self.absent:
                continue
            if spec.key in self.served_as:
                groups.setdefault((spec.group, self.served_as[spec.key]), []).append(spec.resource)
                continue
            for version in spec.versions:
                if (spec.key, version) in self.unserved:
                    continue
                groups.setdefault((spec.group, version), []).append(spec.resource)
                break
        return groups


class _Handler(BaseHTTPRequestHandler):
    cluster: FakeCluster

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _status(self, code: int, reason: str, message: str) -> None:
        self._send(
            code,
            {
                "kind": "Status",
                "apiVersion": "v1",
                "status": "Failure",
                "reason": reason,
                "message": message,
                "code": code,
            },
        )

    def _record_headers(self) -> None:
        self.cluster.headers.append({k.lower(): v for k, v in self.headers.items()})

    def _authorized(self) -> bool:
        c = self.cluster
        if c.token and self.headers.get("Authorization") != f"Bearer {c.token}":
            self._status(401, "Unauthorized", "Unauthorized")
            return False
        return True

    def _scripted_reply(self) -> bool:
        if not self.cluster.replies:
            return False
        code, extra = self.cluster.replies.pop(0)
        data = json.dumps({"kind": "Status", "code": code, "message": "scripted"}).encode()
        self.send_response(code)
        for k, v in extra.items():
            self.send_header(k, v)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        return True

    def do_POST(self) -> None:  # noqa: N802
        self._record_headers()
        path = urlparse(self.path).path
        if path != "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews":
            self._reject()
            return
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        self.cluster.requests.append(("POST", path, {}))
        if not self._authorized():
            return
        attrs = body["spec"]["resourceAttributes"]
        key = attrs["resource"] + (f".{attrs['group']}" if attrs["group"] else "")
        allowed = key not in self.cluster.forbidden
        self._send(
            201, {**body, "status": {"allowed": allowed, "reason": "" if allowed else "no rule"}}
        )

    def do_PUT(self) -> None:  # noqa: N802
        self._reject()

    def do_PATCH(self) -> None:  # noqa: N802
        self._reject()

    def do_DELETE(self) -> None:  # noqa: N802
        self._reject()

    def _reject(self) -> None:
        self.cluster.requests.append((self.command, self.path, {}))
        self._status(405, "MethodNotAllowed", "fake API server is read-only")

    def do_GET(self) -> None:  # noqa: N802
        url = urlparse(self.path)
        query = parse_qs(url.query)
        c = self.cluster
        c.requests.append(("GET", url.path, query))
        self._record_headers()
        if self._scripted_reply() or not self._authorized():
            return
        parts = url.path.strip("/").split("/")
        served = c.served()
        if url.path == "/version":
            major, minor = c.git_version.lstrip("v").split(".")[:2]
            self._send(200, {"gitVersion": c.git_version, "major": major, "minor": minor})
        elif url.path == "/api":
            self._send(200, {"kind": "APIVersions", "versions": ["v1"]})
        elif url.path == "/apis":
            groups: dict[str, list[str]] = {}
            for g, v in served:
                if g:
                    groups.setdefault(g, []).append(v)
            self._send(
                200,
                {
                    "kind": "APIGroupList",
                    "groups": [
                        {
                            "name": g,
                            "versions": [{"groupVersion": f"{g}/{v}", "version": v} for v in vs],
                        }
                        for g, vs in sorted(groups.items())
                    ],
                },
            )
        elif (parts[0] == "api" and len(parts) == 2) or (parts[0] == "apis" and len(parts) == 3):
            group, version = ("", parts[1]) if parts[0] == "api" else (parts[1], parts[2])
            if (group, version) not in served:
                self._status(404, "NotFound", "not found")
                return
            resources = [
                {"name": r, "namespaced": True, "kind": "X", "verbs": ["get", "list", "watch"]}
                for r in served[(group, version)]
            ]
            resources.append(
                {"name": "pods/log", "namespaced": True, "kind": "Pod", "verbs": ["get"]}
            )
            self._send(200, {"kind": "APIResourceList", "resources": resources})
        else:
            self._list(parts, query, served)

    def _list(
        self,
        parts: list[str],
        query: dict[str, list[str]],
        served: dict[tuple[str, str], list[str]],
    ) -> None:
        c = self.cluster
        if parts[0] == "api":
            group, version, rest = "", parts[1], parts[2:]
        else:
            group, version, rest = parts[1], parts[2], parts[3:]
        namespace = None
        if len(rest) == 3 and rest[0] == "namespaces":
            namespace, rest = rest[1], rest[2:]
        if len(rest) != 1 or rest[0] not in served.get((group, version), []):
            self._status(404, "NotFound", "the server could not find the requested resource")
            return
        key = rest[0] if not group else f"{rest[0]}.{group}"
        if key in c.forbidden:
            self._status(403, "Forbidden", f'{rest[0]} is forbidden: User "kubegap" cannot list')
            return
        token = (query.get("continue") or [""])[0]
        if token and key in c.gone_once:
            c.gone_once.discard(key)
            self._status(410, "Expired", "The provided continue parameter is too old")
            return
        limit = int((query.get("limit") or ["0"])[0]) or 10**9
        start = int(token) if token else 0
        items = c.items(key, namespace)
        page = items[start : start + limit]
        meta: dict[str, Any] = {"resourceVersion": "1"}
        if start + limit < len(items):
            meta["continue"] = str(start + limit)
        self._send(200, {"kind": "List", "apiVersion": "v1", "metadata": meta, "items": page})


class FakeApiServer:
    """Runs a FakeCluster on 127.0.0.1 in a thread (HTTPS when given a cert and key)."""

    def __init__(
        self, cluster: FakeCluster, certfile: str | None = None, keyfile: str | None = None
    ):
        handler = type("Handler", (_Handler,), {"cluster": cluster})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        scheme = "http"
        if certfile:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(certfile, keyfile)
            self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
            scheme = "https"
        self.url = f"{scheme}://127.0.0.1:{self.httpd.server_address[1]}"
        # shutdown() waits for the loop to look at its flag: every 20 ms, not every 0.5 s (the
        # default, a quarter of a second lost per server on average; there are about 25).
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def __enter__(self) -> FakeApiServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
