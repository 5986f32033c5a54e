"""The graph package (pure Python and networkx): projections, the overview's budget and tree
levels, focus rankings, and the column layout."""

from __future__ import annotations

import pytest

from incidents.graph import layout as graph_layout
from incidents.graph.focus import case_focus
from incidents.graph.focus import shared_focus
from incidents.graph.focus import value_focus
from incidents.graph.kinds import BadNodeRef
from incidents.graph.kinds import parse_node_ref
from incidents.graph.kinds import short_label
from incidents.graph.links import CaseLinks
from incidents.graph.links import ValueTree
from incidents.graph.overview import DEFAULT_KINDS
from incidents.graph.overview import overview
from incidents.graph.projection import weighted_projection

# Values: root cause 1 "hardware" with children 2 "gpu" and 3 "network"; root cause 4 "bug";
# symptom 10 "timeout"; component 20 "nic". Remediations 100, 101; lesson 200.
TREE = ValueTree({1: None, 2: 1, 3: 1, 4: None, 10: None, 20: None})
ROOTS = {"root_cause": [1, 4], "symptom": [10], "component": [20], "contributing_factor": []}
HARDWARE, GPU, NETWORK, BUG = (
    ("root_cause", 1),
    ("root_cause", 2),
    ("root_cause", 3),
    ("root_cause", 4),
)
TIMEOUT, NIC = ("symptom", 10), ("component", 20)
RESTART, REPLACE, LESSON = ("remediation", 100), ("remediation", 101), ("lesson", 200)


def _links() -> CaseLinks:
    """Case 1: gpu fault, timeout, restart. Case 2: network fault, timeout, nic, restart, replace.
    Case 3: bug, timeout, lesson. (Tagged values imply their parent, as the loader does.)"""
    links = CaseLinks([1, 2, 3])
    for case, tagged in {
        1: [GPU, TIMEOUT, RESTART],
        2: [NETWORK, TIMEOUT, NIC, RESTART, REPLACE],
        3: [BUG, TIMEOUT, LESSON],
    }.items():
        for key in tagged:
            links.add(case, key)
            if key[0] == "root_cause":
                for parent in TREE.ancestors(key[1]):
                    links.add(case, ("root_cause", parent), direct=False)
    return links


def _overview(**kwargs: object):  # type: ignore[no-untyped-def]
    shared = {"remediation": [100, 101], "lesson": [200]}
    return overview(_links(), TREE, roots_by_kind=ROOTS, shared_items=shared, **kwargs)  # type: ignore[arg-type]


def test_projection_is_networkx_weighted_projection() -> None:
    import networkx as nx  # here: every xdist worker collects this module, one runs this test

    links = _links()
    bipartite = nx.Graph()
    for case in links.case_ids:
        bipartite.add_edges_from((("case", case), item) for item in links.of(case))
    items = sorted({k for c in links.case_ids for k in links.of(c)})
    expected = nx.bipartite.weighted_projected_graph(bipartite, items)
    ours = weighted_projection((links.of(c) for c in links.case_ids), items)
    assert sorted(ours.edges(data="weight")) == sorted(
        (min(a, b), max(a, b), w) for a, b, w in expected.edges(data="weight")
    )
    assert ours[TIMEOUT][RESTART]["weight"] == 2


def test_overview_draws_values_at_the_top_of_their_trees() -> None:
    picture, tables = _overview()
    keys = picture.keys()
    assert HARDWARE in keys and GPU not in keys and NETWORK not in keys
    hardware = next(n for n in picture.nodes() if n.key == HARDWARE)
    assert hardware.cases == 2 and hardware.expandable and not hardware.expanded
    assert [c.title for c in picture.columns] == [
        "Root causes",
        "Components",
        "Symptoms",
        "Remediations and lessons",
    ]
    # Remediations by root cause: cases with both.
    assert tables.matrix[(RESTART, HARDWARE)] == 2
    assert tables.matrix[(RESTART, BUG)] == 0


def test_expanding_a_value_draws_its_children_under_it() -> None:
    picture, _ = _overview(expand={1})
    causes = picture.columns[0].nodes
    assert [n.key for n in causes] == [HARDWARE, GPU, NETWORK, BUG]
    assert [n.depth for n in causes] == [0, 1, 1, 0]
    assert causes[0].expanded


def test_overview_keeps_to_its_budget_and_says_what_is_hidden() -> None:
    picture, _ = _overview(budget=4)
    assert len(picture.nodes()) == 4
    assert sum(c.hidden for c in picture.columns) == 3  # 2 causes, nic, timeout, 3 shared: 7
    # Each column gets a share before any column gets two.
    assert all(c.nodes for c in picture.columns)


