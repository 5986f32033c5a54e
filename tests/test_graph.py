"""The graph of cases and what they share (pure networkx part)."""

from __future__ import annotations

import pytest

from incidents.graph import (
    CaseNode,
    Linked,
    annotate_centrality,
    build_graph,
    shared_hubs,
    to_cytoscape,
)


def _cases() -> list[CaseNode]:
    restart = Linked("remediation", "restart", "Restart from checkpoint")
    gpu = Linked("component", "gpu", "GPU")
    nccl = Linked("symptom", "nccl-timeout", "NCCL timeout")
    return [
        CaseNode("a", "Case A", [gpu, nccl, restart]),
        CaseNode("b", "Case B", [gpu, restart, Linked("lesson", "weigh", "Weigh")]),
        CaseNode("c", "Case C", [nccl, Linked("component", "etcd", "etcd")]),
    ]


def test_cases_link_to_what_they_share_and_count_it() -> None:
    graph = build_graph(_cases())
    assert graph.nodes["component:gpu"]["cases"] == 2
    assert graph.nodes["remediation:restart"]["cases"] == 2
    assert graph.nodes["component:etcd"]["cases"] == 1
    assert set(graph.neighbors("case:a")) == {
        "component:gpu",
        "symptom:nccl-timeout",
        "remediation:restart",
    }


def test_min_cases_keeps_only_shared_nodes() -> None:
    graph = build_graph(_cases(), min_cases=2)
    assert "component:etcd" not in graph
    assert "lesson:weigh" not in graph
    assert "case:c" in graph  # cases stay, even when all they link to is pruned away


def test_hubs_rank_the_most_shared_nodes_and_bridges() -> None:
    graph = build_graph(_cases())
    annotate_centrality(graph)
    hubs = shared_hubs(graph, kinds=["component", "symptom", "remediation"])
    assert [(h.kind, h.slug, h.cases) for h in hubs][:1] == [("symptom", "nccl-timeout", 2)]
    # nccl-timeout bridges case C to the others, so it ranks above the equally shared gpu.
    assert {h.slug for h in hubs} == {"gpu", "nccl-timeout", "restart"}


def test_cytoscape_elements_are_stable() -> None:
    elements = to_cytoscape(build_graph(_cases()))
    ids = [n["data"]["id"] for n in elements["nodes"]]
    assert ids == sorted(ids)
    assert {"kind", "label", "url", "cases"} <= set(elements["nodes"][0]["data"])
    assert len(elements["edges"]) == 8


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown node kind 'organisation'"):
        build_graph([CaseNode("a", "A", [Linked("organisation", "x", "X")])])
