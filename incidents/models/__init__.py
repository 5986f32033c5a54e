"""The library's data model (see each module's docstring).

A Case is one public failure report or study. Facet values (the facets are listed in
incidents.facets) are controlled vocabularies shaped as trees; a case links to the values it was
tagged with (`direct`) and, implied by them, to all their ancestors, so that filtering by a parent
finds its descendants with one join. A case carries typed costs (`costs`) and failure breakdowns
(`breakdowns`): tables of failure categories by count and by cost, as its sources print them.
"""

from incidents.models.breakdowns import (
    SHARE_COST_UNITS,
    Breakdown,
    BreakdownRow,
    BreakdownRowValue,
    CostUnit,
    CountUnit,
)
from incidents.models.costs import (
    GPU_TIME_KINDS,
    KIND_UNITS,
    Bound,
    Confirmation,
    CostFigure,
    CostKind,
)
from incidents.models.library import (
    CASE_ITEM_LINKS,
    ActionItem,
    Case,
    CaseActionItem,
    CaseFacetLink,
    CaseItemLink,
    CaseKind,
    CaseLesson,
    CasePart,
    CaseRemediation,
    DatePrecision,
    FacetAlias,
    FacetValue,
    KeyFigure,
    Lesson,
    Remediation,
    Setting,
    SharedItem,
    Source,
    SourceKind,
    case_period_label,
    case_relation,
    format_period_point,
    item_model,
)
from incidents.models.library_state import LibraryState
from incidents.models.search import SearchIndex, SearchTerm

__all__ = [
    "CASE_ITEM_LINKS",
    "GPU_TIME_KINDS",
    "KIND_UNITS",
    "SHARE_COST_UNITS",
    "ActionItem",
    "Bound",
    "Breakdown",
    "BreakdownRow",
    "BreakdownRowValue",
    "Case",
    "CaseActionItem",
    "CaseFacetLink",
    "CaseItemLink",
    "CaseKind",
    "CaseLesson",
    "CasePart",
    "CaseRemediation",
    "Confirmation",
    "CostFigure",
    "CostKind",
    "CostUnit",
    "CountUnit",
    "DatePrecision",
    "FacetAlias",
    "FacetValue",
    "KeyFigure",
    "Lesson",
    "LibraryState",
    "Remediation",
    "SearchIndex",
    "SearchTerm",
    "Setting",
    "SharedItem",
    "Source",
    "SourceKind",
    "case_period_label",
    "case_relation",
    "format_period_point",
    "item_model",
]
