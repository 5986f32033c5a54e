"""One spelling per value: the canonical key behind the vocabulary's uniqueness and the search."""

import pytest

from incidents.text import spelling_key


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("GPU", "gpu"),
        ("GPUs", "GPU"),
        ("software bugs", "Software bug"),
        ("NCCL timeouts", "NCCL timeout"),
        ("Data-loader memory leaks", "data loader memory leak"),
        ("batteries", "battery"),
        ("NICs", "NIC"),
    ],
)
def test_same_spelling(a: str, b: str) -> None:
    assert spelling_key(a) == spelling_key(b)


@pytest.mark.parametrize(("a", "b"), [("bus", "bu"), ("status", "statu"), ("GPU", "CPU")])
def test_different_spelling(a: str, b: str) -> None:
    assert spelling_key(a) != spelling_key(b)
