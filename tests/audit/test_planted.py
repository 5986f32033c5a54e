"""Floors on kubegap's blind evaluation set (tests/audit/planted/README.md).

The floors are the figures kubegap measured after the first round of fixes (46/47 found and 7/88
look-alikes wrongly failed before it; see the README); a change that finds fewer planted gaps or
fails more look-alikes fails here. Raise the floors when a fix improves them.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.audit.planted.score import report, scenario_paths, score_all, score_file, totals

FOUND_FLOOR = 48  # planted gaps found, of 48
WRONG_CEILING = 0  # look-alikes wrongly failed, of 87


def test_planted_gaps_found_and_lookalikes_not_failed() -> None:
    scores = score_all()
    t = totals(scores)
    assert len(scores) == 7
    assert t["found"] >= FOUND_FLOOR, report(scores, verbose=True)
    assert t["wrong"] <= WRONG_CEILING, report(scores, verbose=True)


def test_scorer_counts_a_miss_and_a_wrong_fail(tmp_path: Path) -> None:
    """The scorer itself: an expectation kubegap cannot meet is a miss, a fail it reports on a
    listed look-alike is a wrong verdict, and a listed fail is not counted as unlisted."""
    src = next(p for p in scenario_paths() if p.stem == "healthy-unusual")
    doc = yaml.safe_load(src.read_text())
    doc["expect"]["fail"].append(
        {"check": "GPU-003", "kind": "Node", "name": "h100-a", "why": "8 of 8: cannot be found"}
    )
    doc["expect"]["not_fail"].append(
        {"check": "JOB-002", "kind": "PyTorchJob", "name": "mixtral-sft", "namespace": "post-train"}
    )
    path = tmp_path / "probe.yaml"
    path.write_text(yaml.safe_dump(doc))
    before, after = score_file(src), score_file(path)
    assert [str(e) for e in after.missed] == ["GPU-003 _cluster/Node/h100-a"]
    assert len(after.wrongly_failed) == len(before.wrongly_failed) + 1
    assert len(after.found) == len(before.found)
    assert not [f for f in after.unlisted if f.check.id == "JOB-002"]
