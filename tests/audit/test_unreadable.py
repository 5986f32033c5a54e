"""An object kubegap cannot read is reported, naming the object and the field, and never judged
as if its fields were empty (a healthy node, a pass)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from incidents.audit.checks import ALL_CHECKS
from incidents.audit.checks import REGISTRY
from incidents.audit.engine import run_checks
from incidents.audit.kinds import project
from incidents.audit.report import check_status
from incidents.audit.report import exit_code
from incidents.audit.snapshot import load
from incidents.audit.snapshot import save
from incidents.audit.workloads.base import UNREADABLE
from incidents.audit.workloads.base import UNREADABLE_FIELD

REPO = Path(__file__).resolve().parents[2]
BROKEN = REPO / "fixtures/snapshots/demo-broken-gpu-cluster.json"
FAULTY_NODE = "gpu-1-0"  # the one GPU-002 fails on: XIDErrors=True, schedulable


def _broken_with(tmp_path: Path, edit: Any) -> Path:
    doc = json.loads(BROKEN.read_text())
    node = doc["kinds"]["nodes"]["items"][0]
    assert node["metadata"]["name"] == FAULTY_NODE
    edit(node)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc))
    return path


def _status_of(snapshot: Path, check_id: str) -> tuple[str, list[Any]]:
    check = REGISTRY[check_id]
    result = run_checks([check], load(snapshot))
    return check_status(check, result.findings), result.findings


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        ("status", "x", "status is a string ('x'), not a mapping"),
        ("conditions", "x", "status.conditions is a string ('x'), not a list"),
        ("conditions", [1], "status.conditions[0] is a number (1), not a mapping"),
        ("spec", ["cordoned"], "spec is a list (['cordoned']), not a mapping"),
    ],
)
def test_a_malformed_node_is_not_evaluated_never_a_pass(
    tmp_path: Path, field: str, value: Any, named: str
) -> None:
    def edit(node: dict[str, Any]) -> None:
        if field == "conditions":
            node["status"]["conditions"] = value
        else:
            node[field] = value

    status, findings = _status_of(_broken_with(tmp_path, edit), "GPU-002")
    assert status == "not_evaluated", [(f.status, f.message) for f in findings]
    [unread] = [f for f in findings if f.status == "not_evaluated"]
    assert unread.resource.name == FAULTY_NODE and unread.resource.kind == "Node"
    assert named in unread.message
    assert unread.evidence[0].path == named.split(" ")[0]


def test_an_unreadable_object_is_not_judged_as_empty(tmp_path: Path) -> None:
    """Read as empty, the node's GPUs would be 0 of its 8: GPU-003 must not fail on it."""
    snapshot = _broken_with(tmp_path, lambda node: node.update(status="x"))
    status, findings = _status_of(snapshot, "GPU-003")
    on_node = [f for f in findings if f.resource.name == FAULTY_NODE]
    assert [f.status for f in on_node] == ["not_evaluated"]


def test_a_snapshot_in_the_current_projection_is_checked_too(tmp_path: Path) -> None:
    """``kubegap collect``'s own files are not projected again on reading; a hand edit to one is
    still caught."""
    written = tmp_path / "collected.json"
    save(load(BROKEN), written)
    lines = written.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if f'"name":"{FAULTY_NODE}"' in line)
    node = json.loads(lines[at].rstrip().removesuffix(","))
    node["status"] = "x"
    lines[at] = json.dumps(node) + ("," if lines[at].rstrip().endswith(",") else "") + "\n"
    written.write_text("".join(lines))

    result = run_checks(list(ALL_CHECKS), load(written))
    gpu002 = [f for f in result.findings if f.check.id == "GPU-002"]
    assert check_status(REGISTRY["GPU-002"], gpu002) == "not_evaluated"
    # the node is named, and the other nodes are still judged (a pass over them, not a crash)
    [unread] = [f for f in gpu002 if f.status == "not_evaluated"]
    assert unread.resource.name == FAULTY_NODE and "status is a string" in unread.message
    assert [f.status for f in gpu002 if f.resource.name != FAULTY_NODE] == ["pass"]
    assert exit_code(result, "critical") == 3  # no critical fail left, one object not looked at


def test_a_pod_template_whose_metadata_is_not_a_mapping_names_that_field() -> None:
    """A workload's template metadata of the wrong type is reported at its path, like any other
    field checks read, rather than as a bare Python error."""
    daemonset = {
        "metadata": {"name": "dcgm-exporter", "namespace": "gpu"},
        "spec": {"template": {"metadata": "x", "spec": {"containers": []}}},
    }
    kept = project("daemonsets.apps", daemonset)
    assert kept[UNREADABLE] == "spec.template.metadata is a string ('x'), not a mapping"
    assert kept[UNREADABLE_FIELD] == "spec.template.metadata"
    assert kept["metadata"]["name"] == "dcgm-exporter"
