"""Ways engineers say the same thing happened, so that a curated phrase holds its paraphrases.

A phrase such as "api server went down" is also read as "api server fell over", "api server
died", "api server stopped responding"; "throughput dropped" as "throughput fell" or "throughput
tanked". Each group below is a set of interchangeable predicates of incident reports (general
English and operations slang, not words of any one case); a phrase holding one member gets a
variant for each other member of its group (lexicon.Lexicon._add_value), weighed a little below
the phrase as written (weights.VARIANT_FACTOR). A member may sit in more than one group.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from incidents.suggest.words import stems
from incidents.suggest.words import tokens

GROUPS: tuple[tuple[str, ...], ...] = (
    # became unavailable
    (
        "went down",
        "was down",
        "is down",
        "fell over",
        "stopped responding",
        "stopped working",
        "became unavailable",
        "was unavailable",
        "went offline",
        "was unreachable",
        "became unreachable",
        "went dark",
        "was toast",
        "is toast",
        "no longer responding",
        "not responding",
        "became unresponsive",
        "was unresponsive",
    ),
    # took more load than it could ("we DDoS'd our own apiserver": sent it more than it could take)
    (
        "overloaded",
        "overwhelmed",
        "swamped",
        "drowned",
        "buckled",
        "was hammered",
        "hammered",
        "flooded",
        "ddosed",
        "ddos'd",
        "on its knees",
        "was on its knees",
    ),
    # got slower
    ("got slower", "slowed down", "became slow", "was slow", "ran slow"),
    # slow
    ("slow", "slowly", "sluggish", "crawling", "crawl", "took forever", "took ages", "glacial"),
    # fell (a rate or a figure)
    (
        "dropped",
        "declined",
        "decreased",
        "tanked",
        "plummeted",
        "sagged",
        "dipped",
        "drifted down",
        "slipped",
    ),
    # rose (a rate or a figure)
    (
        "went up",
        "jumped",
        "spiked",
        "climbed",
        "shot up",
        "increased",
        "surged",
        "ballooned",
        "skyrocketed",
        "went vertical",
        "went through the roof",
        "peaked",
    ),
    # timed out
    ("timed out", "times out", "hit the timeout"),
    # stopped making progress
    ("hung", "got stuck", "was stuck", "froze", "stalled", "wedged", "locked up", "deadlocked"),
    # stopped and started again
    ("crash loop", "crash looping", "kept restarting", "restart loop", "kept crashing"),
    # a part that misbehaves
    ("bad", "faulty", "flaky", "broken", "defective", "marginal", "dodgy"),
    # stopped with an error ("the job went down": said of a job or process, a crash; of a
    # service it is an outage, the first group)
    ("crashed", "died", "blew up", "fell over", "went belly up", "went down", "keeled over"),
    # a graphics processor
    ("gpu", "card", "accelerator"),
    # the machines of a cluster ("boxes": on-call slang for servers)
    ("nodes", "workers", "instances", "vms", "machines", "boxes"),
    # it did not happen
    ("never", "did not", "didn't", "nothing", "nor", "not once", "nor ever", "not ever"),
    # everybody affected
    ("everyone", "everybody", "all users", "every user", "all customers"),
    # a server that answers no health check
    ("unhealthy", "unresponsive"),
    # waiting for a turn (a queue: "waiting in the queue", "sat in the queue")
    ("waiting", "sitting", "sat", "languishing"),
    # together (a change everywhere, several problems)
    ("at once", "at the same time", "simultaneously"),
    # a mistake
    ("by mistake", "by accident", "accidentally", "mistakenly", "unintentionally"),
    # a limit set on a resource
    ("limit", "cap", "ceiling"),
    # could not do it ("were unable to" holds "unable to")
    ("could not", "couldn't", "cannot", "can't", "unable to", "no way to"),
    # there was none of it ("there was no" holds "no")
    ("no", "without", "lack of", "lacked"),
)
# Members that stand for the others of their group but say more: a text's "flaky cable" is a
# faulty cable, but a phrase "flaky node" (a node that keeps failing) is not any bad node. A
# phrase holding one gets no variants from that group.
ONE_WAY = frozenset({"flaky"})
# Words that are also nouns or adjectives of other meanings ("errored" stems to "error",
# "lost" and "fell" are everywhere, "slowed" to "slow") are left out: a variant of "gpu errors"
# must not read "gpu failed".


Spelt = tuple[tuple[str, ...], tuple[str, ...]]  # (stems, spelling keys) of some words


@functools.cache
def groups_by_stems() -> tuple[tuple[Spelt, ...], ...]:
    """The groups' members as (stems, spelling keys)."""
    return tuple(tuple(_spelt(member) for member in group) for group in GROUPS)


def _spelt(text: str) -> Spelt:
    words = tokens(text)
    return tuple(w.stem for w in words), tuple(w.key for w in words)


@functools.cache
def _one_way() -> frozenset[tuple[str, ...]]:
    return frozenset(tuple(stems(member)) for member in ONE_WAY)


def paraphrases(term: Spelt, others: Callable[[tuple[str, ...]], bool]) -> list[Spelt]:
    """The (stems, keys) a phrase is also read as: one member of a group it holds replaced
    by each other member (the first member found, so that variants stay few), when what is
    left of the phrase (`others`) still says what it happened to ("api server" in "api server
    went down"; "running slow" alone is a predicate, and its variants would be any slowness).
    The keys are the words as the members spell them ("no longer", not the stem "no long")."""
    term_stems, keys = term
    found: list[Spelt] = []
    present = set(term_stems)
    for group in groups_by_stems():
        for member, _member_keys in group:
            at = _find(term_stems, member) if member[0] in present else None
            if at is None or not others(term_stems[:at] + term_stems[at + len(member) :]):
                continue
            if member in _one_way():
                break
            end = at + len(member)
            for other, other_keys in group:
                spelt = term_stems[:at] + other + term_stems[end:]
                # "gpu card" read with "card" for "gpu" is no paraphrase ("card card").
                if other != member and not _repeats(spelt):
                    found.append((spelt, keys[:at] + other_keys + keys[end:]))
            break
    return found


def _repeats(spelt: tuple[str, ...]) -> bool:
    return any(a == b for a, b in zip(spelt, spelt[1:], strict=False))


def _find(haystack: tuple[str, ...], needle: tuple[str, ...]) -> int | None:
    for start in range(len(haystack) - len(needle) + 1):
        if haystack[start : start + len(needle)] == needle:
            return start
    return None
