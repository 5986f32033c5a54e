"""The MCP server, driven in-process with mcp 2.x's Client.

mcp (and the server module, which imports it) is imported when a test runs, not when the module
is collected: the import costs about half a second of CPU, and every pytest-xdist worker collects
this module while only one runs it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import anyio
import pytest

from .conftest import FIXTURES
from .fakeapi import FakeApiServer
from .fakeapi import FakeCluster

if TYPE_CHECKING:
    from mcp import Client

UNREACHABLE = "http://127.0.0.1:9"
SNAPSHOTS = Path(__file__).resolve().parents[2] / "fixtures" / "snapshots"


def _client(target: Any) -> Client:
    """mcp's Client on a server built here (or on stdio parameters)."""
    from mcp import Client

    from incidents.audit.mcp_server import build_server

    return Client(build_server(target) if isinstance(target, str) else target)


def _call(tool: str, args: dict[str, Any]) -> Any:
    async def go() -> Any:
        async with _client(UNREACHABLE) as client:
            result = await client.call_tool(tool, args)
            assert not result.is_error, result
            if result.structured_content is not None:
                content = result.structured_content
                return content.get("result", content)
            return json.loads(result.content[0].text)

    return anyio.run(go)


def _error(tool: str, args: dict[str, Any]) -> str:
    """The message of a call that must fail as a tool error (``isError: true``)."""

    async def go() -> str:
        async with _client(UNREACHABLE) as client:
            result = await client.call_tool(tool, args)
            assert result.is_error, result
            return str(result.content[0].text)

    return anyio.run(go)


def test_tools_are_listed() -> None:
    async def go() -> set[str]:
        async with _client(UNREACHABLE) as client:
            return {t.name for t in (await client.list_tools()).tools}

    assert anyio.run(go) == {"list_checks", "explain_check", "audit", "search_cases"}


def test_list_and_explain() -> None:
    checks = _call("list_checks", {})
    assert len(checks) >= 20 and all(c["cases"] for c in checks)
    doc = _call("explain_check", {"check_id": "job-002"})
    assert doc["id"] == "JOB-002" and doc["rbac"]
    assert doc["cases"][0]["library_url"].startswith(UNREACHABLE)


def test_audit_of_a_snapshot_is_bounded() -> None:
    path = str(FIXTURES / "GPU-003/fail-fewer-than-pool-peers.yaml")
    doc = _call("audit", {"snapshot": path, "top": 1})
    assert doc["summary"]["exit_code"] == 1
    assert len(doc["top_findings"]) == 1 and doc["truncated"] >= 1
    assert doc["top_findings"][0]["severity"] in ("critical", "high")
    assert "cannot read snapshot" in _error("audit", {"snapshot": "/nonexistent.json"})


def test_a_tool_that_cannot_answer_is_a_tool_error() -> None:
    """An agent that checks ``isError`` must not read a refused call as an answer."""
    assert "unknown check id 'NOPE-1'" in _error("explain_check", {"check_id": "NOPE-1"})
    path = str(FIXTURES / "GPU-003/fail-fewer-than-pool-peers.yaml")
    assert "fail_on must be one of" in _error("audit", {"snapshot": path, "fail_on": "bogus"})


def test_audit_names_every_failing_check_beyond_the_top_findings() -> None:
    """The top findings may all be one check's; failing_checks counts every failing check."""
    path = str(SNAPSHOTS / "demo-broken-gpu-cluster.json")
    doc = _call("audit", {"snapshot": path, "top": 1})
    failing = {c["check_id"]: c["failing"] for c in doc["failing_checks"]}
    assert doc["summary"]["checks_by_status"]["fail"] == len(failing) > 1
    assert sum(failing.values()) == doc["summary"]["findings_by_status"]["fail"]
    assert doc["failing_checks"][0]["check_id"] == doc["top_findings"][0]["check_id"]
    ranks = ["critical", "high", "medium", "low", "info"]
    assert [ranks.index(c["severity"]) for c in doc["failing_checks"]] == sorted(
        ranks.index(c["severity"]) for c in doc["failing_checks"]
    )


def test_audit_runs_only_the_checks_named() -> None:
    path = str(FIXTURES / "GPU-003/fail-fewer-than-pool-peers.yaml")
    doc = _call("audit", {"snapshot": path, "checks": "GPU-003", "top": 100})
    assert {f["check_id"] for f in doc["top_findings"]} == {"GPU-003"}
    assert doc["not_evaluated"] == []
    assert "NOPE-999" in _error("audit", {"snapshot": path, "checks": "GPU-003,NOPE-999"})
    # a list of ids, as an agent writes one, is the same selection
    listed = _call("audit", {"snapshot": path, "checks": ["gpu-003"], "top": 100})
    assert listed["top_findings"] == doc["top_findings"]


