"""site/k8s/ applied to the real kube-apiserver 1.20 with a server-side dry run: every object of a
kind this server serves is accepted (defaulting, validation and RBAC admission run, nothing is
stored). The kinds it is too old for (policy/v1 PodDisruptionBudget, batch/v1 CronJob: 1.21+) are
named, and tests/test_k8s_manifests.py validates them offline against current schemas."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kube_client import KubeClient
from kube_client import load_manifest

pytestmark = pytest.mark.apiserver

K8S = Path(__file__).resolve().parents[2] / "site" / "k8s"
NOT_SERVED_ON_1_20 = {("policy/v1", "PodDisruptionBudget"), ("batch/v1", "CronJob")}


def _objects() -> list[dict[str, Any]]:
    return [doc for path in sorted(K8S.rglob("*.yaml")) for doc in load_manifest(path)]


def _dry_run(admin: KubeClient, obj: dict[str, Any]) -> dict[str, Any]:
    res = admin.resource(obj["apiVersion"], obj["kind"])
    namespace = obj["metadata"].get("namespace") if res.namespaced else None
    return admin.call("POST", res.path(namespace) + "?dryRun=All", obj)


def test_every_served_manifest_passes_a_server_side_dry_run(admin: KubeClient) -> None:
    objects = _objects()
    # Namespaces are created for real: a dry-run object cannot live in a dry-run namespace.
    for obj in objects:
        if obj["kind"] == "Namespace":
            admin.create(obj)
    applied, skipped = [], set()
    for obj in objects:
        if obj["kind"] == "Namespace":
            continue
        if not admin.served(obj["apiVersion"], obj["kind"]):
            skipped.add((obj["apiVersion"], obj["kind"]))
            continue
        answer = _dry_run(admin, obj)
        assert answer["metadata"]["name"] == obj["metadata"]["name"]
        applied.append(obj["kind"])
    assert skipped == NOT_SERVED_ON_1_20
    assert {"Deployment", "Service", "Job", "ConfigMap", "Secret", "ClusterRoleBinding"} <= set(
        applied
    )
    # A dry run stores nothing.
    listed = admin.get("/apis/apps/v1/namespaces/incident-library/deployments")
    assert listed["items"] == []


def test_the_dry_run_refuses_a_broken_deployment(admin: KubeClient) -> None:
    (deployment,) = [o for o in _objects() if o["kind"] == "Deployment"]
    deployment["spec"]["selector"]["matchLabels"] = {"app": "something-else"}
    admin.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "broken"}})
    deployment["metadata"]["namespace"] = "broken"
    with pytest.raises(Exception, match="422"):
        _dry_run(admin, deployment)
