"""Words as the search index and the query both see them: split, stop words dropped, stemmed.

Both databases index and query the *same* stems, made here in Python (Snowball English through
PyStemmer, with acronym plurals such as "gpus" and "ssds" made singular first), so a query matches the
same cases on SQLite and on PostgreSQL: the databases only see space-separated stems.
"""

from __future__ import annotations

import functools
import re
import unicodedata

import Stemmer

_WORD = re.compile(r"[a-z0-9]+")
_STEMMER = Stemmer.Stemmer("english")

# Function words that say nothing about a failure (a short English list, like PostgreSQL's
# `english.stop`); they are neither indexed nor searched.
STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its itself
    just me more most my myself no nor not now of off on once only or other our ours ourselves out
    over own same she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours yourself yourselves also us got get gets
    """.split()
)


def split_words(text: str) -> list[str]:
    """Lower-case ASCII words of a text (accents removed, punctuation splits)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return _WORD.findall(ascii_text.lower())


@functools.lru_cache(maxsize=50_000)
def stem(word: str) -> str:
    """The index form of one lower-case word: its singular, stemmed ("crashing" -> "crash")."""
    return str(_STEMMER.stemWord(_acronym_singular(word)))


def _acronym_singular(word: str) -> str:
    """ "gpus" -> "gpu", "ssds" -> "ssd": plurals of acronyms that Snowball keeps as they are."""
    if len(word) >= 4 and word.endswith("s"):
        base = word[:-1]
        if base.endswith("pu") or not any(ch in "aeiouy" for ch in base):
            return base
    return word


def stems(text: str) -> list[str]:
    """The stems of a text's words in order, stop words left out."""
    return [stem(w) for w in split_words(text) if w not in STOP_WORDS]


def index_text(text: str) -> str:
    """What the index stores for a text: its stems, space-separated."""
    return " ".join(stems(text))
