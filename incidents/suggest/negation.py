"""Whether the text rules out what a term names: "it was not a hardware problem", "we ruled out
the network", "no sign of memory pressure", "it wasn't the GPUs".

A term is ruled out when a negator governs it: the negator stands right before its first word,
in the same clause, with at most determiners, a contraction's "t" ("wasn't" is read as "wasn"
and "t") or a noun of evidence ("no sign of", "no evidence of any") between them. A term that
holds a negation itself ("no alert fired", "without a canary", "not re-tested") says what
went missing and is never ruled out; nor is one after "not just" or "no longer", whose words
are no determiners ("it's not just bad data" blames the data too).
"""

from __future__ import annotations

from collections.abc import Sequence

from incidents.suggest import weights
from incidents.suggest.matching import Hit
from incidents.suggest.words import Token

# Words that deny what follows them ("no restart", "not a bug", "without errors"); "didn't" is
# read as "didn" and "t".
NEGATIONS = frozenset(
    "no not never without nor nothing didn don doesn wasn isn aren weren hasn haven".split()
)
# Two words that deny what follows them ("ruled out the network", "rather than the disk").
NEGATING_PAIRS = frozenset(
    {
        ("ruled", "out"),
        ("rule", "out"),
        ("rules", "out"),
        ("ruling", "out"),
        ("rather", "than"),
        ("instead", "of"),
    }
)
# Words between a negator and the term it governs that leave it governed ("not a", "not the",
# "wasn't any", "no sign of", "ruled out our"): determiners and a contraction's "t".
DETERMINERS = frozenset("a an the any this that these those our its their his her my t".split())
# Nouns of evidence a negator governs the term through ("no sign of", "no evidence of").
EVIDENCE = frozenset(
    "sign signs evidence trace traces hint hints indication indications symptom symptoms".split()
)
# Words looked back over from a term to its negator, at most.
REACH = 4
# An auxiliary's "n't" followed by a pronoun asks rather than denies ("wasn't that calico?").
CONTRACTED = frozenset("didn don doesn wasn isn aren weren hasn haven".split())
ASKED = frozenset("it that this there we they you he she".split())
# Words that join another ruled-out thing to the first ("ruled out the fabric and the GPUs").
CONJUNCTIONS = frozenset("and or nor".split())


def ruled_out(words: Sequence[Token], hits: Sequence[Hit]) -> tuple[list[Hit], frozenset[int]]:
    """The hits that stand, and the positions of the words only denied hits used (no evidence
    for anything else either: neither learned words nor like cases)."""
    gone = [denied(words, h.start, h.term.keys, h.skipped, h.end) for h in hits]
    if weights.RULED_OUT:
        # A term joined by "and", "or" or "nor" to a ruled-out one is ruled out with it.
        for _pass in range(2):
            # the ruled-out thing's last word, or the noun after it ("a GPU fault or ...")
            ends = {i for h, g in zip(hits, gone, strict=True) if g for i in (h.end - 1, h.end)}
            gone = [g or _joined(words, h, ends) for h, g in zip(hits, gone, strict=True)]
        # ... and so is a term inside a ruled-out one ("timeout" in "not the NCCL timeout").
        spans = [(h.start, h.end) for h, g in zip(hits, gone, strict=True) if g]
        gone = [
            g or (_inside(h, spans) and not any(k in NEGATIONS for k in h.term.keys))
            for h, g in zip(hits, gone, strict=True)
        ]
    standing = [h for h, g in zip(hits, gone, strict=True) if not g]
    used = {i for h in standing for i in h.words_at()}
    denied_words = {i for h, g in zip(hits, gone, strict=True) if g for i in h.words_at()}
    return standing, frozenset(denied_words - used)


def _inside(hit: Hit, spans: list[tuple[int, int]]) -> bool:
    return any(start <= hit.start and hit.end <= end for start, end in spans)


