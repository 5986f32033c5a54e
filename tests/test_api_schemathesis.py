"""The API against its own OpenAPI schema, live: schemathesis generates requests for every
operation from the schema the running server serves, and fails on any 5xx or any answer the
schema does not describe (status code, content type, headers, body). Bounded: MAX_EXAMPLES per
operation, derandomized, so a run takes about the same time each time. CI runs it on PostgreSQL
(DATABASE_URL=postgres://...); it runs on SQLite too.

The operations are driven one by one with Hypothesis (`operation.as_strategy()`), as
schemathesis's pytest plugin would, which does not load under pytest 9. Both are imported in the
test, not when every pytest-xdist worker collects this module (about 0.3 s of CPU).
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from tests.cache import cache_dir

MAX_EXAMPLES = 10
# Hypothesis keeps derived tables (which characters a codec encodes, the constants of the modules
# it reads) in its storage directory, `.hypothesis/` of each checkout unless told otherwise:
# building them again in every fresh clone cost 1.5 s of CPU. Kept in the user's cache instead
# (nothing else is stored there: the example database is off below).

pytestmark = pytest.mark.django_db(transaction=True)


def _year_range_in_order(case: Any) -> bool:
    query = case.query or {}
    low, high = query.get("year_min"), query.get("year_max")
    return low is None or high is None or int(low) <= int(high)


def test_every_operation_keeps_to_the_schema(
    live_server: Any, small_library: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(
        "HYPOTHESIS_STORAGE_DIRECTORY",
        os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY") or str(cache_dir() / "hypothesis"),
    )
    import schemathesis
    from hypothesis import HealthCheck
    from hypothesis import given
    from hypothesis import settings

    schema = schemathesis.openapi.from_url(f"{live_server.url}/api/schema/?format=json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 9  # every endpoint is in the schema
    failures: list[str] = []
    for operation in operations:
        # A year range that ends before it starts is a 400 naming both ends (described on the
        # parameters): a rule across two parameters, which a schema cannot state, so such
        # requests are left out of the schema-valid ones.
        @given(case=operation.as_strategy().filter(_year_range_in_order))
        @settings(
            max_examples=MAX_EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def run(case: Any) -> None:
            case.call_and_validate()

        try:
            run()
        except Exception as error:  # every operation is tried; all failures are reported
            failures.append(f"{operation.label}: {error}")
    assert not failures, "\n\n".join(failures)
