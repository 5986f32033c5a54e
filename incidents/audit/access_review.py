"""``--preflight``: ask the API server, before collecting, which kinds this identity may list.

This is the only code in kubegap that sends anything but GET: a SelfSubjectAccessReview is a
``create`` on a virtual resource that stores nothing. It runs only when ``--preflight`` is given;
it goes through the same session as every other request (TLS, credentials, user agent,
timeouts), whose guard here refuses every request but a POST to the review endpoint.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from .errors import ConfigError
from .kindspec import KindSpec
from .kubeconfig import Connection
from .session import DEFAULT_TIMEOUT
from .session import ApiSession

REVIEW_PATH = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"


def _only_reviews(request: httpx.Request) -> None:
    if request.method != "POST" or request.url.path != REVIEW_PATH:
        raise RuntimeError(f"preflight client refused {request.method} {request.url.path}")


@dataclass(frozen=True)
class Access:
    kind: str
    verb: str
    allowed: bool
    reason: str


def review(
    conn: Connection,
    specs: list[KindSpec],
    namespace: str | None = None,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    transport: httpx.BaseTransport | None = None,
) -> list[Access]:
    """Whether the identity may ``list`` each kind (cluster-wide, or in ``namespace``)."""
    out: list[Access] = []
    session = ApiSession(conn, _only_reviews, timeout=timeout, transport=transport)
    try:
        for spec in specs:
            attrs: dict[str, str] = {"verb": "list", "group": spec.group, "resource": spec.resource}
            if namespace and spec.namespaced:
                attrs["namespace"] = namespace
            body = {
                "apiVersion": "authorization.k8s.io/v1",
                "kind": "SelfSubjectAccessReview",
                "spec": {"resourceAttributes": attrs},
            }
            response = session.request("POST", REVIEW_PATH, json=body)
            if response.status_code == 401:
                raise ConfigError(f"the API server at {conn.server} rejected the credentials (401)")
            if response.status_code not in (200, 201):
                out.append(
                    Access(spec.key, "list", False, f"review failed: HTTP {response.status_code}")
                )
                continue
            status = response.json().get("status") or {}
            out.append(
                Access(spec.key, "list", bool(status.get("allowed")), str(status.get("reason", "")))
            )
    finally:
        session.close()
    return out
