"""The kinds of node the graph draws, their labels (from the facet registry) and node ids.

A node id is "<kind>:<slug>" ("symptom:nccl-timeout", "remediation:restart-from-last-checkpoint",
"case:acme-seren-kalos-pretraining-failures"): the form a focus link carries in its address.
"""

from __future__ import annotations

from dataclasses import dataclass

from incidents.facets import FAILURE_FACETS

CASE = "case"
REMEDIATION = "remediation"
LESSON = "lesson"
SHARED_KINDS: tuple[str, ...] = (REMEDIATION, LESSON)
VALUE_KINDS: tuple[str, ...] = tuple(spec.facet for spec in FAILURE_FACETS)

# Every kind of node with its label, in the order the legend shows them. Labels of facet values
# are the registry's ("Root cause", "Contributing factor"), never made up from the stored name.
NODE_KINDS: dict[str, str] = {
    **{spec.facet: spec.label for spec in FAILURE_FACETS},
    REMEDIATION: "Remediation",
    LESSON: "Lesson",
    CASE: "Case",
}
NODE_PLURALS: dict[str, str] = {
    **{spec.facet: spec.plural for spec in FAILURE_FACETS},
    REMEDIATION: "Remediations",
    LESSON: "Lessons",
    CASE: "Cases",
}

# A node inside the graph package: its kind and its database id (slugs and labels come later,
# read only for the nodes a view lists).
NodeKey = tuple[str, int]


@dataclass(frozen=True)
class NodeRef:
    """A node named in an address: `kind:slug`."""

    kind: str
    slug: str

    @property
    def id(self) -> str:
        return f"{self.kind}:{self.slug}"


class BadNodeRef(ValueError):
    """An address names a node in a form the graph does not know."""


def parse_node_ref(text: str) -> NodeRef:
    """`"symptom:nccl-timeout"` as a NodeRef; BadNodeRef says what is wrong with anything else."""
    kind, sep, slug = text.partition(":")
    if not sep or not slug:
        raise BadNodeRef(f"{text!r} is not of the form kind:slug (e.g. symptom:nccl-timeout)")
    if kind not in NODE_KINDS:
        raise BadNodeRef(f"{kind!r} is not a kind of node (one of {', '.join(NODE_KINDS)})")
    return NodeRef(kind, slug)


# Words a slug spells in lower case that a label writes otherwise.
_WORDS = {"gpu": "GPU", "gpus": "GPUs", "cpu": "CPU", "dns": "DNS", "snat": "SNAT", "os": "OS"}


def short_label(kind: str, slug: str, text: str) -> str:
    """What a drawing writes for a node: a remediation's or lesson's slug as words (its text is
    a sentence; the slug names it: "Restart from last checkpoint"), any other node's own name."""
    if kind not in SHARED_KINDS:
        return text
    words = [_WORDS.get(word, word) for word in slug.split("-") if word]
    if not words:
        return text
    return " ".join([words[0][:1].upper() + words[0][1:], *words[1:]])
