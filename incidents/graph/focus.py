"""Focus views: one node, and what the cases around it share.

- a value: "what fixes this kind of failure?": the remediations and lessons of the cases with
  this value (or a narrower one), ranked by how many of them used each, and the causes and
  symptoms (or components) seen with it;
- a remediation or lesson: the failures it was used against (causes, components, symptoms of the
  cases that used it) and those cases;
- a case: its own values, remediations and lessons (each with how many other cases share it)
  and the cases that share the most with it.

Counts of co-occurring values use what each case was tagged with (not the implied broader
values), so that a ranking names specific causes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from collections.abc import Sequence

from incidents.facets import BY_FACET
from incidents.graph.kinds import CASE
from incidents.graph.kinds import LESSON
from incidents.graph.kinds import NODE_PLURALS
from incidents.graph.kinds import REMEDIATION
from incidents.graph.kinds import NodeKey
from incidents.graph.links import CaseLinks
from incidents.graph.links import ValueTree
from incidents.graph.overview import COMPONENT
from incidents.graph.overview import CONTRIBUTING
from incidents.graph.overview import ROOT_CAUSE
from incidents.graph.overview import SYMPTOM
from incidents.graph.picture import Picture
from incidents.graph.picture import PictureColumn
from incidents.graph.picture import PictureEdge
from incidents.graph.picture import PictureNode

PER_COLUMN = 15
CAUSES = (ROOT_CAUSE, CONTRIBUTING)
SHARED = (REMEDIATION, LESSON)
VALUES = (ROOT_CAUSE, CONTRIBUTING, COMPONENT, SYMPTOM)


def _column(
    title: str, kinds: tuple[str, ...], counts: Counter[NodeKey], *, skip: Collection[NodeKey] = ()
) -> PictureColumn:
    ranked = sorted(
        (k for k, n in counts.items() if k[0] in kinds and n and k not in skip),
        key=lambda k: (-counts[k], kinds.index(k[0]), k),
    )
    nodes = [PictureNode(k, counts[k]) for k in ranked[:PER_COLUMN]]
    return PictureColumn(title, kinds, nodes, hidden=max(0, len(ranked) - PER_COLUMN))


def _title(kinds: Sequence[str]) -> str:
    names = [NODE_PLURALS[k] for k in kinds]
    return names[0] if len(names) == 1 else f"{names[0]} and {names[1].lower()}"


def _picture(
    focus: NodeKey, cases: int, left: list[PictureColumn], right: list[PictureColumn]
) -> Picture:
    center = PictureColumn(NODE_PLURALS[focus[0]][:-1], (focus[0],), [PictureNode(focus, cases)])
    center.center = True
    columns = [c for c in left if c.nodes] + [center] + [c for c in right if c.nodes]
    middle = columns.index(center)
    # Links to columns beyond a neighbour would cross its labels: drawn when highlighted.
    edges = [
        PictureEdge(focus, node.key, node.cases, near=abs(index - middle) == 1)
        for index, column in enumerate(columns)
        if not column.center
        for node in column.nodes
    ]
    return Picture(columns, edges, cases=cases, focus=focus)


def focus_cases(links: CaseLinks, key: NodeKey, *, leave_out: int | None = None) -> list[int]:
    """The cases a value, remediation or lesson focus is about (`leave_out`: the case it was
    reached from, for "elsewhere")."""
    return [c for c in links.cases_with(key) if c != leave_out]


def value_focus(
    links: CaseLinks, tree: ValueTree, key: NodeKey, *, leave_out: int | None = None
) -> Picture:
    """What the cases with a value (or a narrower one) did and learnt, and what came with it."""
    cases = focus_cases(links, key, leave_out=leave_out)
    counts = links.counts(cases, direct=True)
    related = {(key[0], v) for v in [key[1], *tree.ancestors(key[1])]}
    left = [_column("Causes seen with it", CAUSES, counts, skip=related)]
    right = [
        _column(NODE_PLURALS[REMEDIATION], (REMEDIATION,), counts),
        _column(NODE_PLURALS[LESSON], (LESSON,), counts),
    ]
    return _picture(key, len(cases), left, right)


def shared_focus(links: CaseLinks, key: NodeKey, *, leave_out: int | None = None) -> Picture:
    """The failures a remediation or lesson was used against, and the cases that used it."""
    cases = focus_cases(links, key, leave_out=leave_out)
    counts = links.counts(cases, direct=True)
    case_counts: Counter[NodeKey] = Counter({(CASE, c): 1 for c in cases})
    # Causes on one side and symptoms on the other, both next to it, so both are linked.
    left = [_column("Causes", CAUSES, counts)]
    right = [
        _column(NODE_PLURALS[SYMPTOM], (SYMPTOM,), counts),
        _column("Cases that used it", (CASE,), case_counts),
    ]
    return _picture(key, len(cases), left, right)


def case_focus(links: CaseLinks, case_id: int) -> Picture:
    """A case's values, remediations and lessons, each counted by the other cases that share it,
    and the cases sharing the most with it (`cases` of a case node: how many items it shares)."""
    own = links.direct_of(case_id)
    others = [c for c in links.case_ids if c != case_id]
    sharing: Counter[NodeKey] = Counter({k: 0 for k in own})
    overlap: Counter[NodeKey] = Counter()
    for other in others:
        shared = own & links.of(other)
        sharing.update(shared)
        if shared:
            overlap[(CASE, other)] = len(shared)
    # Shown with the number of cases that share it, the case itself included (never 0).
    shown = Counter({k: n + 1 for k, n in sharing.items()})
    left = [_column("Its causes, components, symptoms", VALUES, shown)]
    right = [
        _column("Its remediations and lessons", SHARED, shown),
        _column("Cases that share the most", (CASE,), overlap),
    ]
    picture = _picture((CASE, case_id), len(links.case_ids), left, right)
    picture.columns[[c.center for c in picture.columns].index(True)].nodes[0].cases = 1
    return picture


def is_value(key: NodeKey) -> bool:
    return key[0] in BY_FACET
