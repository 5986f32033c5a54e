"""The loader lists every problem of a load in one pass, and helps with an unknown value: the
alias it matched, or a "did you mean" from the suggestion engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from incidents.models import Case
from incidents.services import LibraryError
from incidents.services import load_library

pytestmark = pytest.mark.django_db


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def _problems(library: Path) -> list[str]:
    with pytest.raises(LibraryError) as caught:
        load_library([library], root=library)
    return [str(p) for p in caught.value.problems]


def test_format_problems_and_unknown_values_come_in_one_pass(library_copy: Path) -> None:
    _replace(library_copy / "cases/flaky-network.yaml", "summary:", "sumary:")
    _replace(
        library_copy / "cases/leaky-loader.yaml",
        "components: [training-data-loader]",
        "components: [dataloader]",
    )
    problems = _problems(library_copy)
    assert problems == [
        "cases/flaky-network.yaml: case 'flaky-network': field 'sumary': is not a known field",
        "cases/flaky-network.yaml: case 'flaky-network': field 'summary': is required",
        "cases/leaky-loader.yaml: case 'leaky-loader': field 'components[0]': 'dataloader' is "
        "not a component slug: it is an alias of value 'training-data-loader' (Training data "
        "loader); write 'training-data-loader'",
    ]
    assert not Case.objects.exists()


def test_an_unknown_value_gets_a_did_you_mean_from_the_engine(library_copy: Path) -> None:
    _replace(
        library_copy / "cases/leaky-loader.yaml",
        "symptoms: [nccl-timeout]",
        "symptoms: [nccl-timout, collective-timeouts, warp-drive]",
    )
    assert _problems(library_copy) == [
        "cases/leaky-loader.yaml: case 'leaky-loader': field 'symptoms[0]': 'nccl-timout' is "
        "not a known symptom value; did you mean 'nccl-timeout' (NCCL timeout, through its "
        "name 'NCCL timeout')?",
        "cases/leaky-loader.yaml: case 'leaky-loader': field 'symptoms[1]': "
        "'collective-timeouts' is not a symptom slug: it is an alias of value 'nccl-timeout' "
        "(NCCL timeout); write 'nccl-timeout'",
        "cases/leaky-loader.yaml: case 'leaky-loader': field 'symptoms[2]': 'warp-drive' is "
        "not a known symptom value",
    ]


def test_a_value_of_another_facet_is_named(library_copy: Path) -> None:
    _replace(
        library_copy / "cases/leaky-loader.yaml",
        "components: [training-data-loader]",
        "components: [nccl-timeout]",
    )
    assert _problems(library_copy) == [
        "cases/leaky-loader.yaml: case 'leaky-loader': field 'components[0]': 'nccl-timeout' "
        "is not a component slug: it is the name of symptom value 'nccl-timeout' (NCCL timeout)",
    ]


def test_the_real_library_names_scheduler_as_an_alias(
    library_copy: Path, seeded_library: None
) -> None:
    """The issue's example: "scheduler" is an alias of job-scheduler, not an unknown word."""
    _replace(
        library_copy / "cases/leaky-loader.yaml",
        "components: [training-data-loader]",
        "components: [scheduler]",
    )
    [problem] = [p for p in _problems(library_copy) if "components[0]" in p]
    assert problem.endswith(
        "'scheduler' is not a component slug: it is an alias of value 'job-scheduler' "
        "(Job scheduler); write 'job-scheduler'"
    )
