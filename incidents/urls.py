from django.urls import path
from django.urls import register_converter

from incidents.views import browse
from incidents.views import cases
from incidents.views import checks
from incidents.views import cost
from incidents.views import feeds
from incidents.views import graph
from incidents.views import kubegap
from incidents.views import library
from incidents.views import submit
from incidents.views.methods import read_only

app_name = "incidents"
register_converter(browse.FacetPathConverter, "facetpath")

urlpatterns = [
    path("", read_only(library.case_list), name="case-list"),
    path("cases/<slug:slug>/", read_only(cases.case_detail), name="case-detail"),
    path("checks/", read_only(checks.check_list), name="check-list"),
    path("kubegap/", read_only(kubegap.get_kubegap), name="get-kubegap"),
    path("kubegap.pyz", read_only(kubegap.download), name="kubegap-pyz"),
    path("kubegap-rbac.yaml", read_only(kubegap.rbac), name="kubegap-rbac"),
    path("graph/", read_only(graph.graph_page), name="graph"),
    path("graph/data.json", read_only(graph.graph_data), name="graph-data"),
    path("graph/panel/", read_only(graph.graph_panel), name="graph-panel"),
    path("cost/", read_only(cost.cost), name="cost"),
    path("feeds/cases.atom", read_only(feeds.CaseFeed()), name="case-feed"),
    path("submit/", submit.submit, name="submit"),
    path("submit/added/<slug:slug>/", submit.submit_done, name="submit-done"),
    path("browse/", read_only(browse.browse_index), name="browse"),
    path("<facetpath:facet>/", read_only(browse.facet_tree), name="facet-tree"),
    path("<facetpath:facet>/<slug:slug>/", read_only(browse.facet_value), name="facet-value"),
]
