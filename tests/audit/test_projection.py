"""Projection keeps what checks read, drops the rest, and is idempotent."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from incidents.audit.kinds import project, spec_for_object

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
    assert container["env"] == [
        {"name": "NCCL_ASYNC_ERROR_HANDLING", "value": "0"},
        {"name": "CHECKPOINT_URI", "value": "s3://bucket/run"},
    ]
    assert "hunter2" not in str(slim)
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
