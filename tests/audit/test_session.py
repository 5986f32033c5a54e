"""The HTTP session every request goes through: paths, retries, timeouts, credentials, preflight."""

from __future__ import annotations

import json
import socket
import stat
import sys
import time
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml

from incidents.audit.access_review import review
from incidents.audit.cli import main
from incidents.audit.client import ReadOnlyClient
from incidents.audit.errors import ApiError
from incidents.audit.errors import ConfigError
from incidents.audit.kinds import KINDS
from incidents.audit.kinds import forbidden_path
from incidents.audit.kubeconfig import Connection
from incidents.audit.kubeconfig import load_kubeconfig
from incidents.audit.session import MAX_DELAY
from incidents.audit.session import MAX_RETRIES
from incidents.audit.session import USER_AGENT

from .fakeapi import FakeApiServer
from .fakeapi import FakeCluster


@pytest.mark.parametrize(
    "path,refused",
    [
        ("/api/v1/namespaces/log/pods", False),
        ("/api/v1/namespaces/secrets/configmaps", False),
        ("/api/v1/namespaces/proxy/pods/exec", False),  # a pod named exec
        ("/apis/apps/v1/namespaces/portforward/daemonsets", False),
        ("/api/v1/namespaces/attach", False),  # reading the namespace itself
        ("/api/v1/secrets", True),
        ("/api/v1/namespaces/log/secrets", True),
        ("/api/v1/namespaces/x/pods/p/log", True),
        ("/api/v1/namespaces/x/pods/p/exec", True),
        ("/api/v1/namespaces/x/pods/p/portforward", True),
        ("/api/v1/nodes/n1/proxy", True),
        ("/api/v1/namespaces/x/services/s/proxy", True),
        ("/api/v1/proxy/nodes/n1", True),
    ],
)
def test_only_the_resource_and_subresource_positions_are_refused(path: str, refused: bool) -> None:
    assert forbidden_path(path) is refused


def test_a_namespace_named_log_is_audited_not_refused(
    capsys: pytest.CaptureFixture[str], write_kubeconfig: Callable[..., str]
) -> None:
    cluster = FakeCluster(token="t0ken")
    with FakeApiServer(cluster) as server:
        code = main(
            ["audit", "--kubeconfig", write_kubeconfig(server.url), "-n", "log", "-o", "json"]
        )
    out, err = capsys.readouterr()
    assert code == 3 and json.loads(out)["source"]["namespace"] == "log"
    assert "Traceback" not in err
    assert "/api/v1/namespaces/log/pods" in {p for _, p, _ in cluster.requests}


def _scripted(replies: list[httpx.Response]) -> tuple[httpx.MockTransport, list[str]]:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        return replies.pop(0) if replies else httpx.Response(200, json={"gitVersion": "v1.30.0"})

    return httpx.MockTransport(handler), seen


def test_429_and_5xx_are_retried_with_backoff_honouring_retry_after() -> None:
    sleeps: list[float] = []
    transport, seen = _scripted(
        [
            httpx.Response(429, headers={"Retry-After": "2"}, json={}),
            httpx.Response(503, json={}),
            httpx.Response(500, headers={"Retry-After": "86400"}, json={}),
        ]
    )
    client = ReadOnlyClient(Connection("http://k8s", "x"), transport=transport, sleep=sleeps.append)
    assert client.server_version() == {"gitVersion": "v1.30.0"}
    assert len(seen) == 4
    # Retry-After when given (a day is capped), else exponential backoff from 0.5 s.
    assert sleeps == [2.0, 1.0, MAX_DELAY]


def test_retries_are_bounded() -> None:
    sleeps: list[float] = []
    transport, seen = _scripted([httpx.Response(503, json={"message": "busy"}) for _ in range(10)])
    client = ReadOnlyClient(Connection("http://k8s", "x"), transport=transport, sleep=sleeps.append)
    with pytest.raises(ApiError, match="HTTP 503: busy"):
        client.get("/api/v1/nodes")
    assert len(seen) == MAX_RETRIES + 1 and sum(sleeps) <= 30


def test_other_errors_are_not_retried() -> None:
    transport, seen = _scripted([httpx.Response(403, json={"message": "no"})])
    client = ReadOnlyClient(
        Connection("http://k8s", "x"), transport=transport, sleep=lambda s: None
    )
    with pytest.raises(ApiError, match="forbidden"):
        client.get("/api/v1/nodes")
    assert len(seen) == 1


