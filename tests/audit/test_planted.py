"""Floors on kubegap's blind evaluation set (tests/audit/planted/README.md).

The floors are what kubegap measures on the whole set: round 1 after its fixes (48/48 found, 0/87
look-alikes wrongly failed), round 2 after its fixes (31/31 found, 0/72 wrongly failed; its
blind score, before them, was 28/31 and 2/72) and round 3 after one fix (13/17 found, 0/55
wrongly failed; blind, 12/17 and 0/55), round 4 after its fixes (33/33, 0/83; blind, 28/33 and
5/83), round 5 after its fixes (26/26, 0/81; blind, 26/26 and 4/81), round 6 after its
fixes (27/27, 0/77; blind, 26/28 and 6/76) and round 7 after its fixes (25/25, 0/91;
blind, 16/25 and 5/91) and round 8 after its fixes (12/14, 0/65; blind, 11/14 and 3/65); a change that finds
fewer planted gaps or fails more look-alikes fails here. Raise the floors when a fix improves
them.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.audit.planted.score import YAML_LOADER
from tests.audit.planted.score import report
from tests.audit.planted.score import round_of
from tests.audit.planted.score import scenario_paths
from tests.audit.planted.score import score_all
from tests.audit.planted.score import score_file
from tests.audit.planted.score import totals

# planted gaps found, of 221 (rounds 1-8: 48/48, 31/31, 13/17, 33/33, 26/26, 27/27, 25/25, 12/14)
FOUND_FLOOR = 215
# look-alikes wrongly failed, of 611 (rounds 1-8: 0/87, 0/72, 0/55, 0/83, 0/81, 0/77, 0/91, 0/65)
WRONG_CEILING = 0


def test_planted_gaps_found_and_lookalikes_not_failed() -> None:
    scores = score_all()
    t = totals(scores)
    assert len(scores) == 36
    assert t["found"] >= FOUND_FLOOR, report(scores, verbose=True)
    assert t["wrong"] <= WRONG_CEILING, report(scores, verbose=True)


def test_scorer_counts_a_miss_and_a_wrong_fail(tmp_path: Path) -> None:
    """The scorer itself: an expectation kubegap cannot meet is a miss, a fail it reports on a
    listed look-alike is a wrong verdict, and a listed fail is not counted as unlisted."""
    src = next(p for p in scenario_paths() if p.stem == "healthy-unusual")
    doc = yaml.load(src.read_text(), Loader=YAML_LOADER)  # noqa: S506 - a safe loader
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


# Rounds 2 onwards: how many `rN-` scenarios each holds.
SCENARIOS_PER_ROUND = {2: 6, 3: 4, 4: 4, 5: 4, 6: 4, 7: 4, 8: 3}


def test_rounds_are_told_apart_by_name() -> None:
    """Round 1 is the first seven scenarios; rounds 2 to 8 the `r2-` to `r8-` ones, scored alone."""
    assert len(scenario_paths(round_no=1)) == 7
    for round_no, scenarios in SCENARIOS_PER_ROUND.items():
        named = scenario_paths(round_no=round_no)
        assert len(named) == scenarios, round_no
        assert all(p.stem.startswith(f"r{round_no}-") for p in named), round_no
    assert {round_of(p) for p in scenario_paths()} == {1, 2, 3, 4, 5, 6, 7, 8}


def test_a_namespaced_scenario_sees_only_its_namespace() -> None:
    """`namespace:` audits as `kubegap audit -n NS` would: namespaced objects of other namespaces
    are not listed, so no finding names one, and cluster-wide checks are not evaluated."""
    src = next(p for p in scenario_paths() if p.stem == "r2-kubeflow-namespaced")
    score = score_file(src)
    assert {f.resource.namespace for f in score.findings} <= {None, "llm-train"}
    gpu001 = [f for f in score.findings if f.check.id == "GPU-001"]
    assert gpu001 and all(f.status == "not_evaluated" for f in gpu001)
