"""The engine's lexicon for the library in the database, built once and cached.

The cache is keyed on the library's contents: a one-query signature (how many values and
aliases there are, the newest alias, case and tag, and when values and cases last changed). A load, a submitted case or
an edit in the admin changes the signature, and the next call rebuilds the lexicon from four
queries; every other call costs the signature query only.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING
from typing import Any

from django.db import connection

from incidents.models import Case
from incidents.models import CaseFacetLink
from incidents.models import FacetAlias
from incidents.models import FacetValue
from incidents.suggest.lexicon import Document
from incidents.suggest.lexicon import Lexicon
from incidents.suggest.lexicon import ValueRecord

if TYPE_CHECKING:
    from incidents.services.library_entries import VocabularyEntry

# The cases learned evidence is read from, at most, and the characters of each.
MAX_LEARNED_CASES = 2_000
MAX_LEARNED_CHARS = 1_500

_lock = threading.Lock()
_cached: tuple[Any, Lexicon, dict[int, FacetValue]] | None = None


def _signature() -> tuple[Any, ...]:
    """What changes whenever the vocabulary or the tagged text may have changed (one query)."""
    tables = {
        "value": FacetValue._meta.db_table,
        "alias": FacetAlias._meta.db_table,
        "case": Case._meta.db_table,
        "link": CaseFacetLink._meta.db_table,
    }
    parts = [
        f"(SELECT COUNT(*) FROM {tables['value']})",
        f"(SELECT MAX(updated_at) FROM {tables['value']})",
        f"(SELECT COUNT(*) FROM {tables['alias']})",
        f"(SELECT MAX(id) FROM {tables['alias']})",
        # Large tables: only indexed maxima, so that the signature stays cheap at 100,000
        # cases (deleting an old case alone leaves its learned evidence until the next change).
        f"(SELECT MAX(id) FROM {tables['case']})",
        f"(SELECT MAX(updated_at) FROM {tables['case']})",
        f"(SELECT MAX(id) FROM {tables['link']})",
    ]
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(parts))
        row = cursor.fetchone()
    return (connection.alias, connection.settings_dict.get("NAME"), *tuple(row or ()))


def stored_aliases() -> dict[int, list[str]]:
    """Every alias's text by the id of the value it names (one query)."""
    aliases: dict[int, list[str]] = defaultdict(list)
    for value_id, text in FacetAlias.objects.values_list("value_id", "text"):
        aliases[value_id].append(text)
    return aliases


def value_record(
    value: FacetValue | VocabularyEntry,
    *,
    id: int,
    aliases: Iterable[str],
    parent_id: int | None = None,
) -> ValueRecord:
    """The engine's record of a stored value or of a vocabulary file's entry (their fields are
    named alike; a stored value's aliases are rows of their own, hence given apart)."""
    return ValueRecord(
        id=id,
        facet=value.facet,
        slug=value.slug,
        name=value.name,
        parent_id=parent_id,
        aliases=tuple(aliases),
        phrases=tuple(value.phrases or ()),
        ambiguous=tuple(value.ambiguous or ()),
        description=value.description or "",
    )


def _build(given: Iterable[FacetValue] | None) -> tuple[Lexicon, dict[int, FacetValue]]:
    values = {v.id: v for v in (given if given is not None else FacetValue.objects.all())}
    aliases = stored_aliases()
    # Learned evidence reads the most recently changed cases, at most MAX_LEARNED_CASES, and
    # the start of their text: a rebuild then costs the same at 100,000 cases as at 2,000.
    recent = list(
        Case.objects.order_by("-updated_at", "-id").values_list(
            "id", "title", "summary", "detection"
        )[:MAX_LEARNED_CASES]
    )
    texts = {
        case_id: " ".join((title, summary, detection))[:MAX_LEARNED_CHARS]
        for case_id, title, summary, detection in recent
    }
    titles = {case_id: title for case_id, title, _summary, _detection in recent}
    tags: dict[int, set[int]] = defaultdict(set)
    for case_id, value_id in CaseFacetLink.objects.filter(case_id__in=list(texts)).values_list(
        "case_id", "value_id"
    ):
        tags[case_id].add(value_id)
    documents = [
        Document(text, frozenset(tags.get(case_id, ())), titles[case_id])
        for case_id, text in sorted(texts.items())
    ]
    records = [
        value_record(v, id=v.id, aliases=aliases.get(v.id, ()), parent_id=v.parent_id)
        for v in values.values()
    ]
    return Lexicon.build(records, documents), values


def library_lexicon(
    values: Iterable[FacetValue] | None = None,
) -> tuple[Lexicon, dict[int, FacetValue]]:
    """The lexicon of the library as it is now, and its values by id.

    `values`, every facet value as the caller already read them, saves a query on a rebuild.
    """
    global _cached
    signature = _signature()
    with _lock:
        if _cached is not None and _cached[0] == signature:
            return _cached[1], _cached[2]
    lexicon, by_id = _build(values)
    with _lock:
        _cached = (signature, lexicon, by_id)
    return lexicon, by_id