@pytest.fixture
def black_hole() -> Iterator[str]:
    """A TCP port that accepts connections (the kernel's backlog) and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        sock.close()


def test_a_black_holed_server_fails_within_the_timeout(
    black_hole: str, capsys: pytest.CaptureFixture[str], write_kubeconfig: Callable[..., str]
) -> None:
    kubeconfig = write_kubeconfig(black_hole)
    started = time.monotonic()
    code = main(["audit", "--kubeconfig", kubeconfig, "--timeout", "0.2"])
    elapsed = time.monotonic() - started
    err = capsys.readouterr().err
    assert code == 2
    assert "did not answer within 0.2 s (read timeout; --timeout sets it)" in err
    assert "Traceback" not in err
    assert elapsed < 10  # one timeout, not a retry storm


def test_bad_timeout_values_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--timeout", "soon"]) == 2
    assert "not a number of seconds" in capsys.readouterr().err


def _plugin(tmp_path: Path, tokens: list[str], expires: str | None) -> Path:
    """An exec credential plugin handing out ``tokens`` in turn, each with ``expires``."""
    state = tmp_path / "calls"
    state.write_text("0")
    plugin = tmp_path / "plugin"
    status = (
        "{'token': tokens[min(n, len(tokens) - 1)]"
        + (f", 'expirationTimestamp': {expires!r}" if expires else "")
        + "}"
    )
    plugin.write_text(
        # This interpreter, without site-packages: `python3` on PATH may be a version manager's
        # shim (pyenv's takes a tenth of a second of CPU before Python starts).
        f"#!{sys.executable} -IS\nimport json, pathlib\n"
        f"state = pathlib.Path({str(state)!r}); n = int(state.read_text()); state.write_text(str(n + 1))\n"
        f"tokens = {tokens!r}\n"
        f"print(json.dumps({{'kind': 'ExecCredential', 'status': {status}}}))\n"
    )
    plugin.chmod(plugin.stat().st_mode | stat.S_IEXEC)
    return plugin


def _exec_kubeconfig(tmp_path: Path, server: str, plugin: Path) -> str:
    doc = {
        "current-context": "c",
        "clusters": [{"name": "c", "cluster": {"server": server}}],
        "users": [
            {
                "name": "u",
                "user": {
                    "exec": {
                        "apiVersion": "client.authentication.k8s.io/v1",
                        "command": str(plugin),
                    }
                },
            }
        ],
        "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
    }
    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump(doc))
    return str(path)


def test_exec_credentials_are_fetched_again_when_they_expire(tmp_path: Path) -> None:
    plugin = _plugin(tmp_path, ["t1", "t2", "t3"], "2000-01-01T00:00:00Z")
    cluster = FakeCluster()
    with FakeApiServer(cluster) as server:
        conn = load_kubeconfig(_exec_kubeconfig(tmp_path, server.url, plugin))
        with ReadOnlyClient(conn) as client:
            client.server_version()
            client.server_version()
    assert [h["authorization"] for h in cluster.headers] == ["Bearer t2", "Bearer t3"]


def test_exec_credentials_are_kept_until_they_expire(tmp_path: Path) -> None:
    plugin = _plugin(tmp_path, ["t1", "t2"], "2999-01-01T00:00:00Z")
    cluster = FakeCluster()
    with FakeApiServer(cluster) as server:
        conn = load_kubeconfig(_exec_kubeconfig(tmp_path, server.url, plugin))
        with ReadOnlyClient(conn) as client:
            client.server_version()
            client.server_version()
    assert [h["authorization"] for h in cluster.headers] == ["Bearer t1", "Bearer t1"]


def test_a_rejected_exec_token_is_renewed_once(tmp_path: Path) -> None:
    plugin = _plugin(tmp_path, ["stale", "fresh"], None)
    cluster = FakeCluster(token="fresh")
    with FakeApiServer(cluster) as server:
        conn = load_kubeconfig(_exec_kubeconfig(tmp_path, server.url, plugin))
        with ReadOnlyClient(conn) as client:
            assert client.server_version()["gitVersion"] == "v1.20.2"
        assert [h["authorization"] for h in cluster.headers] == ["Bearer stale", "Bearer fresh"]
        cluster.token = "rotated-by-someone-else"
        with (
            ReadOnlyClient(conn) as client,
            pytest.raises(ConfigError, match="rejected the credentials"),
        ):
            client.server_version()


def test_preflight_uses_kubegaps_agent_and_any_kind_of_credentials() -> None:
    cluster = FakeCluster()
    conn = Connection("", "x", username="admin", password="s3cret")
    with FakeApiServer(cluster) as server:
        conn.server = server.url
        [access] = review(conn, [KINDS["nodes"]])
    assert access.allowed
    [headers] = cluster.headers
    assert headers["user-agent"] == USER_AGENT
    assert headers["authorization"].startswith("Basic ")  # not bearer-only any more


def test_every_request_carries_kubegaps_user_agent() -> None:
    cluster = FakeCluster()
    with FakeApiServer(cluster) as server, ReadOnlyClient(Connection(server.url, "x")) as client:
        client.server_version()
    assert cluster.headers[0]["user-agent"].startswith("kubegap/")
