"""Words as the suggestion engine compares them: a spelling key, then a Snowball stem.

"GPUs" and "gpu", "timeouts" and "timeout", "leaking", "leaked" and "leak", "crashing" and
"crash", "fell" and "falls" all come out the same, and so do a short form and its word ("ckpt" and
"checkpoint", `ABBREVIATIONS`). Each word is first lemmatised (simplemma's
English dictionary: irregular forms such as "fell", "went", "blew"), then stemmed with
PyStemmer's English (Porter 2) algorithm; the
spelling key (incidents.text) first folds case, accents and plurals, so that acronyms with a
plural "s" ("GPUs", "XIDs") lose it as the vocabulary's own spellings do.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import Stemmer

from incidents.text import spelling_key

_TOKEN = re.compile(r"[^\W_]+")
# What ends a clause between two words: a sentence's or a clause's punctuation followed by a space
# ("logs. the", not "1.5"), a line break or a dash between spaces.
_CLAUSE_END = re.compile(r"[.;:!?]\s|\n|\s[-\u2013\u2014]+\s|\u2014")
# Short forms engineers write for a word, read as the word ("ckpt" as "checkpoint", "k8s" as
# "kubernetes"): ops shorthand of one word that means nothing else in incident text, as spelling
# keys (plurals folded: "ckpts" is "ckpt"). A term's words go through the same table, so a
# value's phrases and a text meet whichever form each uses.
ABBREVIATIONS = {
    "ckpt": "checkpoint",
    "chkpt": "checkpoint",
    "k8s": "kubernetes",
    "ib": "infiniband",
    "prod": "production",
    "perf": "performance",
    "config": "configuration",
    "cfg": "configuration",
    "mem": "memory",
    "env": "environment",
    "infra": "infrastructure",
    "db": "database",
    "repro": "reproduce",
    "svc": "service",
    "conn": "connection",
    "tput": "throughput",
    "util": "utilization",
    "sched": "scheduler",
    "hw": "hardware",
    "sw": "software",
    "misconfig": "misconfiguration",
    "dbs": "database",
}
_STEMMER = Stemmer.Stemmer("english")


# "scheduler", "generator": a word for the thing that acts, not a form of the verb (the stemmer
# gives "scheduled" and "scheduler" one stem; incidents.suggest.matching tells them apart).
AGENT_SUFFIXES = ("er", "or")


def agent_marks(keys: tuple[str, ...]) -> tuple[tuple[bool, ...], ...]:
    """Per word, which agent suffixes it ends with: "load balancer" and "load balancing" share
    their stems but are spelt as different words."""
    return tuple(tuple(k.endswith(suffix) for suffix in AGENT_SUFFIXES) for k in keys)


@dataclass(frozen=True)
class Token:
    """One word of a text: its stem, its spelling key, where it is, and how it was written."""

    stem: str
    key: str
    start: int
    end: int
    written: str
    clause: int = 0  # which clause of the text it is in (numbered from 0, in order)
    comma: bool = False  # a comma between it and the word before ("control plane, pods")


# British spellings and their American forms ("utilisation", "behaviour", "centre", "analyse"),
# whose stems differ ("utilis", "util"); 0: off.
BRITISH_FOLD = 1
_BRITISH = (
    (re.compile(r"is(ation|ations|ed|ing|er|ers|e|es)$"), r"iz\1"),
    (re.compile(r"ys(e|ed|es|ing)$"), r"yz\1"),
    (re.compile(r"our(s|ed|ing)?$"), r"or\1"),
    (re.compile(r"([bt])re(s|d)?$"), r"\1er\2"),
)


def american(key: str) -> str:
    """The American spelling of a British one ("randomised" -> "randomized"), when English uses
    it at least as often (wordfreq): "raised", "hour" and "noise" stay as they are."""
    if not BRITISH_FOLD or len(key) < 5:
        return key
    for pattern, replacement in _BRITISH:
        other = pattern.sub(replacement, key)
        if other != key:
            return other if zipf(other) >= max(zipf(key), 1.0) else key
    return key


@functools.lru_cache(maxsize=65_536)
def stem(key: str) -> str:
    """The Snowball stem of a spelling key ("leaking" -> "leak"); digits and codes stay whole."""
    key = ABBREVIATIONS.get(key, key)
    if not key or any(ch.isdigit() for ch in key):
        return key
    key = american(key)
    # The lemma first, for irregular forms the stemmer leaves apart ("fell", "went", "blew").
    import simplemma  # here, not at start-up (0.05 s): a `manage.py` command rarely stems

    return str(_STEMMER.stemWord(simplemma.lemmatize(key, lang="en")))


@functools.lru_cache(maxsize=65_536)
def zipf(word: str) -> float:
    """How common a word is in general English (wordfreq's Zipf scale: 3 is once per million
    words). wordfreq is imported on the first call, not at start-up (0.2 s, most of a
    `manage.py` command's); production warms it (incidents.config.warmup)."""
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, "en"))


@functools.lru_cache(maxsize=65_536)
def _forms(word: str) -> tuple[str, str]:
    """(stem, spelling key) of one written word."""
    key = spelling_key(word).replace(" ", "")
    return (stem(key) if key else ""), key


def tokens(text: str) -> list[Token]:
    """Every word of the text, in order."""
    found: list[Token] = []
    clause = 0
    for match in _TOKEN.finditer(text):
        word = match.group()
        word_stem_, key = _forms(word)
        if key:
            between = text[found[-1].end : match.start()] if found else ""
            if _CLAUSE_END.search(between):
                clause += 1
            token = Token(word_stem_, key, match.start(), match.end(), word, clause, "," in between)
            found.append(token)
    return found


def stems(text: str) -> list[str]:
    """The stems of a name, alias or phrase, in order."""
    return [t.stem for t in tokens(text)]


def word_stem(token: str) -> str:
    """A crude stem: "-ing" and "-ed" removed, a doubled final consonant undoubled.

    Kept for text search, which tests it as a substring of case text (where a Snowball stem
    such as "overh" for "overheating" would also find "overhead").
    """
    for suffix in ("ing", "ed"):
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            base = token[: -len(suffix)]
            if base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]
            return base
    return token
