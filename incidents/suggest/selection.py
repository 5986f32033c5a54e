"""Which of the hits stand, and how much each weighs given the words around it.

Within a facet the longest match wins ("NCCL timeout" over a bare "timeout"); across facets a
component may sit inside another value's words ("NCCL" in "NCCL timeout", "GPU" in "GPU fell off
the bus"), where it names where the thing happened, but nothing else may ("leak" in "data leak").
A component right after a number or before a noun of measure is counted, not blamed
(`weights.COUNTED_WEIGHT`), an organisation right before a component is its vendor
(`weights.VENDOR_WEIGHT`). A term the text denies or rules out ("not a hardware problem",
"ruled out the network") has been left out before (incidents.suggest.negation).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from incidents.facets import ORGANISATION
from incidents.suggest import weights
from incidents.suggest.forms import FUNCTION_WORDS
from incidents.suggest.lexicon import Lexicon
from incidents.suggest.matching import Hit
from incidents.suggest.words import Token

# A component may sit inside the match of a value of these facets ("NCCL" in "NCCL timeout").
CONTAINED_FACET = "component"
CONTAINING_FACETS = frozenset({"symptom", "root_cause"})


def select_hits(lexicon: Lexicon, words: Sequence[Token], hits: list[Hit]) -> list[Hit]:
    """The hits that stand (the longest and strongest first; denied ones are left out before,
    incidents.suggest.negation), counted components and vendors weighed down."""
    kept = _select(lexicon, hits)
    return _vendors(lexicon, words, _measured(lexicon, words, _counted(lexicon, words, kept)))


def _select(lexicon: Lexicon, hits: list[Hit]) -> list[Hit]:
    """Matches of the most words, then the strongest, first; a match inside a longer one
    gives way (see the module's docstring)."""
    chosen: list[Hit] = []
    for hit in sorted(hits, key=lambda h: (-len(h.words_at()), -h.score, h.start)):
        facet = lexicon.values[hit.term.value_id].facet
        if any(_blocks(lexicon, kept, hit, facet) for kept in chosen):
            continue
        chosen.append(hit)
    return chosen


def _counted(lexicon: Lexicon, words: Sequence[Token], hits: list[Hit]) -> list[Hit]:
    """A component right after a number ("512 GPUs", "10k-GPU") is counted, not blamed; a
    number that is part of another match ("Xid 79 gpu") is a code, not a count."""
    taken = {i for h in hits for i in h.words_at()}
    return [
        replace(hit, score=hit.score * weights.COUNTED_WEIGHT)
        if hit.start > 0
        and any(ch.isdigit() for ch in words[hit.start - 1].key)
        and hit.start - 1 not in taken
        and lexicon.values[hit.term.value_id].facet == CONTAINED_FACET
        else hit
        for hit in hits
    ]


# Nouns of measure a component can qualify ("GPU hours", "node count", "GPU time"): the amount,
# not the part; and a scheduler's pool of it ("the GPU partition" of Slurm), which names where
# jobs ran, not a part that failed.
MEASURES = frozenset(
    "hour hours day days year years budget budgets cost costs count time partition partitions".split()
)


def _measured(lexicon: Lexicon, words: Sequence[Token], hits: list[Hit]) -> list[Hit]:
    """A component right before a noun of measure ("burns GPU hours") is counted, not blamed."""
    return [
        replace(hit, score=hit.score * weights.COUNTED_WEIGHT)
        if hit.end < len(words)
        and words[hit.end].key in MEASURES
        and lexicon.values[hit.term.value_id].facet == CONTAINED_FACET
        else hit
        for hit in hits
    ]


# Words an organisation's description uses for a company that sells parts ("The GPU maker").
MAKERS = frozenset("maker makers vendor vendors manufacturer manufacturers supplier".split())


def _vendors(lexicon: Lexicon, words: Sequence[Token], hits: list[Hit]) -> list[Hit]:
    """An organisation named right before a component ("NVIDIA A100", "Google Kubernetes
    Engine") is the vendor of a part or a product's maker, not who ran the system: it needs
    other evidence. But a keyword query lists its words rather than composing them: there an
    organisation is the vendor only if it makes parts (its description calls it a maker or
    vendor), any other is the operator ("monzo linkerd outage", "voltage park h100");
    0 in weights.VENDORS_MAKE_PARTS: the vendor everywhere."""
    starts = {h.start for h in hits if lexicon.values[h.term.value_id].facet == CONTAINED_FACET}
    listed = bool(weights.VENDORS_MAKE_PARTS) and _keywords(words)
    return [
        replace(h, score=h.score * weights.VENDOR_WEIGHT)
        if h.end in starts
        and lexicon.values[h.term.value_id].facet == ORGANISATION.facet
        and (not listed or _makes_parts(lexicon, h.term.value_id))
        else h
        for h in hits
    ]


# A text of at most this many words, none of them a function word, is a keyword query.
KEYWORD_QUERY_WORDS = 6


def _keywords(words: Sequence[Token]) -> bool:
    """Whether the text is a keyword query ("monzo linkerd payments outage")."""
    return len(words) <= KEYWORD_QUERY_WORDS and not any(w.key in FUNCTION_WORDS for w in words)


def _makes_parts(lexicon: Lexicon, value_id: int) -> bool:
    """Whether the organisation's description calls it a maker, vendor or supplier."""
    words = lexicon.values[value_id].description.lower().replace(",", " ").split()
    return not MAKERS.isdisjoint(words)


def _blocks(lexicon: Lexicon, kept: Hit, hit: Hit, facet: str) -> bool:
    """Whether `kept`, a hit that stands, keeps out `hit`, a weaker or shorter one of `facet`."""
    if kept.end <= hit.start or hit.end <= kept.start:
        return False  # no overlap
    if kept.term.value_id == hit.term.value_id:
        return (kept.start, kept.end) != (hit.start, hit.end) or kept.term == hit.term
    kept_facet = lexicon.values[kept.term.value_id].facet
    if kept_facet == facet:
        # The same words name one value of a facet; words skipped inside a phrase are free.
        return bool(set(hit.words_at()) & set(kept.words_at()))
    inside = set(hit.words_at()) <= set(kept.words_at())
    return inside and not (facet == CONTAINED_FACET and kept_facet in CONTAINING_FACETS)
