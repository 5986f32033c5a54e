"""kubegap's collect and live runs from the command line: a snapshot audited offline equals the
live audit, collection reads only what the selected checks need, namespaces and preflight."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import run
from .fakeapi import FakeApiServer
from .fakeapi import FakeCluster


def _strip_source(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "source"}


def test_collect_then_audit_offline_equals_live(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    write_kubeconfig: Callable[..., str],
    gpu_cluster_objects: list[dict[str, Any]],
) -> None:
    cluster = FakeCluster(
        objects=gpu_cluster_objects,
        token="t0ken",
        absent={"mpijobs.kubeflow.org"},
        forbidden={"configmaps"},
    )
    snap = tmp_path / "cluster.json.gz"
    with FakeApiServer(cluster) as server:
        kc = write_kubeconfig(server.url)
        code_c, _, err = run(capsys, "collect", "--kubeconfig", kc, "--output-file", str(snap))
        code_live, live, _ = run(capsys, "audit", "--kubeconfig", kc, "--format", "json")
    assert code_c == 3 and "forbidden: configmaps" in err  # collect reports the gap
    code_off, offline, _ = run(capsys, "audit", "--snapshot", str(snap), "--format", "json")
    assert code_live == code_off == 1
    live_doc, off_doc = json.loads(live), json.loads(offline)
    assert _strip_source(live_doc) == _strip_source(off_doc)
    saved = json.loads(gzip.decompress(snap.read_bytes()))
    assert saved["format"] == "kubegap-snapshot" and saved["version"] == 1
    assert saved["kinds"]["mpijobs.kubeflow.org"]["coverage"]["status"] == "absent"
    failing = {
        (f["check_id"], f["resource"]["name"])
        for f in live_doc["findings"]
        if f["status"] == "fail"
    }
    assert {
        ("GPU-002", "gpu-1"),
        ("MON-001", "gpu-2"),
        ("JOB-003", "js"),
        ("PLAT-002", "etcd-cp-1"),
    } <= failing
    assert {c["id"]: c["status"] for c in live_doc["checks"]}["MON-002"] == "not_evaluated"
    assert {m for m, _, _ in cluster.requests} == {"GET"}


def test_collect_writes_only_the_kinds_the_selected_checks_need(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, write_kubeconfig: Callable[..., str]
) -> None:
    cluster = FakeCluster(token="t0ken")
    out = tmp_path / "nodes.json"
    with FakeApiServer(cluster) as server:
        code, _, _ = run(
            capsys,
            "collect",
            "--kubeconfig",
            write_kubeconfig(server.url),
            "--checks",
            "GPU-002,GPU-003",
            "--output-file",
            str(out),
        )
    assert code == 0
    assert list(json.loads(out.read_text())["kinds"]) == ["nodes", "pods"]  # GPU-002 reads pods
    listed = {
        p for _, p, _ in cluster.requests if p not in ("/version", "/api", "/apis", "/api/v1")
    }
    assert listed == {"/api/v1/nodes", "/api/v1/pods"}


def test_namespace_limits_namespaced_kinds(
    capsys: pytest.CaptureFixture[str],
    write_kubeconfig: Callable[..., str],
    gpu_cluster_objects: list[dict[str, Any]],
) -> None:
    cluster = FakeCluster(objects=gpu_cluster_objects, token="t0ken")
    with FakeApiServer(cluster) as server:
        code, out, _ = run(
            capsys,
            "audit",
            "--kubeconfig",
            write_kubeconfig(server.url),
            "-n",
            "train",
            "--format",
            "json",
        )
    paths = {p for _, p, _ in cluster.requests}
    assert "/api/v1/namespaces/train/pods" in paths and "/api/v1/nodes" in paths
    assert "/api/v1/pods" not in paths
    doc = json.loads(out)
    assert doc["source"]["namespace"] == "train"
    status = {c["id"]: c["status"] for c in doc["checks"]}
    # checks that must see every namespace are not judged on a partial view
    assert status["MON-001"] == status["ALERT-001"] == "not_evaluated"
    assert status["JOB-003"] == "fail"  # the JobSet in namespace train


def test_preflight_asks_access_reviews_and_never_lists(
    capsys: pytest.CaptureFixture[str], write_kubeconfig: Callable[..., str]
) -> None:
    cluster = FakeCluster(token="t0ken", forbidden={"configmaps"})
    with FakeApiServer(cluster) as server:
        code, out, _ = run(
            capsys, "audit", "--preflight", "--kubeconfig", write_kubeconfig(server.url)
        )
    assert code == 3
    assert "DENIED   list configmaps" in out and "allowed  list nodes" in out
    assert {m for m, _, _ in cluster.requests} == {"POST"}
    assert {p for _, p, _ in cluster.requests} == {
        "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
    }
