"""Did you mean: a query with its misspelt words replaced by the closest words the library holds
(Damerau-Levenshtein over the index's words of the same first letter, one query); an everyday
English word the library does not hold is left as it is."""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Q
from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from incidents.models import SearchTerm
from incidents.models.search import DOCUMENT_COUNT_TERM
from incidents.search.terms import stem
from incidents.suggest.words import zipf


@dataclass(frozen=True)
class Correction:
    """A query with its misspelt words replaced by words the library holds."""

    text: str
    words: tuple[tuple[str, str], ...]  # (as typed, corrected)


# A word at least this common in English (Zipf scale: 3 is once per million words) is an
# ordinary word spelt right ("space", "disk"), not a typo of a library word ("spare"). Typos are
# rarer than that: "recieve" is 2.8, "dataloder" and "watchdgo" 0.
EVERYDAY_ZIPF = 3.0


def correct(text: str, unknown_words: Iterable[str]) -> Correction | None:
    """`text` with each of `unknown_words` (words no case holds; those of four letters or more
    that are no everyday English word are corrected) replaced by the closest word some case
    holds; None when none is close."""
    typed = [
        w for w in unknown_words if len(w) >= 4 and w.isalpha() and zipf(w.lower()) < EVERYDAY_ZIPF
    ]
    if not typed:
        return None
    first_letters = functools.reduce(operator.or_, [Q(word__istartswith=w[0]) for w in typed])
    rows = list(
        SearchTerm.objects.filter(first_letters, cases__gt=0)
        .exclude(term=DOCUMENT_COUNT_TERM)
        .values_list("word", "term", "cases")
    )
    known = {word: cases for word, _, cases in rows}
    # The index keeps one written form per stem ("corruption" for corrupt): a typo of another
    # form ("corupted") is far from that form but near its stem.
    by_stem = {term: word for word, term, _ in rows if word}
    fixes: list[tuple[str, str]] = []
    for word in typed:
        allowed = 1 if len(word) < 7 else 2
        best = _closest(word.lower(), known, allowed)
        if best is None and len(stem(word.lower())) >= 4:
            term = _closest(stem(word.lower()), {t: known[w] for t, w in by_stem.items()}, allowed)
            best = by_stem[term] if term is not None else None
        if best is not None:
            fixes.append((word, best))
    if not fixes:
        return None
    for typed_word, fixed in fixes:
        text = re.sub(rf"\b{re.escape(typed_word)}\b", fixed, text, flags=re.IGNORECASE)
    return Correction(text, tuple(fixes))


def _closest(word: str, known: dict[str, int], allowed: int) -> str | None:
    """The known word (or stem) nearest `word` within `allowed` edits, the one more cases hold
    on a tie; None when none is that near."""
    found = process.extract(
        word, list(known), scorer=DamerauLevenshtein.distance, score_cutoff=allowed, limit=None
    )
    if not found:
        return None
    return str(min(found, key=lambda f: (f[1], -known[f[0]], f[0]))[0])