@pytest.mark.parametrize(
    "query,slug",
    [
        ("GPU overheating NVLink", "acme-kalos-overheating-jul2023"),
        ("etcd quota autoscaler", "openai-2018-k8s-etcd-quota-autoscaler"),
    ],
)
def test_search_cases_falls_back_to_bundled_cases(query: str, slug: str) -> None:
    from incidents.audit.mcp_server import search_cases_data

    rows = search_cases_data(query, 5, UNREACHABLE)
    assert rows[0]["slug"] == slug and rows[0]["source"] == "bundled"
    via_tool = _call("search_cases", {"query": query, "limit": 3})
    assert via_tool[0]["slug"] == slug


def test_search_cases_asks_the_library_api_when_reachable() -> None:
    import threading
    from http.server import BaseHTTPRequestHandler
    from http.server import ThreadingHTTPServer

    from incidents.audit.mcp_server import search_cases_data

    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802
            seen.append(f"{self.command} {self.path}")
            body = json.dumps(
                {
                    "count": 1,
                    "results": [{"slug": "meta-rsc-reliability-study", "title": "Meta RSC"}],
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True).start()
    try:
        base = f"http://127.0.0.1:{httpd.server_address[1]}"
        rows = search_cases_data("ib links", 5, base)
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert seen == ["GET /api/cases/?q=ib+links"]
    assert rows == [
        {
            "slug": "meta-rsc-reliability-study",
            "title": "Meta RSC",
            "url": f"{base}/cases/meta-rsc-reliability-study/",
            "summary": "",
            "source": "library",
        }
    ]


def test_kubegap_mcp_serves_over_stdio() -> None:
    import os
    import sys

    from mcp import StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "incidents.audit", "mcp", "--library-url", UNREACHABLE]
        + ["--allow-kubeconfig", "/nonexistent/allowed"],
        env={k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"},
    )

    async def go() -> tuple[set[str], Any, list[str]]:
        async with _client(params) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            result = await client.call_tool("explain_check", {"check_id": "GPU-001"})
            errors = []
            for path in ("/nonexistent/allowed", "/nonexistent/other"):
                audit = await client.call_tool("audit", {"kubeconfig": path})
                errors.append(json.dumps(audit.structured_content or audit.content[0].text))
            return names, result, errors

    names, result, (allowed, other) = anyio.run(go)
    assert "not one this server may read" in other
    assert "not one this server may read" not in allowed and "/nonexistent/allowed" in allowed
    assert "audit" in names and not result.is_error
    assert "GPU-001" in json.dumps(result.structured_content or result.content[0].text)


def test_audit_reads_only_default_or_allowed_kubeconfigs(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    write_kubeconfig: Callable[..., str],
    gpu_cluster_objects: list[dict[str, Any]],
) -> None:
    """An agent may name a kubeconfig only among the user's defaults or the server's allow-list."""
    from incidents.audit.mcp_server import ALLOWED_KUBECONFIGS_ENV
    from incidents.audit.mcp_server import allowed_kubeconfigs
    from incidents.audit.mcp_server import kubeconfig_refusal

    default = tmp_path / "home" / ".kube" / "config"
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv(ALLOWED_KUBECONFIGS_ENV, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with FakeApiServer(FakeCluster(objects=gpu_cluster_objects, token="t0ken")) as server:
        other = write_kubeconfig(server.url)  # valid, reachable, but not allowed
        refused = _error("audit", {"kubeconfig": other})
        assert "is not one this server may read" in refused
        assert "--allow-kubeconfig" in refused and "summary" not in refused
        # a path reaching it through .. or a symlink is the same file, refused the same way
        link = tmp_path / "link"
        link.symlink_to(other)
        assert "not one this server may read" in _error("audit", {"kubeconfig": str(link)})
        # the user's default location is allowed
        default.parent.mkdir(parents=True)
        default.write_text(Path(other).read_text())
        assert _call("audit", {"kubeconfig": str(default)})["summary"]["exit_code"] == 1
        # so are $KUBECONFIG's files, and the explicit allow-list (env or --allow-kubeconfig)
        monkeypatch.setenv("KUBECONFIG", str(link))
        assert "summary" in _call("audit", {"kubeconfig": other})
        monkeypatch.delenv("KUBECONFIG")
        monkeypatch.setenv(ALLOWED_KUBECONFIGS_ENV, f"/nonexistent{os.pathsep}{other}")
        assert "summary" in _call("audit", {"kubeconfig": str(link)})
        monkeypatch.delenv(ALLOWED_KUBECONFIGS_ENV)
        allowed = allowed_kubeconfigs([other])
        assert kubeconfig_refusal(other, allowed) is None
        assert kubeconfig_refusal(str(tmp_path / "elsewhere"), allowed) is not None


def test_every_tool_argument_says_what_it_takes() -> None:
    """An agent fills arguments from the input schema alone: each one is described."""

    async def go() -> dict[str, dict[str, Any]]:
        async with _client(UNREACHABLE) as client:
            return {t.name: t.input_schema for t in (await client.list_tools()).tools}

    schemas = anyio.run(go)
    undescribed = [
        f"{tool}.{name}"
        for tool, schema in schemas.items()
        for name, prop in schema.get("properties", {}).items()
        if not prop.get("description")
    ]
    assert undescribed == []
    assert "GPU-002,JOB-001" in schemas["audit"]["properties"]["checks"]["description"]
