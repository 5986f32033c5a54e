"""What the loader says about a facet value it does not know: the alias it matched, or a
"did you mean" from the suggestion engine.

`'scheduler' is not a component slug: it is an alias of 'job-scheduler' (Job scheduler)`; for
a slug that names nothing exactly, the engine reads its words as a text (names, aliases,
phrases, small typos) and the best value of the same facet is offered.
"""

from __future__ import annotations

from collections.abc import Iterable

from rapidfuzz import process

from incidents import facets
from incidents.models import FacetValue
from incidents.services.library_entries import VocabularyEntry
from incidents.suggest.engine import suggest
from incidents.suggest.lexicon import Lexicon
from incidents.suggest.lexicon import ValueRecord
from incidents.suggest.library import stored_aliases
from incidents.suggest.library import value_record
from incidents.text import spelling_key

# A hint from the engine needs at least this score (an everyday word alone is enough here).
HINT_THRESHOLD = 0.3
# rapidfuzz similarity (0-100) above which a slug counts as a misspelling of another.
SLUG_SIMILARITY = 80


def vocabulary_lexicon(entries: Iterable[VocabularyEntry]) -> Lexicon:
    """The engine's lexicon of the vocabulary as a load would leave it: the database's values,
    with the files' entries in place of the ones they define (two queries)."""
    aliases = stored_aliases()
    records: dict[tuple[str, str], ValueRecord] = {
        (v.facet, v.slug): value_record(v, id=v.id, aliases=aliases.get(v.id, ()))
        for v in FacetValue.objects.all()
    }
    next_id = -1
    for entry in entries:
        known = records.get((entry.facet, entry.slug))
        record = value_record(entry, id=known.id if known else next_id, aliases=entry.aliases)
        records[(entry.facet, entry.slug)] = record
        next_id -= 1
    return Lexicon.build(records.values())


def unknown_value_message(facet: str, slug: str, lexicon: Lexicon) -> str:
    """The problem's message for a slug that is no value of `facet`, with the best hint."""
    noun = facets.spec(facet).label.lower()
    base = f"{slug!r} is not a known {noun} value"
    key = spelling_key(slug.replace("-", " "))
    for value in lexicon.values.values():
        spellings = {
            spelling_key(value.name): "the name",
            **{spelling_key(a): "an alias" for a in value.aliases},
        }
        if key in spellings:
            where = "" if value.facet == facet else f"{facets.spec(value.facet).label.lower()} "
            return (
                f"{slug!r} is not a {noun} slug: it is {spellings[key]} of {where}value "
                f"'{value.slug}' ({value.name})"
                + (f"; write '{value.slug}'" if value.facet == facet else "")
            )
    found = suggest(lexicon, slug.replace("-", " "), threshold=HINT_THRESHOLD, facet=facet)
    if found:
        best = max(found, key=lambda f: f.score)
        value = lexicon.values[best.value_id]
        via = f", through its {best.via} {best.term!r}" if best.term else ""
        return f"{base}; did you mean '{value.slug}' ({value.name}{via})?"
    slugs = [v.slug for v in lexicon.values.values() if v.facet == facet]
    close = process.extractOne(slug, slugs, score_cutoff=SLUG_SIMILARITY)
    if close:
        return f"{base}; did you mean '{close[0]}'?"
    return base
