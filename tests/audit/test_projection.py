"""Projection keeps what checks read, drops the rest, and is idempotent."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from incidents.audit.k8s import scrapes_prometheus
from incidents.audit.kinds import project
from incidents.audit.kinds import spec_for_object

FILES = sorted((Path(__file__).parent / "fixtures").glob("*/*.yaml"))


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_projection_is_idempotent(path: Path) -> None:
    for obj in yaml.safe_load(path.read_text())["items"]:
        spec = spec_for_object(obj["apiVersion"], obj["kind"])
        assert spec is not None
        once = project(spec.key, obj)
        assert project(spec.key, once) == once


def test_credentials_and_bulk_are_dropped() -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "p",
            "namespace": "n",
            "labels": {"app": "x", "component": "etcd"},
            "managedFields": [{"manager": "kubelet"}],
            "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"},
        },
        "spec": {
            "containers": [
                {
                    "name": "c",
                    "image": "i",
                    "resources": {"limits": {"nvidia.com/gpu": 8}},
                    "env": [
                        {"name": "AWS_SECRET_ACCESS_KEY", "value": "hunter2"},
                        {"name": "NCCL_ASYNC_ERROR_HANDLING", "value": "0"},
                        {"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}},
                        {"name": "CHECKPOINT_URI", "value": "s3://bucket/run"},
                        {"name": "CKPT_S3_SECRET_ACCESS_KEY", "value": "hunter3"},
                        {"name": "CHECKPOINT_TOKEN", "value": "s3cr3t-s3://x"},
                        {"name": "NCCL_SOCKET_IFNAME", "value": "eth0"},
                        {"name": "TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC", "value": "600"},
                    ],
                    "volumeMounts": [
                        {"name": "data", "mountPath": "/data"},
                        {"name": "dshm", "mountPath": "/dev/shm"},
                    ],
                }
            ]
        },
    }
    slim = project("pods", pod)
    # A GPU pod keeps its labels (workload identity, exemption selectors); not its annotations.
    assert slim["metadata"] == {
        "name": "p",
        "namespace": "n",
        "labels": {"app": "x", "component": "etcd"},
    }
    container = slim["spec"]["containers"][0]
    # Values only of the settings checks compare; a checkpoint URL keeps its scheme only; every
    # other name that may hold a secret keeps its name and loses its value.
    assert container["env"] == [
        {"name": "NCCL_ASYNC_ERROR_HANDLING", "value": "0"},
        {"name": "CHECKPOINT_URI", "objectStore": "s3"},
        {"name": "CKPT_S3_SECRET_ACCESS_KEY"},
        {"name": "CHECKPOINT_TOKEN", "objectStore": "s3"},
        {"name": "NCCL_SOCKET_IFNAME"},
        {"name": "TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC", "value": "600"},
    ]
    for secret in ("hunter2", "hunter3", "s3cr3t", "bucket"):
        assert secret not in str(slim)
    assert container["volumeMounts"] == [{"name": "dshm", "mountPath": "/dev/shm"}]
    # a pod without GPUs keeps only where it runs and what it runs, and only the labels checks read
    del pod["spec"]["containers"][0]["resources"]
    assert project("pods", pod)["spec"] == {"containers": [{"name": "c", "image": "i"}]}
    assert project("pods", pod)["metadata"]["labels"] == {"component": "etcd"}


def test_configmaps_keep_only_dcgm_counters_and_kueue_config() -> None:
    cm = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "app-config", "namespace": "n"},
        "data": {"password": "hunter2", "metrics.csv": "DCGM_FI_DEV_GPU_TEMP, gauge, t\n"},
    }
    assert project("configmaps", cm)["data"] == {"metrics.csv": "DCGM_FI_DEV_GPU_TEMP, gauge, t\n"}
    cm["data"] = {"password": "hunter2"}
    assert "data" not in project("configmaps", cm)


def test_collector_configs_keep_only_the_lines_that_say_they_scrape() -> None:
    """An OpenTelemetry Collector config with a prometheus receiver is kept for MON-003, without
    its exporters' credentials."""
    config = (
        "receivers:\n  prometheus:\n    config:\n      scrape_configs:\n"
        "        - job_name: dcgm\nexporters:\n  prometheusremotewrite:\n"
        "    endpoint: https://mimir\n    headers: {Authorization: Bearer hunter2}\n"
    )
    cm = {"metadata": {"name": "otel-collector", "namespace": "o"}, "data": {"c.yaml": config}}
    kept = project("configmaps", cm)["data"]["c.yaml"]
    assert kept == "  prometheus:\n      scrape_configs:\n        - job_name: dcgm\n"
    assert scrapes_prometheus(kept)


def test_gpu_operator_component_env_keeps_only_values_checks_compare() -> None:
    policy = {
        "apiVersion": "nvidia.com/v1",
        "kind": "ClusterPolicy",
        "metadata": {"name": "cluster-policy"},
        "spec": {
            "devicePlugin": {
                "enabled": True,
                "env": [
                    {"name": "DP_DISABLE_HEALTHCHECKS", "value": "all"},
                    {"name": "MY_REGISTRY_PASSWORD", "value": "hunter2"},
                    {"name": "DP_PRIVATE_TOKEN", "value": "hunter3"},
                ],
            },
            "dcgmExporter": {"enabled": True, "env": [{"name": "AWS_KEY", "value": "hunter4"}]},
        },
    }
    slim = project("clusterpolicies.nvidia.com", policy)
    assert slim["spec"]["devicePlugin"] == {
        "enabled": True,
        "env": [{"name": "DP_DISABLE_HEALTHCHECKS", "value": "all"}, {"name": "DP_PRIVATE_TOKEN"}],
    }
    assert slim["spec"]["dcgmExporter"] == {"enabled": True}
    assert "hunter" not in str(slim)
    assert project("clusterpolicies.nvidia.com", slim) == slim


def test_a_pod_using_a_dra_claim_keeps_its_claims() -> None:
    """DRA: a pod that claims devices (spec.resourceClaims, containers[].resources.claims) keeps
    its spec, since on a cluster with a GPU DRA driver those claims are its GPUs; the claim's
    parameters stay in its template, which is not read."""
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "sft-0", "namespace": "llm"},
        "spec": {
            "resourceClaims": [
                {"name": "gpus", "resourceClaimTemplateName": "h200-x8"},
                {"name": "nic", "resourceClaimName": "rdma-0"},
            ],
            "containers": [
                {
                    "name": "trainer",
                    "image": "i",
                    "resources": {
                        "requests": {"memory": "800Gi"},
                        "claims": [{"name": "gpus"}, {"name": "nic", "request": "rdma"}],
                    },
                }
            ],
        },
    }
    slim = project("pods", pod)
    assert slim["spec"]["resourceClaims"] == pod["spec"]["resourceClaims"]
    assert slim["spec"]["containers"][0]["resources"] == {
        "requests": {"memory": "800Gi"},
        "claims": [{"name": "gpus"}, {"name": "nic", "request": "rdma"}],
    }
    assert project("pods", slim) == slim


def test_a_node_keeps_when_it_joined() -> None:
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n", "creationTimestamp": "2026-06-01T11:58:30Z", "uid": "u"},
        "status": {"capacity": {"cpu": "8"}},
    }
    assert project("nodes", node)["metadata"] == {
        "name": "n",
        "creationTimestamp": "2026-06-01T11:58:30Z",
    }
