"""Normalising words so that one value has one spelling.

`spelling_key` maps "GPUs", "gpu" and "GPU" to the same key, and "software bugs" to "software bug",
so the vocabulary can refuse near-duplicate names and the search can match the words people type.
"""

from __future__ import annotations

import re
import unicodedata

_NON_WORD = re.compile(r"[^0-9a-zA-Z]+")
# "GPUs", "NICs", "XIDs": an upper-case acronym with a plural "s".
_ACRONYM_PLURAL = re.compile(r"^[A-Z][A-Z0-9]+s$")
# Words whose trailing "s" is not a plural ending.
_KEEP_S = ("ss", "us", "is", "os", "as", "ics")


def singular(word: str) -> str:
    """Return a plausible singular of an English word (lower case); short words stay as they are."""
    if len(word) <= 3 or not word.endswith("s"):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes", "zzes")):
        return word[:-2]
    if word.endswith(_KEEP_S):
        return word
    return word[:-1]


def words(text: str) -> list[str]:
    """Split text into lower-case ASCII words (accents removed)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return [w.lower() for w in _NON_WORD.split(ascii_text) if w]


def _key_word(word: str) -> str:
    if _ACRONYM_PLURAL.match(word):
        return word[:-1].lower()
    return singular(word.lower())


def spelling_key(text: str) -> str:
    """The canonical form of a name or alias: lower case, no punctuation, singular words."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return " ".join(_key_word(w) for w in _NON_WORD.split(ascii_text) if w)
