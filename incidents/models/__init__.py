"""The library's data model (see each module's docstring).

A Case is one public failure report or study. Facet values (the facets are listed in
incidents.facets) are controlled vocabularies shaped as trees; a case links to the values it was
tagged with (`direct`) and, implied by them, to all their ancestors, so that filtering by a parent
finds its descendants with one join. A case carries typed costs (`costs`) and failure breakdowns
(`breakdowns`): tables of failure categories by count and by cost, as its sources print them.
"""

from incidents.models.breakdowns import SHARE_COST_UNITS
from incidents.models.breakdowns import Breakdown
from incidents.models.breakdowns import BreakdownRow
from incidents.models.breakdowns import BreakdownRowValue
from incidents.models.breakdowns import CostUnit
from incidents.models.breakdowns import CountUnit
from incidents.models.costs import KIND_UNITS
from incidents.models.costs import Bound
from incidents.models.costs import Confirmation
from incidents.models.costs import CostFigure
from incidents.models.costs import CostKind
from incidents.models.library import CASE_ITEM_LINKS
from incidents.models.library import ActionItem
from incidents.models.library import Case
from incidents.models.library import CaseActionItem
from incidents.models.library import CaseFacetLink
from incidents.models.library import CaseItemLink
from incidents.models.library import CaseKind
from incidents.models.library import CaseLesson
from incidents.models.library import CasePart
from incidents.models.library import CaseRemediation
from incidents.models.library import DatePrecision
from incidents.models.library import FacetAlias
from incidents.models.library import FacetValue
from incidents.models.library import KeyFigure
from incidents.models.library import Lesson
from incidents.models.library import Remediation
from incidents.models.library import Setting
from incidents.models.library import SharedItem
from incidents.models.library import Source
from incidents.models.library import SourceKind
from incidents.models.library import case_period_label
from incidents.models.library import case_relation
from incidents.models.library import format_period_point
from incidents.models.library import item_model
from incidents.models.library_state import LibraryState
from incidents.models.search import SearchIndex
from incidents.models.search import SearchTerm

__all__ = [
    "CASE_ITEM_LINKS",
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
