"""Bounds on a request's filter parameters, applied before any filter runs (by CaseFilterSet).

A parameter repeated many times (`?symptom=x&symptom=x&...`) is read once per distinct value and
at most `MAX_VALUES` values per parameter are kept; a parameter that takes one value (the search
text, a year, the order: `single=`) keeps its first and, given several different ones, is named
in `repeated` (the filters report it: a 400 on the API); the search text keeps at most `MAX_Q_CHARS`
characters, and a word longer than `MAX_WORD_CHARS` (no real word is) is left out of the search
with a note saying so, rather than matching everything or nothing.
"""

from __future__ import annotations

from collections.abc import Collection
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import Any

from django.http import QueryDict

MAX_VALUES = 50
MAX_PARAMS = 100
MAX_Q_CHARS = 500
MAX_WORD_CHARS = 50
TEXT_PARAMS = ("q", "words")


@dataclass
class BoundedParams:
    """The parameters as the filters read them, and a note for each thing left out."""

    data: QueryDict
    notes: list[str] = field(default_factory=list)
    # A single-valued parameter given different values: every value, in order (the first kept).
    repeated: dict[str, list[str]] = field(default_factory=dict)


def _values(params: Mapping[str, Any], name: str) -> list[str]:
    getlist = getattr(params, "getlist", None)
    raw = getlist(name) if getlist else params[name]
    values = raw if isinstance(raw, list | tuple) else [raw]
    return [str(v) for v in values]


def _short(text: str) -> str:
    return f"{text[:30]}…" if len(text) > 30 else text


def bounded_search_text(text: str, notes: list[str]) -> str:
    """The search words that can be searched for: over-long words (and text) left out, noted."""
    words = text.split()
    kept = [word for word in words if len(word) <= MAX_WORD_CHARS]
    for word in words:
        if len(word) > MAX_WORD_CHARS:
            notes.append(
                f"The search word “{_short(word)}” is {len(word):,} characters long (at most "
                f"{MAX_WORD_CHARS}) and was left out of the search."
            )
    if len(kept) != len(words):
        text = " ".join(kept)
    if len(text) > MAX_Q_CHARS:
        notes.append(
            f"The search text is {len(text):,} characters long; only its first {MAX_Q_CHARS} "
            "were searched for."
        )
        text = text[:MAX_Q_CHARS]
    return text


def bound_params(params: Mapping[str, Any], *, single: Collection[str] = ()) -> BoundedParams:
    """A copy of `params` with repeated values read once, capped, and the search text bounded;
    the parameters named in `single` (and the texts) keep one value."""
    data = QueryDict(mutable=True)
    notes: list[str] = []
    repeated: dict[str, list[str]] = {}
    names = list(params)
    if len(names) > MAX_PARAMS:
        notes.append(f"Only the first {MAX_PARAMS} of {len(names)} parameters were read.")
        names = names[:MAX_PARAMS]
    for name in names:
        values = list(dict.fromkeys(_values(params, name)))
        if name in TEXT_PARAMS or name in single:
            if len(values) > 1 and name in single:
                repeated[name] = values
            values = values[:1]
            if name == "q" and values:
                values = [bounded_search_text(values[0], notes)]
        elif len(values) > MAX_VALUES:
            notes.append(
                f"The {name} parameter has {len(values):,} different values; only the first "
                f"{MAX_VALUES} were used."
            )
            values = values[:MAX_VALUES]
        data.setlist(name, values)
    data._mutable = False
    return BoundedParams(data, notes, repeated)


PAGE_PARAM = "page"


def repeated_problem(name: str, values: list[str]) -> str:
    """The sentence for a parameter that takes one value given several different ones."""
    distinct = list(dict.fromkeys(values))
    shown = ", ".join(f"“{v}”" for v in distinct)
    return (
        f"{len(distinct)} different values were given ({shown}) where one is read; give one"
        f" (parameter {name})."
    )


def page_number(raw: object) -> int | None:
    """A `page=` value as a page number: a whole number from 1, else None."""
    text = str(raw).strip()
    return int(text) if text.isascii() and text.isdigit() and int(text) >= 1 else None


def page_problem(values: list[str], last: int) -> str:
    """What is wrong with the `page=` values given for a list of `last` pages ("" if nothing):
    not a whole number from 1, several different ones, or past the last page."""
    distinct = list(dict.fromkeys(values))
    if len(distinct) > 1:
        return repeated_problem(PAGE_PARAM, distinct)
    if not distinct:
        return ""
    number = page_number(distinct[0])
    if number is None:
        return (
            f"“{distinct[0]}” is not a page number (parameter page): give a whole number"
            f" from 1 to {last}."
        )
    if number > last:
        pages = "1 page" if last == 1 else f"{last:,} pages"
        return f"There is no page {number:,} (parameter page): these cases fill {pages}."
    return ""
