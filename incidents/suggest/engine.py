"""The suggestion engine: which facet values a text names, with the words and a score for each.

Evidence for a value, strongest first (each weight is in incidents.suggest.weights):
- its name or an alias, as stems ("timeouts" for "timeout", "leaking" for "leak"; a short form
  as its word, "ckpt" for "checkpoint", incidents.suggest.words), written together or apart
  ("dataloader"), a small typo forgiven in a long word (`TYPO_FACTOR`);
- one of its curated phrases ("fell off the bus"), whose words may have up to `MAX_GAP` other
  words between them (numbers do not count; none in a phrase of two words, `PAIR_GAP`), its
  function words optional, written joined or apart ("autoupdate"), a verb and particle
  apart or together ("timed out", "timeout"), a preposition's phrase the other way round
  ("memory errors on the GPU", "GPU memory errors"), and read with synonyms of its predicate or
  subject (incidents.suggest.synonyms) (`PHRASE_WEIGHT`);
- words distinctive of the cases tagged with it (`LEARNED_WEIGHT`, at most);
- the like-cases prior: its share of the tags of the library's cases most like the text
  (incidents.suggest.like), counted only when the text also holds a rare word of the value's
  own wording; the suggestion then names those cases (`like`);
- weak evidence, which alone stays below the threshold and needs a second piece: a one-word phrase
  that is an everyday English word ("stalled", `EVERYDAY_PHRASE_WEIGHT`); a component right
  after a number or before a noun of measure ("512 GPUs", "GPU hours", `COUNTED_WEIGHT`); an
  organisation right before a component, as its vendor ("NVIDIA A100", `VENDOR_WEIGHT`); a word
  flagged `ambiguous` in the vocabulary ("node", `AMBIGUOUS_WEIGHT`), unless the text names a
  broader or narrower value of its family outright (`CONFIRMED_WEIGHT`).
A term the text denies or rules out ("with no restart", "not a hardware problem", "ruled out the
network") is no evidence, nor are its words for learned evidence or like cases
(incidents.suggest.negation); no
term's words span the end of a clause (`CLAUSE_BOUND`); a component's one-word name written as
a verb's past ("switched off") names no part (`PARTS_ARE_NOUNS`).
Pieces of evidence (a value's distinct terms, its learned words) combine as independent chances
(`scoring.noisy_or`: 1 - product of misses); a parent also collects its children's, so that
when no specific value is certain enough the broader one may be. A value is suggested when its
score reaches `THRESHOLD`, the one threshold, tuned on the tune half of
tests/data/retrieval_eval.yaml (`manage.py eval_suggestions`).

The steps, one module each: incidents.suggest.matching finds where the text spells each term;
incidents.suggest.selection keeps the hits that stand (within a facet the longest match wins,
"NCCL timeout" over a bare "timeout"); incidents.suggest.scoring adds the evidence up; this
module puts them together and says, for each value suggested, which words named it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import replace

from incidents.facets import ORGANISATION
from incidents.suggest import weights
from incidents.suggest.lexicon import Lexicon
from incidents.suggest.like import like_cases
from incidents.suggest.matching import Hit
from incidents.suggest.matching import find_hits
from incidents.suggest.negation import ruled_out
from incidents.suggest.scoring import explicit_score
from incidents.suggest.scoring import learned_evidence
from incidents.suggest.scoring import noisy_or
from incidents.suggest.scoring import with_children
from incidents.suggest.selection import select_hits
from incidents.suggest.weights import THRESHOLD
from incidents.suggest.words import Token
from incidents.suggest.words import tokens


@dataclass(frozen=True)
class Found:
    """A value the text names: its score, the words that named it, and how."""

    value_id: int
    score: float
    words: tuple[str, ...]  # the text's words that triggered it, as written
    matched: str  # the text of its best match, or its strongest words
    term: str  # the name, alias or phrase matched ("" when only learned or a child's)
    exact: bool  # False when a typo was forgiven
    via: str  # "name", "alias", "phrase", "learned" or "children"
    position: int  # where in the text it was named (for ordering)
    length: int = 0  # how many words its best match spans (the longer first at one position)
    like: tuple[str, ...] = ()  # the like cases that raised it (labels), if the prior did


def suggest(
    lexicon: Lexicon, text: str, *, threshold: float = THRESHOLD, facet: str | None = None
) -> list[Found]:
    """The values `text` names, in the order their words appear (learned ones last)."""
    text = text[: weights.MAX_CHARS]
    words = tokens(text)
    if not words:
        return []
    standing, denied = ruled_out(words, find_hits(lexicon, words))
    hits = _confirmed(lexicon, select_hits(lexicon, words, standing))
    hits += _composed(lexicon, words, hits)
    by_value: dict[int, list[Hit]] = defaultdict(list)
    for hit in hits:
        by_value[hit.term.value_id].append(hit)
    covered = {i for hit in hits if hit.score > weights.AMBIGUOUS_WEIGHT for i in hit.words_at()}
    covered |= denied
    learned, learned_words = learned_evidence(lexicon, words, covered)

    explicit = {v: explicit_score(found) for v, found in by_value.items()}
    own = {
        v: noisy_or(explicit.get(v, 0.0), learned.get(v, 0.0)) for v in set(by_value) | set(learned)
    }
    named = {
        i: hit.term.value_id
        for hit in hits
        if hit.score > weights.AMBIGUOUS_WEIGHT
        for i in hit.words_at()
    }
    like, support_words = like_cases(lexicon, words, named, denied)
    before = with_children(lexicon, own, explicit) if like else {}
    for v, boost in like.items():
        own[v] = noisy_or(own.get(v, 0.0), boost[0])
    total = with_children(lexicon, own, explicit)

    chosen = {v for v, s in total.items() if s >= threshold}
    # A broader value that passes only through its children gives way to a child that passes.
    for value_id in list(chosen):
        if explicit.get(value_id, 0.0) < threshold and any(
            value_id in lexicon.ancestors(other) for other in chosen if other != value_id
        ):
            chosen.discard(value_id)
    found = []
    for v in chosen:
        if facet is not None and lexicon.values[v].facet != facet:
            continue
        shown = learned.get(v, 0.0) >= weights.LEARNED_SHOWN
        own_hits, own_words, via = (
            by_value.get(v, []),
            learned_words.get(v, []) if shown else [],
            "",
        )
        # The like cases are shown when the value needed them to pass.
        liked = like[v][1] if v in like and before.get(v, 0.0) < threshold else ()
        if not own_hits and not own_words and liked:
            via, own_words = "like", support_words.get(v, [])
        if not own_hits and not own_words:
            # Named through its children: their words are its words.
            via = "children"
            own_hits = [h for h in hits if v in lexicon.ancestors(h.term.value_id)]
            own_words = [
                w
                for c, ws in learned_words.items()
                if v in lexicon.ancestors(c) and learned.get(c, 0.0) >= weights.LEARNED_SHOWN
                for w in ws
            ]
        found.append(
            replace(_found(text, words, v, total[v], own_hits, own_words, via), like=liked)
        )
    return sorted(found, key=lambda f: (f.position, -f.length, -f.score, f.value_id))


def _confirmed(lexicon: Lexicon, hits: list[Hit]) -> list[Hit]:
    """An everyday word flagged ambiguous ("control plane", "node") counts fully where the text
    also names, outright, a broader or narrower value of the same family ("the Kubernetes control
    plane", "the etcd behind the control plane"); an organisation's ("imbue", "upstage") where
    it names outright an organisation that one of the two descriptions names ("imbue voltage
    park": Voltage Park "worked with Imbue's engineers"); and any where it names outright a value
    whose name or alias the ambiguous one's description uses (not for an organisation: "vast"
    beside storage is an amount) ("throttled" beside "CPU" or
    "cgroup": CPU throttling, "paused by the kernel for exceeding their CPU quota"; not beside
    "S3" or "the API")."""
    named = {h.term.value_id for h in hits if not h.term.ambiguous and h.score >= weights.THRESHOLD}
    if not named:
        return hits
    return [
        replace(hit, score=weights.CONFIRMED_WEIGHT)
        if hit.term.ambiguous
        and hit.score <= weights.AMBIGUOUS_WEIGHT
        and (
            named & lexicon.family(hit.term.value_id)
            or any(_partners(lexicon, hit.term.value_id, other) for other in named)
            or any(_described(lexicon, hit.term.value_id, other) for other in named)
        )
        else hit
        for hit in hits
    ]


def _described(lexicon: Lexicon, value_id: int, other: int) -> bool:
    """Whether the description of `value_id` uses the name or an alias of `other` (not one of
    its ambiguous words) as words: its context, which confirms an ambiguous word of it."""
    if (
        not weights.DESCRIBED_CONFIRMS
        or other == value_id
        or lexicon.values[value_id].facet == ORGANISATION.facet  # those have partners
    ):
        return False
    described = f" {' '.join(w.key for w in tokens(lexicon.values[value_id].description))} "
    named = lexicon.values[other]
    spellings = set((named.name, *named.aliases)) - set(named.ambiguous)
    return any(
        f" {' '.join(w.key for w in tokens(text))} " in described
        for text in spellings
        if tokens(text)
    )


def _partners(lexicon: Lexicon, value_id: int, other: int) -> bool:
    """Whether two organisations go together: the description of either names the other."""
    one, two = lexicon.values[value_id], lexicon.values[other]
    if not weights.PARTNERS_CONFIRM or one.facet != ORGANISATION.facet or two.facet != one.facet:
        return False
    return (
        one.name.lower() in two.description.lower() or two.name.lower() in one.description.lower()
    )


def _composed(lexicon: Lexicon, words: Sequence[Token], hits: list[Hit]) -> list[Hit]:
    """An everyday word flagged ambiguous ("node") that ends a longer name or alias of another
    value ("Kubernetes node", "k8s node"), whose other words the text uses elsewhere to name
    that value's parent outright ("the Job on k8s ate every resource on its node": k8s names
    Cluster orchestration): the text names that value there."""
    if not weights.COMPOSED_NAMES:
        return []
    # stem -> the values named outright by the words that have it
    naming: dict[str, set[int]] = defaultdict(set)
    for hit in hits:
        if not hit.term.ambiguous and hit.score >= weights.THRESHOLD:
            for i in hit.words_at():
                naming[words[i].stem].add(hit.term.value_id)
    found: list[Hit] = []
    for hit in hits:
        if not naming or not hit.term.ambiguous or hit.score > weights.AMBIGUOUS_WEIGHT:
            continue
        tail = hit.term.stems
        for term in lexicon.by_last.get(tail[-1], []):
            head = term.stems[: -len(tail)]
            parents = set(lexicon.ancestors(term.value_id))
            if (
                head
                and term.stems[-len(tail) :] == tail
                and all(naming.get(s, set()) & parents for s in head)
            ):
                # A counted word stays counted ("a cluster of 2,500 nodes" on k8s).
                score = weights.CONFIRMED_WEIGHT * hit.score / weights.AMBIGUOUS_WEIGHT
                found.append(replace(hit, term=term, score=score))
    return found


def _found(
    text: str,
    words: Sequence[Token],
    value_id: int,
    score: float,
    hits: list[Hit],
    learned_words: list[str],
    via: str,
) -> Found:
    if hits:
        best = max(hits, key=lambda h: (h.score, h.end - h.start))
        written = [words[i].written for h in hits for i in sorted(h.words_at())]
        return Found(
            value_id,
            round(score, 3),
            tuple(dict.fromkeys(written + learned_words)),
            text[words[best.start].start : words[best.end - 1].end],
            "" if via else best.term.text,
            best.distance == 0,
            via or best.term.kind,
            min(h.start for h in hits),
            best.end - best.start,
        )
    return Found(
        value_id,
        round(score, 3),
        tuple(dict.fromkeys(learned_words)),
        ", ".join(dict.fromkeys(learned_words)),
        "",
        True,
        via or "learned",
        len(words),
    )
