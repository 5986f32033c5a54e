"""How much the cases most like a text raise each value (the like-cases prior).

incidents.suggest.prior ranks the library's tagged cases against the text (in memory: no
search, so no cycle with the search, which asks the engine for facet boosts); a value's share of
the neighbours' tags, times PRIOR_WEIGHT, joins its other evidence as one more independent
chance, but only when the text supports the value with a word of its own: a word of its name,
aliases or phrases, or of its description, that is rare in English (below WORDING_MAX_ZIPF,
SUPPORT_MAX_ZIPF: "because", "every", "used" support nothing) and that at most
SUPPORT_MAX_VALUES values use ("gpu" is in a dozen). A value with only the prior is not raised:
the gold of a sentence is what it names, not what the cases like it were tagged with.

Tuned on the tune half (`manage.py eval_suggestions --split tune --set PRIOR_WEIGHT=0.8`),
checked on its odd and even sentences apart: evidence of the value's own below the threshold as
support instead of a word (learned words mostly) added wrong values faster than right ones, and
so did support words up to Zipf 4.5 or 5, or used by up to 6 or 8 values. Re-checked by 5-fold
cross-validation on the 124 tune sentences (three shuffles): choosing SUPPORT_MAX_VALUES,
WORDING_MAX_ZIPF, SHARED_MAX_ZIPF, PRIOR_WEIGHT and prior.MIN_RELATIVE_SCORE per fold scored
F1 0.94 on the held-out folds, these values 0.95.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from collections.abc import Sequence

from incidents.facets import ORGANISATION
from incidents.suggest.forms import FUNCTION_WORDS
from incidents.suggest.lexicon import Lexicon
from incidents.suggest.words import Token
from incidents.suggest.words import zipf

PRIOR_WEIGHT = 0.7
SUPPORT_MAX_VALUES = 4.0
SUPPORT_MAX_ZIPF = 4.0  # a word of the value's description
# A word of its name, aliases or phrases. Cross-validation on the tune half chose 4.0, but that
# half's misses were already covered by phrases written from them, so a prior had little left
# to add there; on 30 blind tune sentences (t125-t154), measured before anything was built from
# them, 4.0 -> 5.0 added 8 right values and no wrong one (recall 0.77 -> 0.84), over t1-t154
# 12 right and 7 wrong (4.5: 8 and 3; 5.5: 18 and 11).
WORDING_MAX_ZIPF = 5.0
# An organisation is named, never implied by the cases a text is like.
UNLIKE_FACETS = frozenset({ORGANISATION.facet})
# Neighbours a suggestion names as "like cases", at most.
LIKE_SHOWN = 2
# A commoner word of the value's wording (up to this Zipf) supports it when the like case
# tagged with it uses the word too; 0: off. At 5.5, with SUPPORT_MAX_VALUES 3, it trades
# precision for recall (tune half 0.92/0.88 -> 0.91/0.91, precision down on its odd sentences,
# report half 0.84/0.70 -> 0.81/0.77): off while precision is under its target.
SHARED_MAX_ZIPF = 0.0

# value id -> (the prior's boost, the labels of the like cases tagged with it)
Boosts = dict[int, tuple[float, tuple[str, ...]]]


def _may_support(lexicon: Lexicon, value_id: int, claimed: int | None) -> bool:
    """Whether a word that names `claimed` outright (None: nothing) may support `value_id`."""
    if claimed is None or claimed not in lexicon.values:
        return True
    same_facet = lexicon.values[value_id].facet == lexicon.values[claimed].facet
    return not same_facet or value_id == claimed or value_id in lexicon.ancestors(claimed)


def like_cases(
    lexicon: Lexicon,
    words: Sequence[Token],
    named: Mapping[int, int] | None = None,
    denied: frozenset[int] = frozenset(),
) -> tuple[Boosts, dict[int, list[str]]]:
    """Per value the prior raises, its boost and like cases; and the words supporting it.

    `named`: the positions of words that already name a value outright (an explicit match),
    with that value: such a word supports no other value of its facet but a broader one ("the
    job hit a timeout" names Timeout, not NCCL timeout). `denied`: the positions of words the
    text rules out ("not the network"), which neither rank cases nor support a value.
    """
    content = [w for i, w in enumerate(words) if w.key not in FUNCTION_WORDS and i not in denied]
    shares, holders = lexicon.cases.prior(w.stem for w in content)
    if not shares:
        return {}, {}
    supporting: dict[int, list[str]] = defaultdict(list)
    for position, word in enumerate(words):
        if word.key in FUNCTION_WORDS or position in denied:
            continue
        claimed = (named or {}).get(position)
        commonness = zipf(word.key)
        for index, most_common in (
            (lexicon.support, WORDING_MAX_ZIPF),
            (lexicon.described, SUPPORT_MAX_ZIPF),
        ):
            using = index.get(word.stem, frozenset())
            if len(using) > SUPPORT_MAX_VALUES:
                continue
            if commonness < most_common:
                for value_id in using & shares.keys():
                    if _may_support(lexicon, value_id, claimed):
                        supporting[value_id].append(word.written)
            elif commonness < SHARED_MAX_ZIPF:
                # A commoner word counts when the like case tagged with the value uses it too.
                in_cases = set(lexicon.cases.postings.get(word.stem, ()))
                for value_id in using & shares.keys():
                    if in_cases.intersection(holders[value_id]) and _may_support(
                        lexicon, value_id, claimed
                    ):
                        supporting[value_id].append(word.written)
    boosts: Boosts = {}
    for value_id in supporting:
        if value_id not in lexicon.values or lexicon.values[value_id].facet in UNLIKE_FACETS:
            continue
        labels = tuple(
            label
            for label in (lexicon.case_labels[n] for n in holders[value_id][:LIKE_SHOWN])
            if label
        )
        boosts[value_id] = (PRIOR_WEIGHT * shares[value_id], labels)
    return boosts, {v: list(dict.fromkeys(ws)) for v, ws in supporting.items() if v in boosts}
