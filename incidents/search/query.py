"""The search box's syntax, parsed once and shared by both databases.

- words: a case matches if it holds *any* of them; more of them, and rarer ones, rank higher;
- `"a phrase"`: its words next to each other, in order (stop words skipped);
- `-word` or `-"a phrase"`: leave out the cases that hold it;
- `a or b`: either one, counted as one word of the query ("matches 2 of 3 words").
Words are matched as words (stemmed: "gpus" finds "GPU", "crashing" finds "crash"), never as
parts of other words. Stop words ("the", "of") are ignored, and so is what is not a word of Latin
letters or digits ("机器", "🔥", "!!!"): a query of nothing else asks nothing (`ParsedQuery.asks`)
and finds no case.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from incidents.search.terms import STOP_WORDS
from incidents.search.terms import split_words
from incidents.search.terms import stem

# Characters of a query read, at most (a pasted postmortem is not a query).
MAX_QUERY_CHARS = 2_000

_TOKEN = re.compile(r'(-?)"([^"]*)"?|(\S+)')


@dataclass(frozen=True)
class Term:
    """A word or a phrase: its stems in order, and how it was typed."""

    stems: tuple[str, ...]
    text: str

    @property
    def is_phrase(self) -> bool:
        return len(self.stems) > 1


@dataclass(frozen=True)
class Clause:
    """One word of the query as a person counts words: a term, or terms joined by `or`."""

    terms: tuple[Term, ...]

    @property
    def text(self) -> str:
        return " or ".join(t.text for t in self.terms)


@dataclass(frozen=True)
class ParsedQuery:
    """What the query asks: clauses a case may hold (any), and terms it must not hold."""

    clauses: tuple[Clause, ...]
    excluded: tuple[Term, ...]

    @property
    def terms(self) -> tuple[Term, ...]:
        return tuple(t for c in self.clauses for t in c.terms)

    @property
    def asks(self) -> bool:
        """Whether the query holds a searchable word or phrase, to find or to leave out."""
        return bool(self.clauses or self.excluded)


def _term(text: str) -> Term | None:
    found = tuple(stem(w) for w in split_words(text) if w not in STOP_WORDS)
    return Term(found, text) if found else None


def parse_query(text: str) -> ParsedQuery:
    """Parse what was typed into the search box; words that are all stop words give no clause."""
    clauses: list[list[Term]] = []
    excluded: list[Term] = []
    join_next = False
    for match in _TOKEN.finditer(text[:MAX_QUERY_CHARS]):
        negated, quoted, bare = match.group(1), match.group(2), match.group(3)
        if bare is not None and bare.lower() == "or":
            join_next = bool(clauses)
            continue
        if bare is not None and bare.startswith("-") and len(bare) > 1:
            negated, bare = "-", bare[1:]
        raw = quoted if quoted is not None else bare
        if negated:
            if term := _term(raw):
                excluded.append(term)
            join_next = False
            continue
        # An unquoted word with punctuation inside ("kube-apiserver") is a phrase of its parts.
        found = _term(raw)
        if found is None:
            continue
        if join_next:
            clauses[-1].append(found)
        else:
            clauses.append([found])
        join_next = False
    unique: dict[tuple[tuple[str, ...], ...], Clause] = {}
    for terms in clauses:
        clause = Clause(tuple(terms))
        unique.setdefault(tuple(t.stems for t in clause.terms), clause)
    return ParsedQuery(tuple(unique.values()), tuple(excluded))


def text_without(text: str, *, phrases: bool = False) -> str:
    """`text` without its `-word` and `-"phrase"` (with `phrases`, without its quoted phrases
    too): the words that may name facet values (an excluded word names none to look for, and a
    phrase's words name one only together)."""
    kept: list[str] = []
    start = 0
    for match in _TOKEN.finditer(text):
        negated, quoted, bare = match.group(1), match.group(2), match.group(3)
        if negated or (bare is not None and bare.startswith("-") and len(bare) > 1):
            pass
        elif not (phrases and quoted is not None):
            continue
        kept.append(text[start : match.start()])
        kept.append(" ; ")  # the words on either side are not one phrase
        start = match.end()
    kept.append(text[start:])
    return "".join(kept)
