"""A bare "throttled" or "throttling" names CPU throttling only beside words of the CPU and its
quota ("CPU", "cgroup", "the kernel", which the value's description uses); said of requests and
APIs ("S3 throttled our requests", "client-side throttling", "429s") it names no CPU, and the
vocabulary's words for a rate limit name Quota or limit exhaustion."""

from __future__ import annotations

import pytest

from tests.suggesting import found

pytestmark = pytest.mark.django_db

CPU = "symptom:cpu-throttling"
LIMIT = "root_cause:quota-exhaustion"


@pytest.mark.parametrize(
    "text",
    [
        "pods throttled even though CPU usage was low",
        "the container was throttled by its cgroup quota",
        "latency went up because of CPU throttling on the nodes",
        "the batch workers were throttled and the CPU graphs looked idle",
        "the service kept getting throttled, the kernel paused it",
    ],
)
def test_throttling_beside_the_cpu_names_cpu_throttling(seeded_library: None, text: str) -> None:
    values = found(text)
    assert CPU in values
    assert LIMIT not in values


@pytest.mark.parametrize(
    ("text", "limit"),
    [
        ("S3 throttled our requests during the checkpoint upload", False),
        ("client-side throttling slowed every kubelet call to the api server", True),
        ("we got 429s, throttled by the API for an hour", True),
        ("the exporter kept getting rate limited by the cloud API", True),
    ],
)
def test_throttling_of_requests_names_no_cpu(seeded_library: None, text: str, limit: bool) -> None:
    values = found(text)
    assert CPU not in values
    assert (LIMIT in values) == limit


def test_lowering_a_rate_limit_names_no_limit_reached(seeded_library: None) -> None:
    assert LIMIT not in found("we lowered the rate limits for free-tier traffic")