def test_overview_edges_are_weighted_by_shared_cases_and_deterministic() -> None:
    first, _ = _overview()
    again, _ = _overview()
    assert first == again
    weights = {(e.a, e.b): e.weight for e in first.edges}
    assert weights[(TIMEOUT, RESTART)] == 2
    assert weights[(HARDWARE, NIC)] == 1
    assert all(e.near for e in first.edges if (e.a, e.b) == (NIC, TIMEOUT))
    assert not next(e for e in first.edges if (e.a, e.b) == (HARDWARE, RESTART)).near


def test_contributing_factors_are_drawn_only_when_asked_for() -> None:
    picture, _ = _overview(kinds=DEFAULT_KINDS)
    assert "contributing_factor" not in {k for c in picture.columns for k in c.kinds}
    picture, _ = _overview(kinds=("root_cause", "contributing_factor", "symptom"))
    assert picture.columns[0].title == "Root causes and contributing factors"
    assert len(picture.columns) == 2


def test_value_focus_ranks_what_the_cases_with_it_used() -> None:
    picture = value_focus(_links(), TREE, HARDWARE)
    assert picture.focus == HARDWARE and picture.cases == 2  # through gpu and network
    by_key = {n.key: n.cases for n in picture.nodes()}
    assert by_key[RESTART] == 2 and by_key[REPLACE] == 1
    assert LESSON not in by_key  # case 3 has no hardware fault
    # Co-occurring causes are the cases' own tags, never the focus or its ancestors.
    assert (
        by_key[GPU] == 1
        and by_key[NETWORK] == 1
        and HARDWARE not in [n.key for c in picture.columns if not c.center for n in c.nodes]
    )
    remediations = next(c for c in picture.columns if c.title == "Remediations")
    assert [n.key for n in remediations.nodes] == [RESTART, REPLACE]


def test_value_focus_can_leave_out_the_case_it_came_from() -> None:
    picture = value_focus(_links(), TREE, TIMEOUT, leave_out=1)
    by_key = {n.key: n.cases for n in picture.nodes()}
    assert picture.cases == 2 and by_key[RESTART] == 1 and by_key[LESSON] == 1


def test_shared_focus_names_the_failures_it_was_used_against() -> None:
    picture = shared_focus(_links(), RESTART)
    by_key = {n.key: n.cases for n in picture.nodes()}
    assert by_key[TIMEOUT] == 2 and by_key[GPU] == 1 and by_key[NETWORK] == 1
    assert {("case", 1), ("case", 2)} <= by_key.keys() and ("case", 3) not in by_key


def test_case_focus_counts_who_shares_each_of_its_items() -> None:
    picture = case_focus(_links(), 1)
    by_key = {n.key: n.cases for n in picture.nodes()}
    assert by_key[TIMEOUT] == 3 and by_key[RESTART] == 2 and by_key[GPU] == 1
    assert by_key[("case", 2)] == 2  # timeout and restart
    assert by_key[("case", 3)] == 1


def test_layout_cuts_labels_to_their_room_and_keeps_rows_apart() -> None:
    picture, _ = _overview()
    labels = {key: "A very long label " * 10 for key in picture.keys()}
    placed = graph_layout.layout(picture, labels)
    column_width = graph_layout.WIDTH // len(picture.columns)
    for node in placed.nodes:
        if node.column < len(picture.columns) - 1:
            assert node.label_end <= (node.column + 1) * column_width + 4 * graph_layout.CHAR_PX
        assert node.label.endswith("…") and len(node.label) < 60
    for column in range(len(picture.columns)):
        ys = sorted(n.y for n in placed.nodes if n.column == column)
        assert all(b - a >= graph_layout.ROW_PX for a, b in zip(ys, ys[1:], strict=False))
    assert graph_layout.layout(picture, labels) == placed


def test_cut_keeps_short_text_and_cuts_long_text_at_a_word() -> None:
    assert graph_layout.cut("NCCL timeout", 20) == "NCCL timeout"
    assert graph_layout.cut("Restarted the interrupted job from its checkpoint", 22) == (
        "Restarted the…"
    )


def test_node_refs_are_checked() -> None:
    assert parse_node_ref("symptom:nccl-timeout").id == "symptom:nccl-timeout"
    with pytest.raises(BadNodeRef, match="not of the form kind:slug"):
        parse_node_ref("nccl-timeout")
    with pytest.raises(BadNodeRef, match="'organisation' is not a kind of node"):
        parse_node_ref("organisation:meta")


def test_short_labels_name_remediations_by_their_slug() -> None:
    assert short_label("remediation", "weight-failures-by-gpu-time", "Count…") == (
        "Weight failures by GPU time"
    )
    assert short_label("symptom", "nccl-timeout", "NCCL timeout") == "NCCL timeout"
