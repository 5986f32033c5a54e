"""The forms a name, alias or phrase may be written in, besides itself.

A verb and its particle apart or together ("timed out", "timeout"); a phrase without its function
words ("deleted the cluster": "deleted cluster"); a preposition's phrase the other way round
("memory errors on the GPU": "GPU memory errors"); and a phrase read with synonyms of its
predicate or subject (incidents.suggest.synonyms). incidents.suggest.lexicon indexes every form.
"""

from __future__ import annotations

import functools

from incidents.suggest.synonyms import paraphrases
from incidents.suggest.words import stem

Stems = tuple[str, ...]

# Particles that make a verb's phrase ("timed out", "went down") and join into one word
# ("timeout", "shutdown", "slowdown", "rollback", "failover", "startup").
PARTICLES = ("out", "down", "up", "over", "off", "back")
# Words a phrase may go without ("the", "was"): English function words, but not the negations
# and particles that carry meaning ("no", "not", "off", "down").
FUNCTION_WORDS = frozenset(
    "a an the this that these those its it their our your his her my of to in on at for from "
    "with by as into onto is was were are be been being am has have had do does did will would "
    "can could should and or so then when while any some".split()
)
PARAPHRASES = 1
# Phrases read the other way round too (see inverted); 0: off.
INVERSIONS = 1


def paraphrased(form: tuple[Stems, Stems]) -> list[tuple[Stems, Stems]]:
    """A phrase's paraphrases (incidents.suggest.synonyms), when it says what happened to
    something: some word other than the predicate and function words is left."""
    function_stems = _function_stems()
    return paraphrases(form, lambda rest: any(s not in function_stems for s in rest))


@functools.cache
def _function_stems() -> frozenset[str]:
    return frozenset(stem(w) for w in FUNCTION_WORDS)


def spelling_forms(base: tuple[Stems, Stems], kind: str) -> list[tuple[Stems, Stems]]:
    """The (stems, keys) a spelling may be written as: itself; a verb and its particle written
    apart or together ("timed out" and "timeout", "shutdown" and "shut down"); two adjacent
    words of a longer term written as one ("the apiserver", _closed_up); and, for a
    phrase, without its function words ("deleted the cluster": "deleted cluster", written
    "deleted our whole cluster"). Two words in either order ("cluster deleted") added wrong
    values on the tune half as fast as right ones."""
    forms = [base]
    for term_stems, keys in list(forms):
        forms.extend(_compounds(term_stems, keys))
    forms.extend(_closed_up(base))
    if kind == "phrase":
        for term_stems, keys in list(forms):
            content = [
                (s, k) for s, k in zip(term_stems, keys, strict=True) if k not in FUNCTION_WORDS
            ]
            if len(content) >= 2 and len(content) < len(term_stems):
                forms.append((tuple(s for s, _k in content), tuple(k for _s, k in content)))
    return forms


# Prepositions whose phrase reads as a compound the other way round ("memory errors on the GPU":
# "GPU memory errors"; "loss of power": "power loss"), and the words skipped after them.
INVERTIBLE = ("on", "of", "in")
DETERMINERS = frozenset("a an the its their our his her my this that these those".split())
# ... but not a phrase that is negated ("not reproduced in testing") or quantified ("on every
# node", "on the same nodes"): their words say what they say only in their order.
UNINVERTIBLE = frozenset("no not never nothing nobody every each all any same".split())


def inverted(base: tuple[Stems, Stems]) -> list[tuple[Stems, Stems]]:
    """A phrase "A on/of/in the B" also written "B A" (B one or two words, A up to three, each
    with a word that is no function word)."""
    term_stems, keys = base
    for i, key in enumerate(keys):
        if key not in INVERTIBLE or i == 0 or i > 3:
            continue
        j = i + 1
        while j < len(keys) and keys[j] in DETERMINERS:
            j += 1
        head, tail = range(0, i), range(j, len(keys))
        if not 1 <= len(tail) <= 2 or any(keys[k] in FUNCTION_WORDS for k in tail):
            continue
        if all(keys[k] in FUNCTION_WORDS or keys[k] in PARTICLES for k in head):
            continue
        if any(k in UNINVERTIBLE for k in keys):
            return []
        order = [*tail, *head]
        return [(tuple(term_stems[k] for k in order), tuple(keys[k] for k in order))]
    return []


# Terms of at least this many words may have two of their words written as one (see _closed_up);
# 0: off. A term of two words written as one is found by its joined spelling
# (lexicon.Lexicon.by_joined).
CLOSED_UP_MIN_WORDS = 3


