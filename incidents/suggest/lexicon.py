"""What the engine knows, built once per library: every spelling of every value, and evidence.

- Terms: each value's name and aliases (explicit names) and its curated `phrases` (how engineers
  say it), as stem sequences, in every form incidents.suggest.forms gives. A name or alias listed in the value's `ambiguous` is an everyday
  word ("node", "fair"): it counts fully only when written with the vocabulary's capitals
  ("FAIR"), and otherwise only as weak evidence that something else must confirm.
- Evidence: words distinctive of the cases tagged with a value (TF-IDF style: how many of the
  value's cases use the word, times how many of the cases using the word carry the value),
  learned from the library's own text, so that suggestions improve as cases are added.

A Lexicon is plain data: the loader builds one from files, pages from the database
(incidents.suggest.library caches it keyed on the library's contents).
"""

from __future__ import annotations

import re
from collections import Counter
from collections import defaultdict
from collections.abc import Iterable
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field

from incidents.facets import ORGANISATION
from incidents.suggest import forms as spelling
from incidents.suggest.forms import FUNCTION_WORDS
from incidents.suggest.prior import CaseIndex
from incidents.suggest.words import Token
from incidents.suggest.words import agent_marks
from incidents.suggest.words import stem
from incidents.suggest.words import stems
from incidents.suggest.words import tokens
from incidents.suggest.words import zipf
from incidents.text import spelling_key

Stems = tuple[str, ...]

_PARENTHESIS = re.compile(r"\s*\([^)]*\)")
# Learned evidence ignores words used by more than this share of the cases ("the", "job").
COMMON_WORD_SHARE = 0.25
# A word teaches a value something only if at least this many of the value's cases use it,
# and at least this share of the cases using the word carry the value (tuned on the tune half).
MIN_SHARED_CASES = 3
MIN_PRECISION = 0.7
# ... and the cases come from at least this many organisations.
MIN_ORGANISATIONS = 2
# Learned evidence ignores words at least this common in English (see _rare).
LEARNED_MAX_ZIPF = 4.0
# A one-word phrase at least this common in English is an everyday word (see _everyday).
EVERYDAY_ZIPF = 3.0
# Phrases too may be written joined or apart ("autoupdate" for "auto-update"); 0: off.
JOINED_PHRASES = 1


def _everyday(word: Token) -> bool:
    """Whether a word, or the stem it matches by ("slow" for "slowness"), is common in general
    English (wordfreq's Zipf scale: 3 is once per million words), so that alone it describes
    nothing in particular ("stalled", "fabric")."""
    if any(ch.isdigit() for ch in word.key):
        return False  # a code or a number ("502s", "xid79"), never an everyday word
    return max(zipf(word.key), zipf(word.stem)) >= EVERYDAY_ZIPF


def _rare(word_stem: str) -> bool:
    """Whether a stem is rare enough in general English to teach a value something: in a
    library of a few dozen cases, "request" or "clients" looks distinctive by chance."""
    return zipf(word_stem) < LEARNED_MAX_ZIPF


@dataclass(frozen=True)
class ValueRecord:
    """A facet value as the engine sees it."""

    id: int
    facet: str
    slug: str
    name: str
    parent_id: int | None = None
    aliases: tuple[str, ...] = ()
    phrases: tuple[str, ...] = ()
    ambiguous: tuple[str, ...] = ()
    description: str = ""


@dataclass(frozen=True)
class Document:
    """One case's text and every value it is tagged with (implied ancestors included)."""

    text: str
    value_ids: frozenset[int]
    label: str = ""  # how a suggestion names the case ("like cases ...")


@dataclass(frozen=True)
class Term:
    """One spelling of a value: a name, an alias or a phrase, as stems."""

    stems: tuple[str, ...]
    keys: tuple[str, ...]
    value_id: int
    text: str
    kind: str  # "name", "alias" or "phrase"
    ambiguous: bool = False
    everyday: bool = False  # a one-word phrase that is a common English word ("stalled")
    paraphrase: bool = False  # read with a synonym of its predicate (incidents.suggest.synonyms)
    linked: bool = False  # its adjective last, after a linking verb (forms.predicative)
    stem_set: frozenset[str] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "stem_set", frozenset(self.stems))

    @property
    def exact_case(self) -> str | None:
        """For an everyday word spelt with capitals ("FAIR"), the form that counts fully."""
        if self.ambiguous and self.text != self.text.lower():
            return self.text
        return None


