"""Helpers of the suggestion engine's wording tests: what a text names, and a made-up value."""

from __future__ import annotations

from incidents.models import FacetValue
from incidents.suggest import suggest_filters


def found(text: str) -> set[str]:
    """The values suggested for `text`, as facet:slug."""
    return {f"{s.facet}:{s.value.slug}" for s in suggest_filters(text)}


def symptom_value(slug: str, **fields: object) -> FacetValue:
    """A symptom value made (or updated) for a test, named after its slug."""
    value, _created = FacetValue.objects.update_or_create(
        facet="symptom", slug=slug, defaults={"name": slug.replace("-", " "), **fields}
    )
    return value
