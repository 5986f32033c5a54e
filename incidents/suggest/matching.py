"""Where the text spells the lexicon's terms: every `Hit`, before any gives way to another.

A name or an alias is matched as stems ("timeouts" for "timeout", "leaking" for "leak"), written
together or apart ("dataloader"), one other word allowed between two of its words, a small typo
forgiven in a long word; a curated phrase as its words in order with up to `weights.MAX_GAP`
others between them (`weights.PAIR_GAP` in a phrase of two words); no term across the end of a
clause (`weights.CLAUSE_BOUND`). Each hit gets the weight of its kind of evidence (incidents.suggest.weights);
which hits stand is decided by incidents.suggest.selection.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from incidents.suggest import weights
from incidents.suggest.forms import FUNCTION_WORDS
from incidents.suggest.forms import LINK_MOST
from incidents.suggest.forms import links
from incidents.suggest.lexicon import Lexicon
from incidents.suggest.lexicon import Term
from incidents.suggest.words import AGENT_SUFFIXES
from incidents.suggest.words import Token
from incidents.suggest.words import stem
from incidents.suggest.words import tokens


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


def find_hits(lexicon: Lexicon, words: Sequence[Token]) -> list[Hit]:
    """Every term of the lexicon the words spell, overlapping ones included."""
    cache: dict[str, dict[str, int]] = {}
    spellings = [_spellings(lexicon, w, cache) for w in words]
    present = {form for forms in spellings for form in forms}
    # Per first stem, the terms whose every stem the text holds (a word may recur).
    possible: dict[str, list[Term]] = {}
    hits: list[Hit] = []
    for start, first in enumerate(spellings):
        for spelled, distance in first.items():
            if spelled not in possible:
                possible[spelled] = [
                    t
                    for t in lexicon.by_first.get(spelled, ())
                    if len(t.stems) == 1 or t.stem_set <= present
                ]
            for term in possible[spelled]:
                if distance == 0 and not _same_word(words[start], term.keys[0]):
                    continue
                if _verb_for_part(lexicon, term, words[start]):
                    continue
                if term.keys[0].isdigit() and not _written_as(words, start, term.text):
                    continue
                if term.kind == "phrase":
                    ends = _linked_end if term.linked else _phrase_end
                    found = ends(term, words, start) if distance == 0 else None
                    if found is not None:
                        end, skipped = found
                        score = _score(term, words[start], 0)
                        hits.append(Hit(start, end, term, 0, score, skipped))
                    continue
                spelt = _spelt(term, words, spellings, start, distance)
                if spelt is not None:
                    total, end, gaps = spelt
                    score = _score(term, words[start], total) * weights.GAP_FACTOR**gaps
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


def _same_word(token: Token, key: str) -> bool:
    """Whether a word with the term's stem is a form of the term's word: "leaking" is one of
    "leak", but "scheduled" is no "scheduler" (the stemmer gives both "schedul")."""
    return token.key == key or all(
        token.key.endswith(suffix) == key.endswith(suffix) for suffix in AGENT_SUFFIXES
    )


def _verb_for_part(lexicon: Lexicon, term: Term, first: Token) -> bool:
    """Whether a one-word name of a component is written as a past form of a verb: "switched
    off" is no network switch, "cached" no cache (the stemmer gives them one stem)."""
    return (
        bool(weights.PARTS_ARE_NOUNS)
        and len(term.keys) == 1
        and first.key.endswith("ed")
        and not term.keys[0].endswith("ed")
        and lexicon.values[term.value_id].facet == "component"
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
            if at >= len(words) or (
                weights.CLAUSE_BOUND and words[at].clause != words[position].clause
            ):
                return None
            if (edits := spellings[at].get(wanted)) is not None and not _parted(words, at, step):
                if edits or _same_word(words[at], term.keys[offset]):
                    total, position, gaps = total + edits, at, gaps + step - 1
                    break
        else:
            return None
    return total, position + 1, gaps


def _parted(words: Sequence[Token], at: int, step: int) -> bool:
    """Whether a comma parts the word at `at` from the term's word right before it (`step` 1):
    "the control plane, pods" holds no "control-plane pods" (weights.COMMA_BOUND)."""
    return bool(weights.COMMA_BOUND) and step == 1 and words[at].comma


# Articles, which a text puts in a phrase or leaves out at will ("no canary", "without a canary").
ARTICLES = frozenset({"a", "an", "the"})


# Adverbs a text puts between a subject and its verb, or a verb and its object, without changing
# what is said ("the job just stalls", "training eventually crashed", "we then deleted the
# cluster"): they tell when or how, never what. Not "only", "never", "not" or "again", which do.
FREE_ADVERBS = frozenset(
    "just then also still simply basically completely totally suddenly eventually finally "
    "randomly quietly silently immediately repeatedly sometimes occasionally constantly "
    "intermittently briefly actually apparently literally already promptly entirely "
    "partially mostly mysteriously abruptly".split()
)


def _free_in_pair(key: str) -> bool:
    """Whether a word between the two words of a two-word phrase counts toward no gap: an
    article ("without a canary", weights.ARTICLES_FREE) or an adverb of time or manner ("the
    job just stalls", weights.ADVERBS_FREE)."""
    return bool(weights.ARTICLES_FREE and key in ARTICLES) or bool(
        weights.ADVERBS_FREE and key in FREE_ADVERBS
    )


def _phrase_end(
    term: Term, words: Sequence[Token], start: int
) -> tuple[int, frozenset[int]] | None:
    """The token after a phrase's last word, its words in order with small gaps, and the
    tokens skipped between them; else None. Numbers and a possessive's "s" skipped do not count
    toward a gap (_free_in_gap: "never seen in our 2-4 node tests" holds "never seen in tests"
    with two words between), nor articles in a phrase of two words ("without a canary" holds
    "without canary")."""
    position = start
    skipped: set[int] = set()
    for offset, wanted in enumerate(term.stems[1:], start=1):
        gap, at = 0, position + 1
        most = weights.MAX_GAP if len(term.text.split()) > 2 else weights.PAIR_GAP
        while at < len(words) and gap <= most:
            if weights.CLAUSE_BOUND and words[at].clause != words[position].clause:
                return None
            if (
                words[at].stem == wanted
                and _same_word(words[at], term.keys[offset])
                and not _parted(words, at, at - position)
            ):
                skipped.update(range(position + 1, at))
                position = at
                break
            if _other_preposition(term, words[at].key):
                return None
            if not _free_in_gap(words[at].key) and not (
                most == weights.PAIR_GAP and _free_in_pair(words[at].key)
            ):
                gap += 1
            at += 1
        else:
            return None
    return position + 1, frozenset(skipped)


def _free_in_gap(key: str) -> bool:
    """Whether a word skipped inside a phrase counts toward its gap: a number does not ("never
    seen in our 2-4 node tests"), nor a possessive's "s" ("overwhelmed that cluster's control
    plane" has two words between, "that cluster", as "overwhelmed that cluster control plane"
    would)."""
    return key.isdigit() or key == POSSESSIVE


# The word a possessive's or a contraction's "'s" makes ("B's" is "b", "s").
POSSESSIVE = "s"


# Prepositions: in the gap of a phrase read without its own preposition, another one says
# something else ("down for days" is not "down 1-2% over the day").
PREPOSITIONS = frozenset(
    "about above across after against along at before behind below beside between beyond by "
    "during for from in inside into near of off on onto out over per since through to toward "
    "towards under until upon via with within without".split()
)


def _other_preposition(term: Term, key: str) -> bool:
    """Whether `key`, in the gap of a phrase read without a preposition it is written with
    ("down for days" as "down ... days", forms.spelling_forms), is another preposition, which
    says something else (weights.PREPOSITION_KEPT)."""
    if not weights.PREPOSITION_KEPT or term.kind != "phrase" or key not in PREPOSITIONS:
        return False
    written = _written_prepositions(term.text)
    return bool(written - set(term.keys)) and key not in written


@functools.cache
def _written_prepositions(text: str) -> frozenset[str]:
    return frozenset(t.key for t in tokens(text) if t.key in PREPOSITIONS)


def _linked_end(
    term: Term, words: Sequence[Token], start: int
) -> tuple[int, frozenset[int]] | None:
    """The token after a noun and its adjective ("the cable was faulty", "training is
    measurably slower"): the noun's words together, then a linking verb and adverbs
    (forms.links), then the adjective; else None."""
    nouns = len(term.stems) - 1
    for offset in range(1, nouns):
        at = start + offset
        if at >= len(words) or not _is_word(words[at], term, offset):
            return None
    first_link = start + nouns
    for at in range(first_link + 1, min(len(words), first_link + LINK_MOST + 1)):
        if weights.CLAUSE_BOUND and words[at].clause != words[start].clause:
            return None
        if _is_word(words[at], term, nouns):
            if links([w.key for w in words[first_link:at]]):
                return at + 1, frozenset(range(first_link, at))
            return None
    return None


def _is_word(token: Token, term: Term, offset: int) -> bool:
    return token.stem == term.stems[offset] and _same_word(token, term.keys[offset])


def _score(term: Term, first: Token, distance: int) -> float:
    """The weight of a hit of `term` whose first word is `first`, spelt with `distance` edits."""
    if term.ambiguous and first.written != term.exact_case:
        return weights.AMBIGUOUS_WEIGHT
    if term.kind == "phrase":
        weight = weights.EVERYDAY_PHRASE_WEIGHT if term.everyday else weights.PHRASE_WEIGHT
        if term.paraphrase:
            weight *= weights.VARIANT_FACTOR
    else:
        weight = 1.0
    return weight * weights.TYPO_FACTOR**distance
