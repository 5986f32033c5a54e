"""The facet registry: the one table of the dimensions a reader filters cases by.

Every module, template and the API read a facet's names from here: the value stored in
`FacetValue.facet`, the query parameters (`root_cause=` and `not_root_cause=`), the key of a case
file (`root_causes:`), the URL segment of its browse pages (`/root-causes/`), its labels, whether it
says something about the failure itself (organisations do not: they filter, they do not make two
failures alike), and whether its values form a tree.

Adding a facet is a row here, a migration (the choices of `FacetValue.facet` change) and its
fixtures (`fixtures/vocabulary/<facet>.yaml`, and the cases tagged with it); tests/test_registry.py
fails when a page, a filter or an API field does not follow.

Pure Python: no Django import, so models, services, templates and kubegap's exporter can all read it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FacetSpec:
    """One facet and every name it goes by."""

    facet: str  # stored in FacetValue.facet and used as the key of per-facet data
    param: str  # the query parameter that includes a value; `not_<param>` excludes one
    fixture_key: str  # the key of a case file listing the case's values
    segment: str  # the URL segment of its browse pages: /<segment>/ and /<segment>/<slug>/
    label: str  # singular, as a heading: "Root cause"
    plural: str  # "Root causes"
    failure: bool  # says what failed, how or why (similar cases, the graph, a case's card)
    tree: bool  # its values may have a parent (a broad value matches its narrower ones)

    @property
    def exclude_param(self) -> str:
        """The query parameter that excludes a value of this facet."""
        return f"not_{self.param}"

    @property
    def params(self) -> tuple[str, str]:
        """Both query parameters of the facet: include, then exclude."""
        return (self.param, self.exclude_param)


# A data table: one row per facet, in the order pages, the API and forms show them.
# fmt: off
FACETS: tuple[FacetSpec, ...] = (
    FacetSpec("root_cause", "root_cause", "root_causes", "root-causes",
              "Root cause", "Root causes", failure=True, tree=True),
    FacetSpec("component", "component", "components", "components",
              "Component", "Components", failure=True, tree=True),
    FacetSpec("symptom", "symptom", "symptoms", "symptoms",
              "Symptom", "Symptoms", failure=True, tree=True),
    FacetSpec("contributing_factor", "contributing_factor", "contributing_factors",
              "contributing-factors", "Contributing factor", "Contributing factors",
              failure=True, tree=True),
    FacetSpec("organisation", "organisation", "organisations", "organisations",
              "Organisation", "Organisations", failure=False, tree=False),
)
# fmt: on

BY_FACET: dict[str, FacetSpec] = {spec.facet: spec for spec in FACETS}
BY_PARAM: dict[str, FacetSpec] = {name: spec for spec in FACETS for name in spec.params}
BY_SEGMENT: dict[str, FacetSpec] = {spec.segment: spec for spec in FACETS}
FAILURE_FACETS: tuple[FacetSpec, ...] = tuple(spec for spec in FACETS if spec.failure)
CHOICES: list[tuple[str, str]] = [(spec.facet, spec.label) for spec in FACETS]

# The facet whose values name who reported a case: every case file must name one, and kubegap
# cites a case with them.
ORGANISATION = BY_FACET["organisation"]
# The facet kubegap's checks are grouped by on a case page ("this case involves GPU hardware").
COMPONENT = BY_FACET["component"]


def spec(facet: str) -> FacetSpec:
    """The facet's row; KeyError names the facet when there is none."""
    try:
        return BY_FACET[facet]
    except KeyError:
        raise KeyError(f"{facet!r} is not a facet (one of {', '.join(BY_FACET)})") from None


def spec_of_param(name: str) -> FacetSpec | None:
    """The facet of a query parameter (`symptom` or `not_symptom`), or None for another one."""
    return BY_PARAM.get(name)
