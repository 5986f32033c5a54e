"""Numbers as the library prints them: thousands separated, shares with "%", bounds in words.

Pure Python (pages, the API and tests use it): `amount(2123366.4)` is "2,123,366.4",
`bounded("82%", "more_than")` is "more than 82%".
"""

from __future__ import annotations

from math import floor
from math import log10

# A number the library computed (a derived cost) is printed to this many significant figures: its
# inputs ("up to 16K GPUs", "about 10%") hold no more, and the formula beside it keeps the
# exact arithmetic.
DERIVED_FIGURES = 3

BOUND_WORDS = {
    "more_than": "more than",
    "at_least": "at least",
    "about": "about",
    "at_most": "at most",
    "less_than": "less than",
}
BOUND_SIGNS = {"more_than": ">", "at_least": "≥", "about": "≈", "at_most": "≤", "less_than": "<"}


def amount(value: float, *, places: int = 2) -> str:
    """A number with thousands separators and at most `places` decimals, no trailing zeros."""
    if float(value).is_integer():
        return f"{value:,.0f}"
    text = f"{value:,.{places}f}".rstrip("0").rstrip(".")
    return text


def significant(value: float, figures: int = DERIVED_FIGURES) -> float:
    """``value`` rounded to ``figures`` significant figures: 2123366.4 -> 2120000.0."""
    if value == 0:
        return 0.0
    return round(value, figures - 1 - floor(log10(abs(value))))


def percent(value: float) -> str:
    """A share printed as the source prints it: 82 -> "82%", 17.26 -> "17.26%"."""
    return f"{amount(value)}%"


def bounded(text: str, bound: str) -> str:
    """A printed number with its bound in words: ("82%", "more_than") -> "more than 82%"."""
    return f"{BOUND_WORDS[bound]} {text}" if bound else text


def signed(text: str, bound: str) -> str:
    """A printed number with its bound as a sign, for tight places (chart labels): "> 82%"."""
    return f"{BOUND_SIGNS[bound]} {text}" if bound else text


def figure_text(value: float, bound: str, unit: str, *, derived: bool = False) -> str:
    """A cost in words with its unit: "more than 82%", "about 18 hours"; a derived one to
    :data:`DERIVED_FIGURES` significant figures: "less than 2,120,000 GPU-hours"."""
    if derived:
        value = significant(value)
    text = percent(value) if unit == "%" else f"{amount(value)} {unit}"
    return bounded(text, bound)
