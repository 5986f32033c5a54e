"""The read-only client against a fake API server over real HTTP(S)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from incidents.audit.cli import main
from incidents.audit.client import ReadOnlyClient
from incidents.audit.collect import collect
from incidents.audit.errors import ConfigError
from incidents.audit.kinds import KINDS
from incidents.audit.kubeconfig import Connection
from incidents.audit.kubeconfig import load_kubeconfig

from .fakeapi import FakeApiServer
from .fakeapi import FakeCluster


def _pods(n: int) -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": f"p{i:05d}",
                "namespace": "ns",
                "managedFields": [{"big": "x" * 100}],
            },
            "spec": {
                "containers": [
                    {"name": "c", "image": "i", "env": [{"name": "API_KEY", "value": "s3cr3t"}]}
                ]
            },
            "status": {"phase": "Running"},
        }
        for i in range(n)
    ]


def _client(server: FakeApiServer) -> ReadOnlyClient:
    return ReadOnlyClient(Connection(server=server.url, context="fake"))


def test_lists_are_paged_with_limit_500_and_continue() -> None:
    cluster = FakeCluster(objects=_pods(1201))
    with FakeApiServer(cluster) as server, _client(server) as client:
        result = client.list_kind(KINDS["pods"], "v1")
    assert len(result.items) == 1201
    assert result.pages == 3
    lists = [q for m, p, q in cluster.requests if p == "/api/v1/pods"]
    assert [q.get("limit") for q in lists] == [["500"]] * 3
    assert [q.get("continue") for q in lists] == [None, ["500"], ["1000"]]


def test_chunk_size_sets_the_objects_per_list_request(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, write_kubeconfig: Callable[..., str]
) -> None:
    cluster = FakeCluster(objects=_pods(250))
    with FakeApiServer(cluster) as server:
        kubeconfig = write_kubeconfig(server.url)
        out = tmp_path / "report.json"
        code = main(
            [
                "audit",
                "--kubeconfig",
                kubeconfig,
                "--chunk-size",
                "100",
                "-o",
                "json",
                "--output-file",
                str(out),
            ]
        )
    assert code in (0, 1), capsys.readouterr().err
    lists = [q for m, p, q in cluster.requests if p == "/api/v1/pods"]
    assert [q.get("limit") for q in lists] == [["100"]] * 3
    assert [q.get("continue") for q in lists] == [None, ["100"], ["200"]]
    pods = next(k for k in json.loads(out.read_text())["coverage"] if k["kind"] == "pods")
    assert (pods["count"], pods["pages"]) == (250, 3)


@pytest.mark.parametrize("value", ["0", "-5", "10001", "lots", "2.5"])
def test_bad_chunk_sizes_are_usage_errors(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--chunk-size", value]) == 2
    assert "--chunk-size: " in capsys.readouterr().err


def test_items_are_projected_while_paging() -> None:
    cluster = FakeCluster(objects=_pods(2))
    with FakeApiServer(cluster) as server, _client(server) as client:
        pod = client.list_kind(KINDS["pods"], "v1").items[0]
    assert "managedFields" not in pod["metadata"]
    # env values that no check reads are dropped (they may be credentials)
    assert "env" not in pod["spec"]["containers"][0]


def test_expired_continue_token_restarts_the_list_once() -> None:
    cluster = FakeCluster(objects=_pods(1100), gone_once={"pods"})
    with FakeApiServer(cluster) as server, _client(server) as client:
        result = client.list_kind(KINDS["pods"], "v1")
    assert len(result.items) == 1100 and result.restarted
    assert [q.get("continue") for m, p, q in cluster.requests if p == "/api/v1/pods"] == [
        None,
        ["500"],
        None,
        ["500"],
        ["1000"],
    ]


def test_collect_records_forbidden_absent_and_listed_kinds() -> None:
    cluster = FakeCluster(
        objects=_pods(3),
        forbidden={"daemonsets.apps"},
        absent={"pytorchjobs.kubeflow.org", "prometheusrules.monitoring.coreos.com"},
        unserved={("cronjobs.batch", "v1")},
    )
    keys = [
        "pods",
        "daemonsets.apps",
        "pytorchjobs.kubeflow.org",
        "cronjobs.batch",
        "prometheusrules.monitoring.coreos.com",
    ]
    with FakeApiServer(cluster) as server, _client(server) as client:
        snap = collect(client, keys)
    cov = {k: (c.status, c.api_version, c.count) for k, c in snap.coverage.items()}
    assert cov == {
        "pods": ("listed", "v1", 3),
        "daemonsets.apps": ("forbidden", "apps/v1", 0),
        "pytorchjobs.kubeflow.org": ("absent", None, 0),
        "cronjobs.batch": ("listed", "batch/v1beta1", 0),  # 1.20 serves CronJob in v1beta1 only
        "prometheusrules.monitoring.coreos.com": ("absent", None, 0),
    }
    assert snap.server_version["gitVersion"] == "v1.20.2"


def test_only_get_is_ever_sent_and_no_secret_or_log_is_read() -> None:
    cluster = FakeCluster(objects=_pods(3))
    with FakeApiServer(cluster) as server, _client(server) as client:
        collect(client, list(KINDS))
    assert cluster.requests
    assert {m for m, _, _ in cluster.requests} == {"GET"}
    assert not [p for _, p, _ in cluster.requests if "secrets" in p or p.endswith("/log")]


def test_the_client_has_no_verb_but_get() -> None:
    verbs = {"post", "put", "patch", "delete", "head", "options", "request", "send", "stream"}
    assert not [n for n in dir(ReadOnlyClient) if n.lower() in verbs]


def test_the_transport_refuses_other_verbs_and_forbidden_paths() -> None:
    cluster = FakeCluster()
    with FakeApiServer(cluster) as server, _client(server) as client:
        with pytest.raises(RuntimeError, match="read-only"):
            client._session.http.post("/api/v1/namespaces/default/pods", json={})
        with pytest.raises(RuntimeError, match="never reads"):
            client.get("/api/v1/namespaces/default/secrets")
        with pytest.raises(RuntimeError, match="never reads"):
            client.get("/api/v1/namespaces/default/pods/p1/log")
    assert cluster.requests == []  # refused before anything left the process


def test_rejected_credentials_are_a_configuration_error() -> None:
    cluster = FakeCluster(token="right")
    with FakeApiServer(cluster) as server:
        client = ReadOnlyClient(Connection(server=server.url, context="x", token="wrong"))
        with pytest.raises(ConfigError, match="rejected the credentials"):
            client.server_version()


def test_unreachable_server_is_a_configuration_error() -> None:
    client = ReadOnlyClient(Connection(server="http://127.0.0.1:9", context="x"), timeout=2)
    with pytest.raises(ConfigError, match="cannot reach"):
        client.server_version()


def test_token_and_ca_file_over_tls(
    tls: dict[str, str], write_kubeconfig: Callable[..., str]
) -> None:
    cluster = FakeCluster(objects=_pods(2), token="t0ken")
    with FakeApiServer(cluster, tls["cert"], tls["key"]) as server:
        conn = load_kubeconfig(write_kubeconfig(server.url, ca=tls["ca"]))
        with ReadOnlyClient(conn) as client:
            assert client.server_version()["gitVersion"] == "v1.20.2"
            assert len(client.list_kind(KINDS["pods"], "v1").items) == 2


def test_tls_without_the_right_ca_fails(
    tls: dict[str, str], write_kubeconfig: Callable[..., str]
) -> None:
    with FakeApiServer(FakeCluster(), tls["cert"], tls["key"]) as server:
        conn = load_kubeconfig(write_kubeconfig(server.url))
        with ReadOnlyClient(conn) as client, pytest.raises(ConfigError, match="certificate"):
            client.server_version()
        insecure = load_kubeconfig(
            write_kubeconfig(server.url, **{"insecure-skip-tls-verify": True})
        )
        with ReadOnlyClient(insecure) as client:
            assert client.server_version()["gitVersion"] == "v1.20.2"


def test_refusal_hook_is_installed_on_every_request() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.method)
        return httpx.Response(200, json={"gitVersion": "v1.30.0"})

    client = ReadOnlyClient(
        Connection(server="http://k8s", context="x"), transport=httpx.MockTransport(handler)
    )
    assert client.server_version() == {"gitVersion": "v1.30.0"}
    with pytest.raises(RuntimeError):
        client._session.http.delete("/api/v1/nodes/n1")
    assert seen == ["GET"]


def test_a_kind_served_only_at_a_version_kubegap_does_not_read_is_an_error() -> None:
    cluster = FakeCluster(served_as={"jobsets.jobset.x-k8s.io": "v1alpha1"})
    with FakeApiServer(cluster) as server, _client(server) as client:
        snap = collect(client, ["jobsets.jobset.x-k8s.io", "pytorchjobs.kubeflow.org"])
    cov = snap.coverage["jobsets.jobset.x-k8s.io"]
    assert (cov.status, cov.message) == (
        "error",
        "served only as jobset.x-k8s.io/v1alpha1; kubegap reads jobset.x-k8s.io/v1alpha2",
    )
    assert snap.coverage["pytorchjobs.kubeflow.org"].status == "listed"
