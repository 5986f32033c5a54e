"""Reads for the graph views, in a constant number of queries whatever the library's size.

Ids first: the filtered cases and everything they link to (`CaseLinks`), read as id pairs; the
view (overview or focus) is computed from them by incidents.graph; then labels are read only
for the nodes the view lists. Only the registry's failure facets are drawn (organisations
filter the graph, they do not make two failures alike). Links to pages are the presenter's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field

from django.db.models import Q

from incidents.facets import FAILURE_FACETS
from incidents.graph import focus as focus_views
from incidents.graph.kinds import CASE
from incidents.graph.kinds import LESSON
from incidents.graph.kinds import REMEDIATION
from incidents.graph.kinds import VALUE_KINDS
from incidents.graph.kinds import NodeKey
from incidents.graph.kinds import NodeRef
from incidents.graph.links import CaseLinks
from incidents.graph.links import ValueTree
from incidents.graph.overview import DEFAULT_BUDGET
from incidents.graph.overview import DEFAULT_KINDS
from incidents.graph.overview import OverviewTables
from incidents.graph.overview import overview
from incidents.graph.picture import Picture
from incidents.models import Case
from incidents.models import CaseFacetLink
from incidents.models import CaseLesson
from incidents.models import CaseRemediation
from incidents.models import Lesson
from incidents.models import Remediation
from incidents.selectors.cases import CaseQuery
from incidents.selectors.cases import Params
from incidents.selectors.cases import case_queryset
from incidents.selectors.facet_counts import FacetGroup
from incidents.selectors.facet_counts import facet_groups
from incidents.selectors.vocabulary import Vocabulary

# SQLite takes 32,766 parameters in a query, PostgreSQL 65,535: a list of case ids up to this.
MAX_ID_PARAMETERS = 20_000
# How many of a focus's cases its table names (the rest are counted).
LISTED_CASES = 30
SHARED_MODELS: dict[str, type[Remediation] | type[Lesson]] = {
    REMEDIATION: Remediation,
    LESSON: Lesson,
}
LINK_MODELS: dict[str, type[CaseRemediation] | type[CaseLesson]] = {
    REMEDIATION: CaseRemediation,
    LESSON: CaseLesson,
}


@dataclass(frozen=True)
class GraphOptions:
    """What a graph address asks for besides the filters."""

    focus: NodeRef | None = None
    leave_out: NodeRef | None = None  # `from=case:<slug>`: the case a focus was reached from
    expand: tuple[NodeRef, ...] = ()
    kinds: tuple[str, ...] = DEFAULT_KINDS
    budget: int = DEFAULT_BUDGET


@dataclass
class GraphView:
    """A view of the filtered cases: the picture, its tables (overview only), and the slugs
    and labels of every node it lists."""

    query: CaseQuery
    options: GraphOptions
    picture: Picture
    tables: OverviewTables | None
    slugs: dict[NodeKey, str] = field(default_factory=dict)
    labels: dict[NodeKey, str] = field(default_factory=dict)
    focus_case_ids: list[int] = field(default_factory=list)  # the cases a focus is about
    option_errors: dict[str, list[str]] = field(default_factory=dict)
    leave_out: NodeKey | None = None
    expanded: list[NodeKey] = field(default_factory=list)
    facets: list[FacetGroup] = field(default_factory=list)  # "what if" counts, when asked for

    @property
    def errors(self) -> dict[str, list[str]]:
        return {**self.query.errors, **self.option_errors}

    @property
    def vocabulary(self) -> Vocabulary:
        return self.query.vocabulary

    def listed_cases(self) -> list[NodeKey]:
        return [(CASE, c) for c in self.focus_case_ids[:LISTED_CASES]]


def read_links(query: CaseQuery, *, also: int | None = None) -> CaseLinks:
    """The filtered cases (in the library's order) and what each links to, as ids (four
    queries); `also` adds one case the filters may leave out (a focused case)."""
    case_ids = list(query.queryset.values_list("id", flat=True))
    if also is not None and also not in case_ids:
        case_ids.append(also)
    # The filters as a subquery of each read (cheap joins); a text search, dear to run again,
    # is read once and its ids passed on (up to the parameters both databases take in a query).
    searched = bool(query.filterset.cleaned_data.get("q"))
    if searched and len(case_ids) <= MAX_ID_PARAMETERS:
        selected = Q(case_id__in=case_ids)
    else:
        selected = Q(case_id__in=query.queryset.order_by().values("id"))
        if also is not None:
            selected |= Q(case_id=also)
    vocabulary = query.vocabulary
    # Every link is read and organisations are dropped here: cheaper than a list of value ids
    # in the query (one link in five or so is an organisation's).
    facet_of = {v.id: v.facet for v in vocabulary.values.values() if v.facet in VALUE_KINDS}
    links = CaseLinks(case_ids)
    rows = (
        CaseFacetLink.objects.filter(selected)
        .order_by()
        .values_list("case_id", "value_id", "direct")
    )
    links.add_rows(
        (case_id, (facet_of[value_id], value_id), direct)
        for case_id, value_id, direct in rows
        if value_id in facet_of
    )
    for kind, model in LINK_MODELS.items():
        # No order: the links' default one joins the cases table to sort by the case's date.
        item_rows = model.objects.filter(selected).order_by().values_list("case_id", "item_id")
        links.add_rows((case_id, (kind, item_id), True) for case_id, item_id in item_rows)
    return links


def value_tree(vocabulary: Vocabulary) -> ValueTree:
    return ValueTree({v.id: v.parent_id for v in vocabulary.values.values()})


def _resolve(
    ref: NodeRef, vocabulary: Vocabulary, errors: dict[str, list[str]], param: str
) -> NodeKey | None:
    """The node a reference names (one query for a case, remediation or lesson), or None with
    an error naming what is missing."""
    if ref.kind in VALUE_KINDS:
        value = vocabulary.get(ref.kind, ref.slug)
        found: int | None = value.id if value else None
    elif ref.kind == CASE:
        found = Case.objects.filter(slug=ref.slug).values_list("id", flat=True).first()
    else:
        model = SHARED_MODELS[ref.kind]
        found = model.objects.filter(slug=ref.slug).values_list("id", flat=True).first()
    if found is None:
        errors.setdefault(param, []).append(
            f"There is no {ref.kind.replace('_', ' ')} {ref.slug!r}."
        )
        return None
    return (ref.kind, found)


def graph_view(
    *, params: Params, options: GraphOptions | None = None, with_facets: bool = False
) -> GraphView:
    """The overview of the filtered cases, or the focus the options name (the overview, with an
    error, when that node does not exist); `with_facets` adds the library's "what if" counts
    of every facet value (one query per facet), for the page's filter controls."""
    options = options or GraphOptions()
    query = case_queryset(params=params)
    vocabulary = query.vocabulary
    errors: dict[str, list[str]] = {}
    focus = _resolve(options.focus, vocabulary, errors, "focus") if options.focus else None
    leave_out = None
    if options.leave_out is not None:
        if options.leave_out.kind != CASE:
            errors.setdefault("from", []).append("from must name a case (case:<slug>).")
        else:
            leave_out = _resolve(options.leave_out, vocabulary, errors, "from")
    expanded = []
    for ref in options.expand:
        if ref.kind not in VALUE_KINDS:
            errors.setdefault("expand", []).append(
                f"{ref.id}: only a cause, component, symptom or contributing factor expands."
            )
        elif (key := _resolve(ref, vocabulary, errors, "expand")) is not None:
            expanded.append(key)
    links = read_links(query, also=focus[1] if focus and focus[0] == CASE else None)
    tree = value_tree(vocabulary)
    view = GraphView(query, options, Picture([], [], 0), None, option_errors=errors)
    view.leave_out = leave_out
    view.expanded = expanded
    skip = leave_out[1] if leave_out else None
    if focus is None:
        roots = {
            spec.facet: [v.id for v in vocabulary.roots(spec.facet)] for spec in FAILURE_FACETS
        }
        shared = {kind: _linked_ids(links, kind) for kind in LINK_MODELS}
        view.picture, view.tables = overview(
            links,
            tree,
            roots_by_kind=roots,
            shared_items=shared,
            kinds=options.kinds,
            expand={key[1] for key in expanded},
            budget=options.budget,
        )
    elif focus[0] == CASE:
        view.picture = focus_views.case_focus(links, focus[1])
    elif focus[0] in VALUE_KINDS:
        view.picture = focus_views.value_focus(links, tree, focus, leave_out=skip)
        view.focus_case_ids = focus_views.focus_cases(links, focus, leave_out=skip)
    else:
        view.picture = focus_views.shared_focus(links, focus, leave_out=skip)
        view.focus_case_ids = focus_views.focus_cases(links, focus, leave_out=skip)
    if with_facets:
        view.facets = facet_groups(query.filterset)
    read_labels(
        view,
        [
            *view.picture.keys(),
            *_table_keys(view),
            *view.listed_cases(),
            *([leave_out] if leave_out else []),
        ],
    )
    return view


