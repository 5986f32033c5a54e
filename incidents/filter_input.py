"""How the filters read what they are given, beyond a form field's own checks: a year is a whole
year, a year range must not end before it starts, and the FilterSet's own problems are sentences
naming their parameter (`phrased`), which `selectors.parameters` passes on as they are."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import django_filters
from django import forms


def phrased(name: str, text: str) -> str:
    """A problem with parameter `name` as a sentence naming it, as the FilterSet reports its own
    (a repeated value, a year range); `selectors.parameters` passes such sentences on as they are."""
    return f"{text} (parameter {name})."


def is_phrased(name: str, message: str) -> bool:
    """Whether an error of parameter `name` is one of the FilterSet's own sentences (`phrased`)."""
    return message.endswith(f"(parameter {name}).")


def quoted(values: Iterable[str]) -> str:
    """“a”, “b”."""
    return ", ".join(f"“{v}”" for v in values)


class YearFilter(django_filters.NumberFilter):
    """A year: a whole number (`2023.5` is refused, not read as 2023)."""

    field_class = forms.IntegerField


class CaseFilterForm(forms.Form):
    """The filters' form: a year range that ends before it starts is refused, naming both ends."""

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        low, high = cleaned.get("year_min"), cleaned.get("year_max")
        if low is not None and high is not None and low > high:
            empty = "no case is in that range"
            self.add_error(
                "year_min", phrased("year_min", f"“{low}” is after year_max “{high}”: {empty}")
            )
            self.add_error(
                "year_max", phrased("year_max", f"“{high}” is before year_min “{low}”: {empty}")
            )
        return cleaned
