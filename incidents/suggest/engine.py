"""The suggestion engine: which facet values a text names, with the words and a score for each.

Evidence for a value, strongest first:
- its name or an alias, as stems ("timeouts" for "timeout", "leaking" for "leak"), written
  together or apart ("dataloader"), a small typo forgiven in a long word (`TYPO_FACTOR`);
- one of its curated phrases ("fell off the bus"), whose words may have up to `MAX_GAP` other
  words between them, its function words optional, a verb and particle apart or together
  ("timed out", "timeout") (`PHRASE_WEIGHT`);
- words distinctive of the cases tagged with it (`LEARNED_WEIGHT`, at most);
- the like-cases prior: its share of the tags of the library's cases most like the text
  (incidents.suggest.like), counted only when the text also holds a rare word of the value's
  own wording; the suggestion then names those cases (`like`);
- weak evidence, which alone stays below the threshold and needs a second piece: a one-word phrase
  that is an everyday English word ("stalled", `EVERYDAY_PHRASE_WEIGHT`); a component right
  after a number ("512 GPUs", `COUNTED_WEIGHT`); an organisation right before a component, as
  its vendor ("NVIDIA A100", `VENDOR_WEIGHT`); a word flagged `ambiguous` in the vocabulary
  ("node", `AMBIGUOUS_WEIGHT`).
Pieces of evidence (a value's distinct terms, its learned words) combine as independent chances (1 - product of misses); a parent also collects
its children's, so that when no specific value is certain enough the broader one may be. A value
is suggested when its score reaches `THRESHOLD`, the one threshold, tuned on the tune half of
tests/data/retrieval_eval.yaml (`manage.py eval_suggestions`).

Within a facet the longest match wins ("NCCL timeout" over a bare "timeout"); across facets a
component may sit inside another value's words ("NCCL" in "NCCL timeout", "GPU" in "GPU fell off
the bus"), where it names where the thing happened, but nothing else may ("leak" in "data leak").
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace

from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from incidents.facets import ORGANISATION
from incidents.suggest.lexicon import FUNCTION_WORDS, Lexicon, Term
from incidents.suggest.like import like_cases
from incidents.suggest.words import Token, stem, tokens

# Tuned on the tune half of the evaluation set (`manage.py eval_suggestions --split tune
# --threshold T --set NAME=VALUE`), each change checked on its odd and even sentences apart, and
# on the fixture cases' own sentences against their tags: precision and recall are flat for
# thresholds from 0.5 to 0.8 (0.5 lets two weak pieces of evidence through, 0.45 + 0.45); a
# learned weight above 0.55, or one word of learned evidence, added wrong values faster than
# right ones, and so did learned words common in English (lexicon.LEARNED_MAX_ZIPF).
THRESHOLD = 0.5
PHRASE_WEIGHT = 0.9
TYPO_FACTOR = 0.85
AMBIGUOUS_WEIGHT = 0.3
# A one-word phrase that is a common English word ("stalled", "checkpoints", "fabric") names
# something else as often as the value (fixture case text: 64% of one-word phrase matches were
# right against 80% of longer ones): alone it stays below the threshold, and a second piece of
# evidence (another term, a child, learned words) confirms it. Technical words ("segfault",
# "nxdomain", "xid") count as phrases.
EVERYDAY_PHRASE_WEIGHT = 0.45
# A component counted ("512 GPUs", "a 10k-GPU job") tells the scale, not what failed.
COUNTED_WEIGHT = 0.45
# A phrase read with a synonym of its predicate ("api server fell over" for "... went down").
VARIANT_FACTOR = 0.95
# An organisation written as the vendor of a component ("NVIDIA A100 GPUs").
VENDOR_WEIGHT = 0.45
LEARNED_WEIGHT = 0.55
LEARNED_SATURATION = 1.0
# Words a value's learned evidence needs, at least: one word is a topic, not a description.
LEARNED_MIN_WORDS = 2
# Learned words are shown among a value's words when they added at least this much.
LEARNED_SHOWN = 0.05
MAX_GAP = 2
GAP_FACTOR = 0.9
# Characters of text the engine reads, at most (a pasted postmortem can be long).
MAX_CHARS = 20_000
# A component may sit inside the match of a value of these facets ("NCCL" in "NCCL timeout").
CONTAINED_FACET = "component"
CONTAINING_FACETS = frozenset({"symptom", "root_cause"})


@dataclass(frozen=True)
class Hit:
    """A term found in the text, from token `start` up to (not including) `end`."""

    start: int
    end: int
    term: Term
    distance: int
    score: float
    # The tokens its words are, when other words sit between them ("etcd [slow] disk").
    skipped: frozenset[int] = frozenset()

    def words_at(self) -> range | frozenset[int]:
        if not self.skipped:
            return range(self.start, self.end)
        return frozenset(range(self.start, self.end)) - self.skipped


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
    text = text[:MAX_CHARS]
    words = tokens(text)
    if not words:
        return []
    hits = _vendors(lexicon, _counted(lexicon, words, _select(lexicon, _find_hits(lexicon, words))))
    by_value: dict[int, list[Hit]] = defaultdict(list)
    for hit in hits:
        by_value[hit.term.value_id].append(hit)
    covered = {i for hit in hits if hit.score > AMBIGUOUS_WEIGHT for i in hit.words_at()}
    learned, learned_words = _learned(lexicon, words, covered)

    explicit = {v: _combined(found) for v, found in by_value.items()}
    own = {
        v: 1 - (1 - explicit.get(v, 0.0)) * (1 - learned.get(v, 0.0))
        for v in set(by_value) | set(learned)
    }
    named = {
        i: hit.term.value_id for hit in hits if hit.score > AMBIGUOUS_WEIGHT for i in hit.words_at()
    }
    like, support_words = like_cases(lexicon, words, named)
    before = _with_children(lexicon, own, explicit) if like else {}
    for v, boost in like.items():
        own[v] = 1 - (1 - own.get(v, 0.0)) * (1 - boost[0])
    total = _with_children(lexicon, own, explicit)

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
        shown = learned.get(v, 0.0) >= LEARNED_SHOWN
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
                if v in lexicon.ancestors(c) and learned.get(c, 0.0) >= LEARNED_SHOWN
                for w in ws
            ]
        found.append(
            replace(_found(text, words, v, total[v], own_hits, own_words, via), like=liked)
        )
    return sorted(found, key=lambda f: (f.position, -f.length, -f.score, f.value_id))


def _allowed_typos(token: str) -> int:
    """Edits forgiven in a word: none for short words or codes (H100 is not A100)."""
    if len(token) < 5 or any(ch.isdigit() for ch in token):
        return 0
    return 1 if len(token) < 8 else 2


def _spellings(lexicon: Lexicon, token: Token, cache: dict[str, dict[str, int]]) -> dict[str, int]:
    """Stems of the vocabulary this word may stand for, with the edits it took."""
    if token.stem in cache:
        return cache[token.stem]
    forms = {token.stem: 0}
    if token.key.endswith("s") and token.stem not in lexicon.by_first:
        forms[stem(token.key[:-1])] = 0  # a plural the spelling key kept, like "gpus" (status)
    known = token.stem in lexicon.known_stems or token.stem in lexicon.corpus_stems
    allowed = _allowed_typos(token.key)
    if not known and allowed:
        for choice, distance, _index in process.extract(
            token.stem,
            lexicon.name_stems,
            scorer=DamerauLevenshtein.distance,
            score_cutoff=allowed,
            limit=None,
        ):
            if choice[0] == token.stem[0] and distance <= _allowed_typos(choice):
                forms.setdefault(choice, int(distance))
    cache[token.stem] = forms
    return forms


def _find_hits(lexicon: Lexicon, words: Sequence[Token]) -> list[Hit]:
    cache: dict[str, dict[str, int]] = {}
    spellings = [_spellings(lexicon, w, cache) for w in words]
    present = {form for forms in spellings for form in forms}
    hits: list[Hit] = []
    for start, first in enumerate(spellings):
        for spelled, distance in first.items():
            for term in lexicon.by_first.get(spelled, []):
                if len(term.stems) > 1 and not term.stem_set <= present:
                    continue
                if distance == 0 and not _same_word(words[start], term.keys[0]):
                    continue
                if term.keys[0].isdigit() and not _written_as(words, start, term.text):
                    continue
                if term.kind == "phrase":
                    found = _phrase_end(term, words, start) if distance == 0 else None
                    if found is not None:
                        end, skipped = found
                        score = _score(term, words[start], 0)
                        hits.append(Hit(start, end, term, 0, score, skipped))
                    continue
                spelt = _spelt(term, words, spellings, start, distance)
                if spelt is not None:
                    total, end, gaps = spelt
                    score = _score(term, words[start], total) * GAP_FACTOR**gaps
                    hits.append(Hit(start, end, term, total, score))
        # Words written together or apart: "dataloader" for "data loader" and the reverse.
        joined = ""
        for width in range(1, min(4, len(words) - start) + 1):
            joined += words[start + width - 1].key
            if joined not in lexicon.joined_prefixes:
                break
            for term in lexicon.by_joined.get(joined, []):
                if len(term.keys) != width:
                    hits.append(Hit(start, start + width, term, 0, _score(term, words[start], 0)))
    return hits


def _counted(lexicon: Lexicon, words: Sequence[Token], hits: list[Hit]) -> list[Hit]:
    """A component right after a number ("512 GPUs", "10k-GPU") is counted, not blamed; a
    number that is part of another match ("Xid 79 gpu") is a code, not a count."""
    taken = {i for h in hits for i in h.words_at()}
    return [
        replace(hit, score=hit.score * COUNTED_WEIGHT)
        if hit.start > 0
        and any(ch.isdigit() for ch in words[hit.start - 1].key)
        and hit.start - 1 not in taken
        and lexicon.values[hit.term.value_id].facet == CONTAINED_FACET
        else hit
        for hit in hits
    ]


# "scheduler", "generator": a word for the thing that acts, not a form of the verb.
_AGENT_SUFFIXES = ("er", "or")


def _same_word(token: Token, key: str) -> bool:
    """Whether a word with the term's stem is a form of the term's word: "leaking" is one of
    "leak", but "scheduled" is no "scheduler" (the stemmer gives both "schedul")."""
    return token.key == key or all(
        token.key.endswith(suffix) == key.endswith(suffix) for suffix in _AGENT_SUFFIXES
    )


def _written_as(words: Sequence[Token], start: int, text: str) -> bool:
    """A term that is a number once folded ("500s", "502s") names errors as written, or as a
    bare number that no other word follows ("failed with 500 and 502"): "500 batches" is a
    count."""
    if words[start].written.lower() == text.lower() or len(text.split()) > 1:
        return True
    after = words[start + 1] if start + 1 < len(words) else None
    return after is None or after.key in FUNCTION_WORDS or after.key.isdigit()


def _spelt(
    term: Term,
    words: Sequence[Token],
    spellings: Sequence[dict[str, int]],
    start: int,
    distance: int,
) -> tuple[int, int, int] | None:
    """(edits, end, gaps) if the name or alias is spelt at `start`, word after word, one other
    word allowed once between two of its words ("failed its health checks"); else None."""
    total, position, gaps = distance, start, 0
    for offset, wanted in enumerate(term.stems[1:], start=1):
        for step in (1, 2) if gaps == 0 else (1,):
            at = position + step
            if at < len(words) and (edits := spellings[at].get(wanted)) is not None:
                if edits or _same_word(words[at], term.keys[offset]):
                    total, position, gaps = total + edits, at, gaps + step - 1
                    break
        else:
            return None
    return total, position + 1, gaps


def _phrase_end(
    term: Term, words: Sequence[Token], start: int
) -> tuple[int, frozenset[int]] | None:
    """The token after a phrase's last word, its words in order with small gaps, and the
    tokens skipped between them; else None."""
    position = start
    skipped: set[int] = set()
    for offset, wanted in enumerate(term.stems[1:], start=1):
        for step in range(1, MAX_GAP + 2):
            at = position + step
            if at < len(words) and words[at].stem == wanted:
                if _same_word(words[at], term.keys[offset]):
                    skipped.update(range(position + 1, at))
                    position = at
                    break
        else:
            return None
    return position + 1, frozenset(skipped)


def _combined(hits: Sequence[Hit]) -> float:
    """A value's explicit score: its distinct terms found count as independent chances, but
    everyday words flagged `ambiguous` ("node", "servers") do not confirm one another."""
    best: dict[Term, float] = {}
    for hit in hits:
        best[hit.term] = max(best.get(hit.term, 0.0), hit.score)
    if all(term.ambiguous for term in best):
        return max(best.values())
    miss = 1.0
    for score in best.values():
        miss *= 1 - score
    return 1 - miss


def _score(term: Term, first: Token, distance: int) -> float:
    if term.ambiguous and first.written != term.exact_case:
        return AMBIGUOUS_WEIGHT
    if term.kind == "phrase":
        weight = EVERYDAY_PHRASE_WEIGHT if term.everyday else PHRASE_WEIGHT
        if term.paraphrase:
            weight *= VARIANT_FACTOR
    else:
        weight = 1.0
    return weight * TYPO_FACTOR**distance


def _select(lexicon: Lexicon, hits: list[Hit]) -> list[Hit]:
    """Matches of the most words, then the strongest, first; a match inside a longer one
    gives way (see above)."""
    chosen: list[Hit] = []
    for hit in sorted(hits, key=lambda h: (-len(h.words_at()), -h.score, h.start)):
        facet = lexicon.values[hit.term.value_id].facet
        if any(_blocks(lexicon, kept, hit, facet) for kept in chosen):
            continue
        chosen.append(hit)
    return chosen


def _vendors(lexicon: Lexicon, hits: list[Hit]) -> list[Hit]:
    """An organisation named right before a component ("NVIDIA A100", "NVIDIA GPUs") is the
    vendor of a part, not who ran the system: it needs other evidence."""
    starts = {h.start for h in hits if lexicon.values[h.term.value_id].facet == CONTAINED_FACET}
    return [
        replace(h, score=h.score * VENDOR_WEIGHT)
        if h.end in starts and lexicon.values[h.term.value_id].facet == ORGANISATION.facet
        else h
        for h in hits
    ]


def _blocks(lexicon: Lexicon, kept: Hit, hit: Hit, facet: str) -> bool:
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


def _learned(
    lexicon: Lexicon, words: Sequence[Token], covered: set[int]
) -> tuple[dict[int, float], dict[int, list[str]]]:
    """Learned evidence per value from the words no explicit match used."""
    raw: dict[int, float] = defaultdict(float)
    contributions: dict[int, list[tuple[float, str]]] = defaultdict(list)
    seen: set[str] = set()
    for index, word in enumerate(words):
        if index in covered or word.stem in seen:
            continue
        seen.add(word.stem)
        for value_id, weight in lexicon.evidence.get(word.stem, []):
            raw[value_id] += weight
            contributions[value_id].append((weight, word.written))
    scores = {
        v: LEARNED_WEIGHT * min(1.0, r / LEARNED_SATURATION)
        for v, r in raw.items()
        if len(contributions[v]) >= LEARNED_MIN_WORDS
    }
    strongest = {
        v: [w for _weight, w in sorted(c, reverse=True)[:3]] for v, c in contributions.items()
    }
    return scores, strongest


def _with_children(
    lexicon: Lexicon, own: dict[int, float], explicit: dict[int, float]
) -> dict[int, float]:
    """Each value's score, a parent's also collecting what named its children (bottom up).

    Only explicit evidence climbs to a parent: learned words are spread over many related
    values, and a parent collecting all of them would be suggested for any text on its topic.
    """
    lifted: dict[int, float] = {}

    def subtree(value_id: int, depth: int = 0) -> float:
        if value_id not in lifted:
            miss = 1 - explicit.get(value_id, 0.0)
            for child in lexicon.children.get(value_id, []) if depth < 20 else []:
                miss *= 1 - subtree(child, depth + 1)
            lifted[value_id] = 1 - miss
        return lifted[value_id]

    relevant = set(own)
    for value_id in own:
        relevant.update(lexicon.ancestors(value_id))
    total = {}
    for value_id in relevant:
        miss = 1 - own.get(value_id, 0.0)
        for child in lexicon.children.get(value_id, []):
            miss *= 1 - subtree(child)
        if miss < 1:
            total[value_id] = 1 - miss
    return total


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