def _joined(words: Sequence[Token], hit: Hit, ends: set[int]) -> bool:
    """Whether `hit` follows "and", "or" or "nor" after a ruled-out hit ("the fabric and the
    GPUs"), determiners aside; a comma alone does not join ("not the storage, the dataloader
    leaked")."""
    if any(key in NEGATIONS for key in hit.term.keys):
        return False
    at = hit.start - 1
    while at >= 0 and words[at].key in DETERMINERS and hit.start - at <= 2:
        at -= 1
    return (
        at > 0
        and words[at].key in CONJUNCTIONS
        and words[at].clause == words[hit.start].clause
        and not words[at].comma
        and at - 1 in ends
    )


def denied(
    words: Sequence[Token],
    start: int,
    keys: Sequence[str],
    skipped: frozenset[int],
    end: int | None = None,
) -> bool:
    """Whether the text denies the term whose first word is at `start` (`keys`: the term's
    words; `skipped`: the text's words between them): a negation among the words it skips
    ("ran with no restart" is no "run restarts") or governing it (see the module's docstring),
    or a verdict right after it (`end`: the word after the term) that clears it ("the network
    was ruled out", "the GPUs weren't the problem"), unless the term holds a negation itself
    ("no timeout fired")."""
    if any(key in NEGATIONS for key in keys):
        return False
    if any(words[i].key in NEGATIONS for i in skipped):
        return True
    if not weights.RULED_OUT:
        return start > 0 and words[start - 1].key in NEGATIONS
    return _governed(words, start) or (end is not None and _cleared(words, end))


# Words between a term and the verdict that clears it ("the network was ruled out").
AUXILIARIES = frozenset("was is were are been be has have had got also then quickly".split())
# What a thing cleared is said not to be ("the GPUs weren't the problem").
BLAMES = frozenset("problem issue cause culprit bottleneck reason".split())


def _cleared(words: Sequence[Token], end: int) -> bool:
    """Whether the words from `end` on, in the term's clause, clear it: "... (was) ruled out",
    "... (was) excluded", "... was not / wasn't the problem (cause, culprit)"."""
    clause = words[end - 1].clause
    keys = [w.key for w in words[end : end + 6] if w.clause == clause]
    at = 0
    while at < len(keys) and keys[at] in AUXILIARIES:
        at += 1
    rest = keys[at:]
    if rest[:2] in (["ruled", "out"], ["excluded"]) or rest[:1] == ["excluded"]:
        return True
    if rest[:1] in (["wasn"], ["isn"], ["weren"], ["aren"]) and rest[1:2] == ["t"]:
        rest = rest[2:]
    elif at and rest[:1] in (["not"], ["never"]):
        rest = rest[1:]
    else:
        return False
    if rest[:1] and rest[0] in ("the", "a", "our", "its"):
        rest = rest[1:]
    return bool(rest) and rest[0] in BLAMES


def _governed(words: Sequence[Token], start: int) -> bool:
    """Whether a negator stands before `start` in its clause with only determiners or "sign of"
    between."""
    at = start - 1
    clause = words[start].clause
    while at >= 0 and start - at <= REACH and words[at].clause == clause:
        if words[at + 1].comma:
            return False  # "the network was ruled out, the job hung"
        key = words[at].key
        if key in NEGATIONS:
            return not _asks(words, at, start)
        if at > 0 and (words[at - 1].key, key) in NEGATING_PAIRS:
            return True
        if key == "of" and at > 0 and words[at - 1].key in EVIDENCE:
            at -= 2
            continue
        if key not in DETERMINERS:
            return False
        at -= 1
    return False


def _asks(words: Sequence[Token], at: int, start: int) -> bool:
    """Whether the negator at `at` is an auxiliary's "n't" before its subject ("wasn't that
    calico and a node label?"), which asks rather than denies."""
    return (
        words[at].key in CONTRACTED
        and at + 2 < start
        and words[at + 1].key == "t"
        and words[at + 2].key in ASKED
    )
