"""What a page shows, made from what the selectors read: links, chips, rows, charts; no queries.

`query_state.QueryState` builds every filter URL and chip; templates link to filtered cases
only through the `{% filter_url %}` tag (incidents/templatetags/library.py), which uses it.
"""
