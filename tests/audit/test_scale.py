"""What keeps kubegap light at 100,000 pods, checked structurally on a small synthetic cluster.

The figures themselves (time against the json.load floor, peak RSS) come from
``make bench-kubegap`` (tests/audit/bench_scale.py); these tests keep the properties behind them.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from incidents.audit import snapshot as snapshot_module
from incidents.audit.checks import ALL_CHECKS
from incidents.audit.compact import shared_values
from incidents.audit.engine import run_checks
from incidents.audit.kinds import project
from incidents.audit.report import to_json_dict
from incidents.audit.snapshot import load
from incidents.audit.snapshot import save

from .bench_scale import PODS_PER_JOB
from .bench_scale import nodes
from .bench_scale import pods
from .bench_scale import pytorchjobs
from .bench_scale import synthetic_snapshot

REPO = Path(__file__).resolve().parents[2]
N_NODES, N_PODS = 40, 320  # 40 PyTorchJobs of 8 pods (a master and 7 workers)
N_JOBS = N_PODS // PODS_PER_JOB


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("scale") / "cluster.json.gz"
    save(synthetic_snapshot(N_NODES, N_PODS), path)
    return path


def test_saved_snapshot_is_one_json_document_one_object_a_line(saved: Path) -> None:
    text = gzip.decompress(saved.read_bytes())
    doc = json.loads(text)  # older readers and jq read it whole
    assert doc["format"] == "kubegap-snapshot" and doc["version"] == 1
    assert len(doc["kinds"]["pods"]["items"]) == N_PODS
    lines = text.splitlines()
    objects = sum(len(e["items"]) for e in doc["kinds"].values())
    header_lines = 1 + 2 * len(doc["kinds"]) + 1
    assert len(lines) == objects + header_lines
    assert max(len(line) for line in lines) < 4096  # no line holds more than one object


def test_reader_parses_a_line_at_a_time_and_does_not_project_again(
    saved: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sizes: list[int] = []
    real_loads = snapshot_module.loads

    def recording_loads(data: bytes | str) -> Any:
        sizes.append(len(data))
        return real_loads(data)

    def no_whole_document(path: Path) -> Any:
        raise AssertionError("the whole document was read")

    def no_projection(key: str, obj: Any) -> Any:
        raise AssertionError("an already projected object was projected again")

    monkeypatch.setattr(snapshot_module, "loads", recording_loads)
    monkeypatch.setattr(snapshot_module, "_read", no_whole_document)
    monkeypatch.setattr(snapshot_module, "project", no_projection)
    snap = load(saved)
    assert len(snap.items("pods")) == N_PODS and len(snap.items("nodes")) == N_NODES
    # Never the raw document and the objects at once: each parse is one object's line.
    assert len(sizes) > N_PODS and max(sizes) < 4096 < len(gzip.decompress(saved.read_bytes()))


def test_replicas_share_their_equal_values(saved: Path) -> None:
    snap = load(saved)
    first, second = snap.items("pods")[1:3]  # two GPU workers of one job
    assert first["spec"]["containers"] is second["spec"]["containers"]
    assert first["metadata"]["ownerReferences"] is second["metadata"]["ownerReferences"]
    assert shared_values(snap.items("pods")) > N_PODS
    # Sharing changes no finding: the same audit as over freshly projected objects.
    fresh = synthetic_snapshot(N_NODES, N_PODS)
    shared = to_json_dict(run_checks(list(ALL_CHECKS), snap), "high", None)
    unshared = to_json_dict(run_checks(list(ALL_CHECKS), fresh), "high", None)
    assert shared["findings"] == unshared["findings"]


@pytest.mark.parametrize("listed_jobs", [True, False], ids=["jobs-listed", "pods-only"])
def test_one_finding_per_workload_not_per_pod_or_replica_type(listed_jobs: bool) -> None:
    snap = synthetic_snapshot(N_NODES, N_PODS, listed_jobs)
    doc = to_json_dict(run_checks(list(ALL_CHECKS), snap), "high", None)
    per_check: dict[str, list[dict[str, Any]]] = {}
    for f in doc["findings"]:
        if f["status"] == "fail" and f["resource"]["kind"] == "PyTorchJob":
            per_check.setdefault(f["check_id"], []).append(f)
    assert {"CKPT-001", "CKPT-002", "MEM-002"} <= set(per_check)
    for check_id, findings in per_check.items():
        jobs = [(f["resource"]["namespace"], f["resource"]["name"]) for f in findings]
        assert len(jobs) == len(set(jobs)), f"{check_id}: a job has several findings"
        if check_id != "GPU-002":  # GPU-002 names only the jobs on a faulty node
            assert len(jobs) == N_JOBS, check_id
    assert not [f for f in doc["findings"] if f["resource"]["kind"] == "Pod"]
    [ckpt] = [f for f in per_check["CKPT-001"] if f["resource"]["name"] == "job-1"]
    pods_listed = [m for m in ckpt["members"] if m.startswith("pod ")]
    assert len(pods_listed) == PODS_PER_JOB * 4 // 5  # its GPU pods, named under one finding
    if listed_jobs:
        assert {"Master x1", "Worker x7"} <= set(ckpt["members"])


def test_report_states_each_check_once(saved: Path) -> None:
    doc = to_json_dict(run_checks(list(ALL_CHECKS), load(saved)), "high", None)
    assert len(doc["findings"]) > 3 * N_JOBS
    for f in doc["findings"]:
        assert not {"remediation", "cases", "references", "title"} & set(f)
    assert all(c["remediation"] and c["cases"] for c in doc["checks"])


def test_older_snapshot_layouts_and_projections_are_still_read(tmp_path: Path) -> None:
    """A pretty-printed snapshot (or one by an older kubegap, without the projection stamp) is
    read whole and projected again: its env values beyond the allow-list are dropped."""
    pod = next(p for p in pods(8, 2) if p["metadata"]["name"].endswith("-1"))
    pod["spec"]["containers"][0]["env"].append(
        {"name": "CKPT_S3_SECRET_ACCESS_KEY", "value": "hunter2"}
    )
    older = project("pods", pod)
    older["spec"]["containers"][0]["env"].append(
        {"name": "CKPT_S3_SECRET_ACCESS_KEY", "value": "hunter2"}
    )
    fresh = synthetic_snapshot(2, 8)
    fresh.objects["pods"] = [older]
    doc: dict[str, Any] = {
        "format": "kubegap-snapshot",
        "version": 1,
        "server_version": {"gitVersion": "v1.30.2"},
        "kinds": {
            key: {"coverage": fresh.coverage[key].to_dict(), "items": fresh.objects.get(key, [])}
            for key in fresh.coverage
        },
    }
    path = tmp_path / "old.json"
    path.write_text(json.dumps(doc, indent=2))
    snap = load(path)
    [read] = snap.items("pods")
    assert {"name": "CKPT_S3_SECRET_ACCESS_KEY"} in read["spec"]["containers"][0]["env"]
    assert "hunter2" not in json.dumps(read)
    assert len(snap.items("nodes")) == 2 and len(list(nodes(2))) == 2


def test_saved_snapshot_keeps_no_secret_env_value(tmp_path: Path) -> None:
    job = next(pytorchjobs(1))
    env = [
        {"name": "CKPT_S3_SECRET_ACCESS_KEY", "value": "hunter2"},
        {"name": "CHECKPOINT_DIR", "value": "s3://team-bucket/run-7"},
        {"name": "TORCH_NCCL_ENABLE_MONITORING", "value": "0"},
    ]
    for role in job["spec"]["pytorchReplicaSpecs"].values():
        role["template"]["spec"]["containers"][0]["env"] = env
    snap = synthetic_snapshot(2, 8)
    snap.objects["pytorchjobs.kubeflow.org"] = [project("pytorchjobs.kubeflow.org", job)]
    path = tmp_path / "cluster.json"
    save(snap, path)
    text = path.read_text()
    assert "hunter2" not in text and "team-bucket" not in text
    assert '"name":"CKPT_S3_SECRET_ACCESS_KEY"' in text
    # the checks still see what they compare: the watchdog switched off, the durable storage
    result = run_checks(list(ALL_CHECKS), load(path))
    status = {(f.check.id, f.resource.name): f.status for f in result.findings}
    assert status[("JOB-002", "job-0")] == "fail"
    assert ("CKPT-002", "job-0") not in status  # object-store checkpoints: no gap on job-0


def test_snapshot_model_and_offline_audit_import_no_http_client() -> None:
    code = (
        "import sys, incidents.audit.snapshot, incidents.audit.cli, incidents.audit.runner; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('httpx', 'httpcore')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("damage", ["flipped", "truncated"])
def test_a_damaged_gzip_snapshot_is_refused_in_one_line(
    saved: Path, tmp_path: Path, damage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from incidents.audit.cli import main

    data = bytearray(saved.read_bytes())
    if damage == "flipped":
        for i in range(200, 260):
            data[i] ^= 0xFF
    else:
        data = data[: len(data) // 2]
    path = tmp_path / "damaged.json.gz"
    path.write_bytes(bytes(data))
    assert main(["audit", "--snapshot", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"kubegap: error: snapshot {path} is corrupt (bad gzip or not UTF-8)"


def test_an_audit_leaves_no_context_behind_while_the_collector_is_paused(saved: Path) -> None:
    """The workload index refers back to its context (a cycle); with the cycle collector paused
    during an audit, the context must still go, or every object its views hold outlives it."""
    import gc

    from incidents.audit.context import Context
    from incidents.audit.runner import collector_paused

    gc.collect()
    # Contexts other tests keep alive (fixtures, results) are not this audit's.
    before = {id(o) for o in gc.get_objects() if type(o) is Context}  # no isinstance: proxies
    with collector_paused():
        result = run_checks(list(ALL_CHECKS), load(saved))
        left = [o for o in gc.get_objects() if type(o) is Context and id(o) not in before]
    assert result.findings and not left
