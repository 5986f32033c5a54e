"""Facet values named in free text: `suggest_filters(text)`.

Finds the values a sentence names through their names and aliases, whatever the case, plural,
word form or a small typo: "our nccl timeouts came from a leaking data loader" gives
Symptom = NCCL timeout and Component = Training data loader. The longest name wins ("NCCL
timeout" over "NCCL" inside it). The vocabulary is small, so it is read whole, once per call.
Shared by the library page and the case-submission form.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from incidents import facets
from incidents.models import FacetAlias, FacetValue
from incidents.text import spelling_key

# Characters of text suggest_filters reads, at most (a pasted postmortem can be long).
MAX_SUGGEST_CHARS = 20_000

_TOKEN = re.compile(r"[^\W_]+")
_PARENTHESIS = re.compile(r"\s*\([^)]*\)")
# Acronyms and names that are also everyday English words: "a fair amount" is not Meta's FAIR.
# Written like this in the vocabulary, they match only when typed the same way.
_EVERYDAY_WORDS = frozenset({"fair", "vast", "os", "nan", "buffer", "weave", "auth"})


@dataclass(frozen=True)
class Suggestion:
    """A facet value found in the text: which words named it, through which name or alias."""

    value: FacetValue
    matched: str  # the words as written in the text
    term: str  # the value's name or alias they match
    exact: bool  # False when a typo was forgiven

    @property
    def facet(self) -> str:
        return self.value.facet

    @property
    def facet_label(self) -> str:
        return facets.spec(self.value.facet).label


@dataclass(frozen=True)
class _Term:
    tokens: tuple[str, ...]
    value_id: int
    text: str

    @property
    def exact_case(self) -> str | None:
        """The written form a typed word must equal, for everyday words used as names."""
        if (
            len(self.tokens) == 1
            and self.tokens[0] in _EVERYDAY_WORDS
            and self.text != self.text.lower()
        ):
            return self.text
        return None


@dataclass(frozen=True)
class _Match:
    start: int  # index of the first token
    end: int  # index after the last token
    term: _Term
    distance: int


class _Lexicon:
    """Every spelling of every facet value, indexed for matching token runs."""

    def __init__(self, names: Iterable[tuple[int, str]]) -> None:
        self.by_first: dict[str, list[_Term]] = defaultdict(list)
        self.by_joined: dict[str, list[_Term]] = defaultdict(list)
        seen: set[tuple[int, tuple[str, ...]]] = set()
        for value_id, text in names:
            for variant in {text, _PARENTHESIS.sub("", text)}:
                tokens = tuple(spelling_key(variant).split())
                if not tokens or (value_id, tokens) in seen:
                    continue
                seen.add((value_id, tokens))
                term = _Term(tokens, value_id, text)
                self.by_first[tokens[0]].append(term)
                self.by_joined["".join(tokens)].append(term)
        self.vocabulary_tokens = sorted(
            {t for terms in self.by_first.values() for term in terms for t in term.tokens}
        )
        self._known = set(self.vocabulary_tokens)
        self._by_stem: dict[str, list[str]] = defaultdict(list)
        for token in self.vocabulary_tokens:
            self._by_stem[word_stem(token)].append(token)

    def spellings(self, token: str) -> dict[str, int]:
        """Vocabulary tokens this typed token may stand for, with their edit distance."""
        if token in self._known:
            return {token: 0}
        if token.endswith("s") and token[:-1] in self._known:
            return {token[:-1]: 0}  # a plural `singular` keeps, like "gpus" (for "status")
        # Another form of the same word ("leaking" for "leak", "overheated" for "overheating").
        forms = {other: 1 for other in self._by_stem.get(word_stem(token), [])}
        allowed = _allowed_typos(token)
        if not allowed:
            return forms
        found = process.extract(
            token,
            self.vocabulary_tokens,
            scorer=DamerauLevenshtein.distance,
            score_cutoff=allowed,
            limit=None,
        )
        forms.update(
            (choice, int(distance))
            for choice, distance, _index in found
            if choice[0] == token[0] and distance <= _allowed_typos(choice)
        )
        return forms


def word_stem(token: str) -> str:
    """A crude stem: "-ing" and "-ed" removed, a doubled final consonant undoubled."""
    for suffix in ("ing", "ed"):
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            base = token[: -len(suffix)]
            if base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]
            return base
    return token


def _allowed_typos(token: str) -> int:
    """Edits forgiven in a word: none for short words and anything with digits (H100 is not A100)."""
    if len(token) < 5 or any(ch.isdigit() for ch in token):
        return 0
    return 1 if len(token) < 8 else 2


def _tokens(text: str) -> list[tuple[str, int, int]]:
    """(spelling key, start, end) of each word of the text."""
    found = []
    for match in _TOKEN.finditer(text):
        key = spelling_key(match.group())
        if key:
            # A word like "kube-apiserver" is split by the regex already; keys have no spaces.
            found.append((key.replace(" ", ""), match.start(), match.end()))
    return found


def _find_matches(lexicon: _Lexicon, keys: Sequence[str], written: Sequence[str]) -> list[_Match]:
    cache: dict[str, dict[str, int]] = {}
    spellings = [cache.get(key) or cache.setdefault(key, lexicon.spellings(key)) for key in keys]
    matches: list[_Match] = []
    for start, first in enumerate(spellings):
        for spelled, distance in first.items():
            for term in lexicon.by_first.get(spelled, []):
                end = start + len(term.tokens)
                if end > len(keys) or term.exact_case not in (None, written[start]):
                    continue
                total = distance
                for offset, wanted in enumerate(term.tokens[1:], start=1):
                    step = spellings[start + offset].get(wanted)
                    if step is None:
                        break
                    total += step
                else:
                    matches.append(_Match(start, end, term, total))
        # Words written together or apart: "dataloader" for "data loader" and the reverse.
        for width in range(1, min(4, len(keys) - start) + 1):
            for term in lexicon.by_joined.get("".join(keys[start : start + width]), []):
                if len(term.tokens) != width and term.exact_case is None:
                    matches.append(_Match(start, start + width, term, 0))
    return matches


def _select(matches: list[_Match]) -> list[_Match]:
    """Longest, closest matches first; a match inside a longer one is dropped."""
    chosen: list[_Match] = []
    taken: set[int] = set()
    values: set[int] = set()
    spans: set[tuple[int, int]] = set()
    for match in sorted(matches, key=lambda m: (m.start - m.end, m.distance, m.start)):
        span = (match.start, match.end)
        if match.term.value_id in values:
            continue
        if span not in spans and taken.intersection(range(match.start, match.end)):
            continue
        chosen.append(match)
        values.add(match.term.value_id)
        spans.add(span)
        taken.update(range(match.start, match.end))
    return sorted(chosen, key=lambda m: (m.start, m.term.value_id))


def suggest_filters(text: str, *, values: Iterable[FacetValue] | None = None) -> list[Suggestion]:
    """The facet values named in `text` (names and aliases; case, plurals and small typos forgiven).

    Suggestions come in the order their words appear. `values` lets a caller that already holds
    the vocabulary pass it in; the aliases are read with one query either way. What following a
    suggestion gives is counted by incidents.selectors.facet_counts.suggestions_for.
    """
    text = text[:MAX_SUGGEST_CHARS]
    tokens = _tokens(text)
    if not tokens:
        return []
    by_id = {v.id: v for v in (values if values is not None else FacetValue.objects.all())}
    names = [(v.id, v.name) for v in by_id.values()]
    names += list(FacetAlias.objects.values_list("value_id", "text"))
    lexicon = _Lexicon(names)
    keys = [key for key, _s, _e in tokens]
    chosen = _select(_find_matches(lexicon, keys, [text[s:e] for _k, s, e in tokens]))
    return [
        Suggestion(
            value=by_id[m.term.value_id],
            matched=text[tokens[m.start][1] : tokens[m.end - 1][2]],
            term=m.term.text,
            exact=m.distance == 0,
        )
        for m in chosen
        if m.term.value_id in by_id
    ]
