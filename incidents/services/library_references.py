"""Checking the references of case entries: each facet value and shared entry a case names must
exist, in the database or in the files being loaded. An unknown value's message suggests the
nearest known ones (the suggestion engine's lexicon, built only once something is unknown)."""

from __future__ import annotations

from collections.abc import Iterable

from incidents import facets
from incidents.services.library_entries import CaseEntry
from incidents.services.library_entries import LibraryData
from incidents.services.library_entries import Problem
from incidents.services.value_hints import unknown_value_message
from incidents.services.value_hints import vocabulary_lexicon
from incidents.suggest.lexicon import Lexicon


class _Hints:
    """Messages for unknown values, the engine's lexicon built on the first one only."""

    def __init__(self, data: LibraryData) -> None:
        self.data = data
        self.lexicon: Lexicon | None = None

    def message(self, facet: str, slug: str) -> str:
        if self.lexicon is None:
            self.lexicon = vocabulary_lexicon(self.data.vocabulary)
        return unknown_value_message(facet, slug, self.lexicon)


def check_case_references(
    data: LibraryData, values: set[tuple[str, str]], shared: dict[str, set[str]]
) -> list[Problem]:
    """A problem for each facet value or shared entry a case of `data` names that is not in
    `values` or `shared` (what the database and the files hold, the entries by kind)."""
    problems: list[Problem] = []
    hints = _Hints(data)
    for case in data.cases:
        label = f"case '{case.slug}'"
        for facet, slugs in case.facets.items():
            for index, slug in enumerate(slugs):
                if (facet, slug) not in values:
                    problems.append(
                        Problem(
                            case.file,
                            label,
                            f"{facets.spec(facet).fixture_key}[{index}]",
                            hints.message(facet, slug),
                        )
                    )
        problems.extend(_unknown_breakdown_values(case, values, hints))
        for kind, refs in case.items.items():
            for index, ref in enumerate(refs):
                if ref.slug not in shared[kind]:
                    problems.append(
                        Problem(
                            case.file,
                            label,
                            f"{kind}[{index}].ref",
                            f"{ref.slug!r} is not a known entry of shared/{kind}*.yaml",
                        )
                    )

    return problems


def _unknown_breakdown_values(
    case: CaseEntry, values: set[tuple[str, str]], hints: _Hints
) -> Iterable[Problem]:
    """A problem for each facet value a breakdown row maps to that is not in the vocabulary."""
    for t_index, table in enumerate(case.breakdowns):
        for r_index, row in enumerate(table.rows):
            for facet, slugs in row.facets.items():
                key = facets.spec(facet).fixture_key
                for index, slug in enumerate(slugs):
                    if (facet, slug) not in values:
                        yield Problem(
                            case.file,
                            f"case '{case.slug}'",
                            f"breakdowns[{t_index}].rows[{r_index}].maps_to.{key}[{index}]",
                            hints.message(facet, slug),
                        )
