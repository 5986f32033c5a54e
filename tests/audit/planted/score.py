"""Score kubegap on the blind planted scenarios (see README.md in this folder).

    .venv/bin/python -m tests.audit.planted.score [--verbose] [--round N] [SCENARIO ...]

Each scenario is a whole-cluster snapshot whose ``expect:`` block lists, per check, the objects it
must fail (``fail:``) and the look-alikes it must not fail (``not_fail:``). All checks run through
the engine with default settings; a gap is found when a ``fail`` finding of that check names that
object (``kind: Cluster`` means the check judged for the cluster as a whole and matches a
finding of that check on any object, since cluster-wide checks name the cluster, the exporter
DaemonSet or the ClusterPolicy as the case may be; ``or:`` lists other objects that count as the
same gap). A scenario with a top-level ``namespace:`` is audited as ``kubegap audit -n NS`` lists
a cluster: namespaced kinds limited to that namespace. Scenarios of round N > 1 are named
``rN-<name>``; every other scenario is round 1.
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from collections.abc import Iterable
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from incidents.audit.checks import ALL_CHECKS
from incidents.audit.engine import run_checks
from incidents.audit.model import Finding
from incidents.audit.snapshot import from_document

# libyaml's safe loader, as kubegap reads a snapshot (pure-Python PyYAML takes seconds on the set)
YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Target:
    """An object named by an expectation."""

    kind: str
    name: str
    namespace: str | None = None

    def matches(self, finding: Finding) -> bool:
        r = finding.resource
        if self.kind == "Cluster":
            return True  # the cluster as a whole: any object a cluster-wide check names
        return (r.kind, r.name, r.namespace or None) == (self.kind, self.name, self.namespace)

    def __str__(self) -> str:
        return f"{self.namespace or '_cluster'}/{self.kind}/{self.name}"


@dataclass(frozen=True)
class Expectation:
    """One ``fail:`` or ``not_fail:`` entry: a check and the object(s) it is about."""

    check: str
    targets: tuple[Target, ...]
    why: str

    @classmethod
    def parse(cls, raw: dict[str, Any]) -> Expectation:
        main = Target(raw["kind"], raw["name"], raw.get("namespace"))
        alts = tuple(Target(a["kind"], a["name"], a.get("namespace")) for a in raw.get("or", ()))
        return cls(raw["check"], (main, *alts), raw.get("why", ""))

    def matches(self, finding: Finding) -> bool:
        return finding.check.id == self.check and any(t.matches(finding) for t in self.targets)

    def __str__(self) -> str:
        return f"{self.check} {self.targets[0]}"


@dataclass(frozen=True)
class Score:
    """What kubegap did on one scenario."""

    scenario: str
    found: tuple[Expectation, ...]
    missed: tuple[Expectation, ...]
    lookalikes: int
    wrongly_failed: tuple[tuple[Expectation, Finding], ...]
    unlisted: tuple[Finding, ...]
    findings: tuple[Finding, ...]

    @property
    def planted(self) -> int:
        return len(self.found) + len(self.missed)


def _fails_matching(exp: Expectation, fails: Iterable[Finding]) -> list[Finding]:
    return [f for f in fails if exp.matches(f)]


def score_file(path: Path) -> Score:
    """Run every check on the scenario at `path` and compare with its ``expect:`` block.

    A file is read once per process (again when it changes): several tests score the same one.
    """
    stat = path.stat()
    return _score(path.resolve(), stat.st_mtime_ns, stat.st_size)


@functools.cache
def _score(path: Path, mtime_ns: int, size: int) -> Score:
    doc = yaml.load(path.read_text(), Loader=YAML_LOADER)  # noqa: S506 - a safe loader
    expect = doc["expect"]
    must_fail = [Expectation.parse(e) for e in expect.get("fail") or ()]
    must_not = [Expectation.parse(e) for e in expect.get("not_fail") or ()]
    snap = from_document(doc, path)  # as snapshot.load() reads it, without parsing it again
    if doc.get("namespace"):
        snap.limit_to_namespace(doc["namespace"])  # as the CLI does for -n/--namespace
    findings = tuple(run_checks(list(ALL_CHECKS), snap).findings)
    fails = [f for f in findings if f.status == "fail"]
    found = tuple(e for e in must_fail if _fails_matching(e, fails))
    wrong = tuple((e, f) for e in must_not for f in _fails_matching(e, fails))
    listed = [*must_fail, *must_not]
    unlisted = tuple(f for f in fails if not any(e.matches(f) for e in listed))
    return Score(
        scenario=path.stem,
        found=found,
        missed=tuple(e for e in must_fail if e not in found),
        lookalikes=len(must_not),
        wrongly_failed=wrong,
        unlisted=unlisted,
        findings=findings,
    )


def round_of(path: Path) -> int:
    """The evaluation round a scenario belongs to: N for ``rN-<name>``, else 1."""
    m = re.match(r"r(\d+)-", path.stem)
    return int(m.group(1)) if m else 1


def scenario_paths(names: Sequence[str] = (), round_no: int | None = None) -> list[Path]:
    paths = sorted(HERE.glob("*.yaml"))
    return [
        p
        for p in paths
        if (not names or p.stem in names) and (round_no is None or round_of(p) == round_no)
    ]


def score_all(names: Sequence[str] = (), round_no: int | None = None) -> list[Score]:
    return [score_file(p) for p in scenario_paths(names, round_no)]


def _said(score: Score, exp: Expectation) -> str:
    """What kubegap reported for the check of a missed expectation."""
    own = [f for f in score.findings if f.check.id == exp.check]
    return "; ".join(f"{f.status} {f.resource.logical_name}: {f.message}" for f in own) or "-"


def _line(label: str, found: int, planted: int, wrong: int, lookalikes: int, unlisted: int) -> str:
    return (
        f"{label:<26} found {found:>2}/{planted:<2}  wrongly failed {wrong:>2}/{lookalikes:<2}"
        f"  unlisted fails {unlisted:>2}"
    )


def report(scores: Sequence[Score], verbose: bool = False) -> str:
    out: list[str] = []
    for s in scores:
        wrong_objects = {e for e, _ in s.wrongly_failed}
        out.append(
            _line(
                s.scenario,
                len(s.found),
                s.planted,
                len(wrong_objects),
                s.lookalikes,
                len(s.unlisted),
            )
        )
        if not verbose:
            continue
        for e in s.missed:
            out.append(f"  MISS   {e}  (expected: {e.why})\n         kubegap: {_said(s, e)}")
        for e, f in s.wrongly_failed:
            out.append(f"  WRONG  {e}  (look-alike: {e.why})\n         kubegap: {f.message}")
        for f in s.unlisted:
            out.append(f"  UNLISTED {f.check.id} {f.resource.logical_name}: {f.message}")
    t = totals(scores)
    out.append(_line("TOTAL", t["found"], t["planted"], t["wrong"], t["lookalikes"], t["unlisted"]))
    return "\n".join(out)


def totals(scores: Sequence[Score]) -> dict[str, int]:
    """Sums over scenarios; ``wrong`` counts look-alikes wrongly failed (not findings)."""
    return {
        "found": sum(len(s.found) for s in scores),
        "planted": sum(s.planted for s in scores),
        "wrong": sum(len({e for e, _ in s.wrongly_failed}) for s in scores),
        "lookalikes": sum(s.lookalikes for s in scores),
        "unlisted": sum(len(s.unlisted) for s in scores),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", "-v", action="store_true", help="list misses and wrong fails")
    parser.add_argument("--round", type=int, dest="round_no", help="only this round's scenarios")
    parser.add_argument("scenarios", nargs="*", help="scenario names (default: all)")
    args = parser.parse_args(argv)
    print(report(score_all(args.scenarios, args.round_no), verbose=args.verbose))
    return 0


if __name__ == "__main__":
    sys.exit(main())
