"""`assert_max_queries(n)`: the one query-count check of the suite, with an absolute pin.

    with assert_max_queries(9):
        client.get("/")

Fails when the block runs more than `n` queries, listing every query it ran, or none at all (a
count of zero usually means the queries were not captured, which would prove nothing). Pins are
absolute: a test first adds enough cases that one query per case would break the pin, so a lost
`prefetch_related` fails the test instead of growing both sides of a comparison.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection
from django.test.utils import CaptureQueriesContext


@contextmanager
def assert_max_queries(limit: int) -> Iterator[CaptureQueriesContext]:
    """Run the block and fail if it ran more than `limit` queries (or none)."""
    # Django keeps at most 9,000 queries in the log; once full it would capture nothing.
    connection.queries_log.clear()
    with CaptureQueriesContext(connection) as captured:
        yield captured
    count = len(captured.captured_queries)
    listing = "\n".join(f"  {q['sql']}" for q in captured.captured_queries)
    assert count, "no query was captured: the pin would prove nothing"
    assert count <= limit, f"{count} queries, at most {limit} allowed:\n{listing}"
