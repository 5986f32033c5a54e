"""A phrase's words found in any order, close together in one clause: weak evidence.

Engineers seldom write a curated phrase word for word: "the loader leaked memory" for "memory
leak in the data loader", "restarts of the job kept happening" for "job restarts". A phrase of
at least two content words (no function word, particle or negation counted) is found loosely
when each of its content words, or a one-word synonym of it (incidents.suggest.synonyms), is in
the same clause of the text within a window of `LOOSE_SPAN` words more than the phrase has. Such
a hit weighs `weights.LOOSE_WEIGHT` (below the threshold alone: a second piece of evidence, a
child, learned words or the like-cases prior, must confirm it); matches in order are found, with
their full weight, by incidents.suggest.matching.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from incidents.suggest import weights
from incidents.suggest.forms import FUNCTION_WORDS, PARTICLES
from incidents.suggest.lexicon import Lexicon, Term
from incidents.suggest.matching import Hit
from incidents.suggest.selection import NEGATIONS
from incidents.suggest.synonyms import groups_by_stems
from incidents.suggest.words import Token

# Words more than a phrase's own its loose match may spread over.
LOOSE_SPAN = 3


@functools.cache
def _synonyms() -> dict[str, frozenset[str]]:
    """Each one-word member of a synonym group with its one-word fellows, as stems."""
    found: dict[str, set[str]] = defaultdict(set)
    for group in groups_by_stems():
        single = {member[0] for member, _keys in group if len(member) == 1}
        for s in single:
            found[s].update(single)
    return {s: frozenset(fellows) for s, fellows in found.items()}


def _concepts(stem: str) -> frozenset[str]:
    return _synonyms().get(stem, frozenset((stem,)))


@dataclass
class LooseIndex:
    """Phrases by each of their content stems (with synonyms), for a loose look-up."""

    terms: list[tuple[Term, tuple[frozenset[str], ...]]] = field(default_factory=list)
    by_concept: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))

    @classmethod
    def build(cls, lexicon: Lexicon) -> LooseIndex:
        index = cls()
        seen: set[tuple[int, frozenset[str]]] = set()
        for terms in lexicon.by_first.values():
            for term in terms:
                content = _content(term)
                if content is None:
                    continue
                key = (term.value_id, frozenset(content))
                if key in seen:
                    continue
                seen.add(key)
                concepts = tuple(_concepts(s) for s in content)
                number = len(index.terms)
                index.terms.append((term, concepts))
                for c in concepts[0]:
                    index.by_concept[c].append(number)
        return index


def _content(term: Term) -> list[str] | None:
    """A term's content stems, if it may be matched loosely."""
    if term.kind != "phrase" or term.ambiguous or term.paraphrase:
        return None
    if any(k in NEGATIONS for k in term.keys):
        return None
    content = [s for s, k in zip(term.stems, term.keys, strict=True) if k not in FUNCTION_WORDS]
    if sum(1 for s in content if s not in PARTICLES) < 2:
        return None
    return list(dict.fromkeys(content))


def loose_hits(lexicon: Lexicon, index: LooseIndex, words: Sequence[Token]) -> list[Hit]:
    """Every phrase the words hold loosely (see the module docstring)."""
    if weights.LOOSE_WEIGHT <= 0:
        return []
    where: dict[str, list[int]] = defaultdict(list)
    for i, word in enumerate(words):
        where[word.stem].append(i)
    clause = [w.clause for w in words]
    candidates: set[int] = set()
    for s in where:
        candidates.update(index.by_concept.get(s, ()))
    hits = []
    for number in candidates:
        term, concepts = index.terms[number]
        positions = [sorted(p for c in group for p in where.get(c, ())) for group in concepts]
        if not all(positions):
            continue
        found = _window(positions, clause, len(concepts) + LOOSE_SPAN)
        if found is None:
            continue
        used = frozenset(found)
        start, end = min(used), max(used) + 1
        hits.append(
            Hit(
                start,
                end,
                term,
                0,
                weights.LOOSE_WEIGHT,
                frozenset(range(start, end)) - used,
                loose=True,
            )
        )
    return hits


def _window(positions: list[list[int]], clause: list[int], span: int) -> list[int] | None:
    """One position per content word, all distinct, in one clause, within `span` words."""
    for anchor in positions[0]:
        chosen = [anchor]
        for options in positions[1:]:
            best = min(
                (
                    p
                    for p in options
                    if p not in chosen
                    and clause[p] == clause[anchor]
                    and max(chosen + [p]) - min(chosen + [p]) < span
                ),
                key=lambda p: abs(p - anchor),
                default=None,
            )
            if best is None:
                break
            chosen.append(best)
        else:
            return chosen
    return None