def _linked_ids(links: CaseLinks, kind: str) -> list[int]:
    return sorted({key[1] for items in links.items.values() for key in items if key[0] == kind})


def _table_keys(view: GraphView) -> list[NodeKey]:
    tables = view.tables
    if tables is None:
        return []
    return [*tables.matrix_rows, *tables.matrix_columns, *(k for k, _ in tables.lessons)]


def read_labels(view: GraphView, keys: Iterable[NodeKey]) -> None:
    """Slugs and labels of the listed nodes: values from the vocabulary, and one query per
    other kind that is listed (cases, remediations, lessons)."""
    wanted: dict[str, set[int]] = {}
    for kind, key_id in keys:
        wanted.setdefault(kind, set()).add(key_id)
    vocabulary = view.vocabulary
    for kind, ids in wanted.items():
        if kind in VALUE_KINDS:
            for value_id in ids:
                value = vocabulary.values[value_id]
                view.slugs[(kind, value_id)] = value.slug
                view.labels[(kind, value_id)] = value.name
            continue
        rows: Iterable[tuple[int, str, str]]
        if kind == CASE:
            rows = Case.objects.filter(id__in=ids).values_list("id", "slug", "title")
        else:
            rows = SHARED_MODELS[kind].objects.filter(id__in=ids).values_list("id", "slug", "text")
        for row_id, slug, text in rows:
            view.slugs[(kind, row_id)] = slug
            view.labels[(kind, row_id)] = text
