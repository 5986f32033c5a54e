from django.urls import path, register_converter

from incidents.views import browse, cases, checks, cost, feeds, graph, kubegap, library, submit

app_name = "incidents"
register_converter(browse.FacetPathConverter, "facetpath")

urlpatterns = [
    path("", library.case_list, name="case-list"),
    path("cases/<slug:slug>/", cases.case_detail, name="case-detail"),
    path("checks/", checks.check_list, name="check-list"),
    path("kubegap/", kubegap.get_kubegap, name="get-kubegap"),
    path("kubegap.pyz", kubegap.download, name="kubegap-pyz"),
    path("kubegap-rbac.yaml", kubegap.rbac, name="kubegap-rbac"),
    path("graph/", graph.graph_page, name="graph"),
    path("graph/data.json", graph.graph_data, name="graph-data"),
    path("graph/panel/", graph.graph_panel, name="graph-panel"),
    path("cost/", cost.cost, name="cost"),
    path("feeds/cases.atom", feeds.CaseFeed(), name="case-feed"),
    path("submit/", submit.submit, name="submit"),
    path("submit/added/<slug:slug>/", submit.submit_done, name="submit-done"),
    path("browse/", browse.browse_index, name="browse"),
    path("<facetpath:facet>/", browse.facet_tree, name="facet-tree"),
    path("<facetpath:facet>/<slug:slug>/", browse.facet_value, name="facet-value"),
]
