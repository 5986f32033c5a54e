"""Passes say what they examined and what they could not see; they never claim more."""

from __future__ import annotations

from incidents.audit.checks import REGISTRY
from incidents.audit.engine import run_checks
from incidents.audit.snapshot import load

from .conftest import FIXTURES


def _findings(path: str, check_id: str, namespace: str | None = None):  # type: ignore[no-untyped-def]
    snap = load(FIXTURES / path)
    if namespace:
        snap.limit_to_namespace(namespace)
    return run_checks([REGISTRY[check_id]], snap).findings


def test_a_namespaced_run_does_not_clear_other_namespaces() -> None:
    """NODE-001 under -n: the stranded pod is in another namespace, so it is neither blamed nor
    cleared: the pass is about this namespace and says what lies outside it."""
    whole = _findings("NODE-001/fail-stranded.yaml", "NODE-001")
    assert {f.status for f in whole} == {"fail"}
    [f] = _findings("NODE-001/fail-stranded.yaml", "NODE-001", namespace="elsewhere")
    assert f.status == "pass"
    assert "no pods in namespace elsewhere stranded" in f.message
    assert "objects outside namespace elsewhere (--namespace)" in f.not_seen


def test_uniform_hardware_is_only_claimed_for_labels_that_exist() -> None:
    [f] = _findings("SCHED-001/pass-model-only-no-driver-labels.yaml", "SCHED-001")
    assert f.status == "pass"
    assert "one GPU model" in f.message and "driver" not in f.message
    assert "nvidia.com/cuda.driver.major: no node running these jobs carries it" in f.not_seen
    [f] = _findings("SCHED-001/pass-uniform.yaml", "SCHED-001")
    assert "one GPU model and one driver version" in f.message and not f.not_seen


def test_a_ready_count_is_not_called_a_validated_stack() -> None:
    [f] = _findings("PRE-002/pass-ready.yaml", "PRE-002")
    assert f.status == "pass" and "validated" not in f.message
    assert f.examined


def test_gpu_002_names_what_it_cannot_see() -> None:
    [f] = _findings("GPU-002/pass-faulty-node-cordoned.yaml", "GPU-002")
    assert f.status == "pass"
    assert "GPU faults that no agent turns into a node condition (see GPU-001)" in f.not_seen


def test_a_workload_on_two_faulty_nodes_is_one_finding() -> None:
    """Results on the same object merge, even when their evidence holds lists."""
    import yaml

    from incidents.audit.snapshot import from_objects

    doc = yaml.safe_load(
        (FIXTURES / "GPU-002/fail-training-pod-on-cordoned-faulty-node.yaml").read_text()
    )
    items = doc["items"]
    second = next(i for i in items if i["kind"] == "Node" and i["metadata"]["name"] == "gpu-2")
    second["status"]["conditions"][1] = {"type": "XIDErrors", "status": "True", "reason": "Xid48"}
    second["spec"]["unschedulable"] = True
    findings = run_checks([REGISTRY["GPU-002"]], from_objects(items)).findings
    [job] = [f for f in findings if f.resource.kind == "PyTorchJob"]
    assert set(job.members) == {"pod llm-master-0", "pod llm-worker-0"}
    assert {e.path for e in job.evidence} >= {
        "pods[spec.nodeName=gpu-1]",
        "pods[spec.nodeName=gpu-2]",
    }


def test_not_applicable_names_each_object_not_judged_and_why() -> None:
    """When every object was skipped the verdict names them and the reason, not just a count."""
    from incidents.audit.checks.common import Skip
    from incidents.audit.checks.common import per_object
    from incidents.audit.model import Resource

    items = [
        (Resource("ray.io/v1", "RayCluster", "a", "ray"), "head only"),
        (Resource("ray.io/v1", "RayCluster", "b", "ray"), "no workers"),
    ]
    [f] = per_object(items, lambda why: Skip(why), ok="ok", none="no gang")
    assert f.status == "not_applicable"
    assert (
        f.message
        == "no gang (2 not judged: ray/RayCluster/a: head only; ray/RayCluster/b: no workers)"
    )


def test_gang_admission_is_judged_inside_a_namespace() -> None:
    """JOB-004 under -n: a partial gang wholly inside the namespace fails; a pass there says the
    Kueue configuration (in Kueue's own namespace) was not seen."""
    [f] = _findings("JOB-004/fail-partial-min-available.yaml", "JOB-004", namespace="train")
    assert (f.status, f.resource.name) == ("fail", "llm")
    [f] = _findings("JOB-004/pass-full-gangs.yaml", "JOB-004", namespace="train")
    assert f.status == "pass"
    assert "the Kueue configuration outside namespace train (--namespace)" in f.not_seen


def test_nvlink_counters_not_asked_for_when_nothing_says_the_gpus_have_nvlink() -> None:
    """MON-002 passes ECC and XID counters on a node whose GPU model is unknown, and says it could
    not tell whether NVLink is there; on an H100 SXM node the same counters fail for NVLink."""
    [f] = _findings("MON-002/pass-nvlink-unknown.yaml", "MON-002")
    assert f.status == "pass"
    assert any(s.startswith("whether the GPUs have NVLink: 1 NVIDIA GPU nodes") for s in f.not_seen)
    [f] = _findings("MON-002/fail-nvlink-gpus-without-nvlink-counters.yaml", "MON-002")
    assert f.status == "fail" and "NVLink errors" in f.message
