"""Reads: every query the pages and the API run, and no URL.

`cases.case_queryset(params=...)` is the one filter path (the FilterSet applied to a request's
parameters); the other modules read what one page or one part of a page needs, each in a fixed
number of queries. Relations that a presenter will read are prefetched here and read through
`prefetch.prefetched`, which raises instead of reading empty.
"""