@dataclass
class Lexicon:
    """Terms indexed by their first stem and by their joined spelling, plus learned evidence."""

    values: dict[int, ValueRecord]
    by_first: dict[str, list[Term]] = field(default_factory=lambda: defaultdict(list))
    by_joined: dict[str, list[Term]] = field(default_factory=lambda: defaultdict(list))
    # stem -> [(value id, weight)]: words distinctive of a value's cases.
    evidence: dict[str, list[tuple[int, float]]] = field(default_factory=dict)
    # Stems of explicit names and aliases (typos are forgiven against these only).
    name_stems: list[str] = field(default_factory=list)
    known_stems: frozenset[str] = frozenset()
    # Every beginning of a joined spelling ("d", "da", ... "dataloader"), to stop early.
    joined_prefixes: frozenset[str] = frozenset()
    # Every stem the library's case text uses: such a word is no typo.
    corpus_stems: frozenset[str] = frozenset()
    children: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    # The tagged cases for the like-cases prior (incidents.suggest.prior), and their labels.
    cases: CaseIndex = field(default_factory=CaseIndex)
    case_labels: list[str] = field(default_factory=list)
    # last stem -> names and aliases of two words or more ("Kubernetes node" under "node").
    by_last: dict[str, list[Term]] = field(default_factory=lambda: defaultdict(list))
    # stem -> the values whose own wording (name, aliases, phrases) uses it.
    support: dict[str, frozenset[int]] = field(default_factory=dict)
    # ... and the values whose description uses it.
    described: dict[str, frozenset[int]] = field(default_factory=dict)
    _ancestors: dict[int, list[int]] = field(default_factory=dict)

    @classmethod
    def build(cls, values: Iterable[ValueRecord], documents: Sequence[Document] = ()) -> Lexicon:
        lexicon = cls({v.id: v for v in values})
        for value in lexicon.values.values():
            if value.parent_id is not None:
                lexicon.children[value.parent_id].append(value.id)
            lexicon._add_value(value)
        lexicon.name_stems = sorted(
            {
                s
                for terms in lexicon.by_first.values()
                for t in terms
                if t.kind != "phrase"
                for s in t.stems
            }
        )
        for terms in list(lexicon.by_first.values()):
            for t in terms:
                if t.kind != "phrase" and not t.ambiguous and len(t.stems) > 1:
                    lexicon.by_last[t.stems[-1]].append(t)
        lexicon.known_stems = frozenset(
            s for terms in lexicon.by_first.values() for t in terms for s in t.stems
        )
        lexicon.joined_prefixes = frozenset(
            joined[:n] for joined in lexicon.by_joined for n in range(1, len(joined) + 1)
        )
        lexicon._learn(documents)
        lexicon._index_support()
        return lexicon

    def _index_support(self) -> None:
        """Each value's own words, as stems (function words left out), for the prior."""
        function_stems = {stem(w) for w in FUNCTION_WORDS}
        support: dict[str, set[int]] = defaultdict(set)
        described: dict[str, set[int]] = defaultdict(set)
        for value in self.values.values():
            wording = [value.name, *value.aliases, *value.phrases]
            for into, texts in ((support, wording), (described, [value.description])):
                for text in texts:
                    for s in stems(text):
                        if s not in function_stems and len(s) > 1:
                            into[s].add(value.id)
        self.support = {s: frozenset(ids) for s, ids in support.items()}
        self.described = {s: frozenset(ids) for s, ids in described.items()}

    def _add_value(self, value: ValueRecord) -> None:
        ambiguous = {spelling_key(a) for a in value.ambiguous}
        # A spelling already indexed: its stems, which of its words are agent nouns, and whether
        # it is read across a linking verb (forms.predicative: that form blocks no other).
        seen: set[tuple[Stems, tuple[tuple[bool, ...], ...], bool]] = set()
        spellings = [(value.name, "name"), *((a, "alias") for a in value.aliases)]
        spellings += [(p, "phrase") for p in value.phrases]
        for text, kind in spellings:
            for variant in dict.fromkeys([text, _PARENTHESIS.sub("", text)]):
                words = tokens(variant)
                if not words:
                    continue
                everyday = kind == "phrase" and len(words) == 1 and _everyday(words[0])
                base = (tuple(t.stem for t in words), tuple(t.key for t in words))
                is_ambiguous = spelling_key(text) in ambiguous
                forms = [(f, False) for f in spelling.spelling_forms(base, kind)]
                if not is_ambiguous and spelling.PARAPHRASES:
                    # A name or alias paraphrased ("flaky GPU" for "faulty GPU") is a phrase.
                    forms += [(p, True) for f, _k in forms for p in spelling.paraphrased(f)]
                if not is_ambiguous and spelling.INVERSIONS:
                    forms += [(f, True) for f in spelling.inverted(base)]
                linked = []
                if not is_ambiguous and spelling.PREDICATIVE:
                    linked = [(f, True) for f in spelling.predicative(base)]
                for (term_stems, keys), paraphrase in forms + linked:
                    is_linked = (term_stems, keys) in dict(linked)
                    spelt = (term_stems, agent_marks(keys), is_linked)
                    if spelt in seen:
                        continue
                    seen.add(spelt)
                    term = Term(
                        term_stems,
                        keys,
                        value.id,
                        text,
                        "phrase" if paraphrase else kind,
                        ambiguous=is_ambiguous,
                        everyday=everyday,
                        paraphrase=paraphrase,
                        linked=is_linked,
                    )
                    self.by_first[term_stems[0]].append(term)
                    if (kind != "phrase" or JOINED_PHRASES) and not paraphrase and keys == base[1]:
                        self.by_joined["".join(term.keys)].append(term)

    def _learn(self, documents: Sequence[Document]) -> None:
        """Weights of words distinctive of each value's cases (see the module docstring)."""
        if not documents:
            return
        doc_stems = [frozenset(stems(d.text)) for d in documents]
        self.corpus_stems = frozenset().union(*doc_stems)
        function_stems = {stem(w) for w in FUNCTION_WORDS}
        self.cases = CaseIndex.build(
            [
                (found - function_stems, d.value_ids)
                for found, d in zip(doc_stems, documents, strict=True)
            ]
        )
        self.case_labels = [d.label for d in documents]
        df = Counter(s for found in doc_stems for s in found)
        cases_of = Counter(v for d in documents for v in d.value_ids)
        shared: dict[str, Counter[int]] = defaultdict(Counter)
        # Organisations behind the cases that share a word and a value: a word only one
        # organisation's reports use ("Jean Zay", a product) names its systems, not a failure.
        sources: dict[tuple[str, int], set[int]] = defaultdict(set)
        limit = max(MIN_SHARED_CASES, COMMON_WORD_SHARE * len(documents))
        for found, document in zip(doc_stems, documents, strict=True):
            organisations = {
                v
                for v in document.value_ids
                if v in self.values and self.values[v].facet == ORGANISATION.facet
            }
            for s in found:
                if df[s] <= limit and len(s) > 2 and not s.isdigit() and _rare(s):
                    shared[s].update(document.value_ids)
                    for value_id in document.value_ids:
                        sources[(s, value_id)].update(organisations)
        for s, counts in shared.items():
            weights = [
                (value_id, (n / cases_of[value_id]) * (n / df[s]))
                for value_id, n in counts.items()
                if n >= MIN_SHARED_CASES
                and n / df[s] >= MIN_PRECISION
                and value_id in self.values
                and len(sources[(s, value_id)]) >= MIN_ORGANISATIONS
            ]
            if weights:
                self.evidence[s] = weights

    def family(self, value_id: int) -> set[int]:
        """The value's ancestors and descendants (itself left out)."""
        found = set(self.ancestors(value_id))
        todo = list(self.children.get(value_id, []))
        while todo and len(found) < 1_000:
            child = todo.pop()
            if child not in found:
                found.add(child)
                todo.extend(self.children.get(child, []))
        return found

    def ancestors(self, value_id: int) -> list[int]:
        """The value's parent, grandparent, ... (nearest first)."""
        if value_id not in self._ancestors:
            self._ancestors[value_id] = self._chain(value_id)
        return self._ancestors[value_id]

    def _chain(self, value_id: int) -> list[int]:
        chain: list[int] = []
        current = self.values[value_id].parent_id
        while current is not None and current in self.values and len(chain) < 20:
            chain.append(current)
            current = self.values[current].parent_id
        return chain
