"""The HTML pages: each view parses its request, calls selectors, hands their results to a
presenter and renders one template (or its htmx partial). No queries and no URL building here.
"""