def _closed_up(base: tuple[Stems, Stems]) -> list[tuple[Stems, Stems]]:
    """A term of three words or more with two adjacent ones written as one word, as engineers
    write compounds ("hammered the apiserver" for "hammered the api server", "the dataloader
    leaked" for "the data loader leaked"); two words that are no function words or numbers."""
    term_stems, keys = base
    if not CLOSED_UP_MIN_WORDS or len(keys) < CLOSED_UP_MIN_WORDS:
        return []
    found = []
    for i in range(len(keys) - 1):
        pair = keys[i : i + 2]
        if any(k in FUNCTION_WORDS or k in PARTICLES or not k.isalpha() for k in pair):
            continue
        joined = pair[0] + pair[1]
        found.append(
            (
                term_stems[:i] + (stem(joined),) + term_stems[i + 2 :],
                keys[:i] + (joined,) + keys[i + 2 :],
            )
        )
    return found


# Words ending in a particle that are no verb and particle written joined: a "traceback" is a
# stack trace, but "traced back to" is how a postmortem says where a cause was found.
UNSPLIT = frozenset({"traceback", "without"})


def _compounds(term_stems: Stems, keys: Stems) -> list[tuple[Stems, Stems]]:
    """A verb and particle joined where written apart, and apart where written joined."""
    found = []
    for i in range(len(term_stems) - 1):
        if keys[i + 1] in PARTICLES and len(term_stems[i]) >= 3:
            joined = term_stems[i] + keys[i + 1]
            found.append(
                (
                    term_stems[:i] + (joined,) + term_stems[i + 2 :],
                    keys[:i] + (keys[i] + keys[i + 1],) + keys[i + 2 :],
                )
            )
    for i, (s, k) in enumerate(zip(term_stems, keys, strict=True)):
        if k in UNSPLIT:
            continue
        for particle in PARTICLES:
            if k.endswith(particle) and len(k) - len(particle) >= 3 and s == k:
                head = stem(k[: -len(particle)])
                found.append(
                    (
                        term_stems[:i] + (head, particle) + term_stems[i + 1 :],
                        keys[:i] + (k[: -len(particle)], particle) + keys[i + 1 :],
                    )
                )
    return found


# Adjectives of incident reports that a phrase may put before its noun ("slower training",
# "faulty cable", "stale cache") and a text after it, across a linking verb ("training is
# measurably slower", "the cable was faulty", "the cache had become stale").
ADJECTIVES = frozenset(
    "bad slow slower wrong faulty broken degraded lower higher high low long longer stale "
    "corrupt corrupted misleading silent immature untested defective flaky dead missing "
    "outdated unhealthy marginal noisy full misconfigured overloaded saturated throttled "
    "unresponsive unreachable unavailable stuck hung undersized oversubscribed overheated "
    "overheating failing dying leaking aggressive short".split()
)
# Linking verbs, and the words that may sit between them and the adjective ("was noticeably
# slower", "got much worse"; an adverb in -ly counts too). A negation breaks the link.
LINKING_VERBS = frozenset(
    "is are was were be been being seems seemed seem looks looked look became become becomes "
    "got gets get stayed remained had has have".split()
)
LINK_FILLERS = frozenset("very much way even still too so really quite far a bit lot also".split())
# Words between the noun and the adjective, at most.
LINK_MOST = 3
# Phrases read with the adjective after the noun too (see predicative); 0: off.
PREDICATIVE = 1


def predicative(base: tuple[Stems, Stems]) -> list[tuple[Stems, Stems]]:
    """A phrase "ADJ N" or "ADJ N N" ("faulty cable", "slow checkpoint saves") as "N ADJ" (or
    "N N ADJ"), the form incidents.suggest.matching finds across a linking verb ("the
    checkpoint saves were slow")."""
    term_stems, keys = base
    if not 2 <= len(keys) <= 3 or keys[0] not in ADJECTIVES:
        return []
    nouns = keys[1:]
    if any(k in FUNCTION_WORDS or k in PARTICLES or k in UNINVERTIBLE for k in nouns):
        return []
    if any(k in ADJECTIVES for k in nouns):
        return []
    return [(term_stems[1:] + term_stems[:1], keys[1:] + keys[:1])]


def links(keys: list[str]) -> bool:
    """Whether the words between a noun and its adjective link them: a linking verb, and
    otherwise only adverbs ("is measurably", "had become", "was still")."""
    return (
        0 < len(keys) <= LINK_MOST
        and any(k in LINKING_VERBS for k in keys)
        and all(k in LINKING_VERBS or k in LINK_FILLERS or k.endswith("ly") for k in keys)
    )
