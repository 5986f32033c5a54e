"""Numbers as the library prints them: thousands separated, shares with "%", bounds in words.

Pure Python (pages, the API and tests use it): `amount(2123366.4)` is "2,123,366.4",
`bounded("82%", "more_than")` is "more than 82%".
"""

from __future__ import annotations

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


def percent(value: float) -> str:
    """A share printed as the source prints it: 82 -> "82%", 17.26 -> "17.26%"."""
    return f"{amount(value)}%"


def bounded(text: str, bound: str) -> str:
    """A printed number with its bound in words: ("82%", "more_than") -> "more than 82%"."""
    return f"{BOUND_WORDS[bound]} {text}" if bound else text


def signed(text: str, bound: str) -> str:
    """A printed number with its bound as a sign, for tight places (chart labels): "> 82%"."""
    return f"{BOUND_SIGNS[bound]} {text}" if bound else text


def figure_text(value: float, bound: str, unit: str) -> str:
    """A cost in words with its unit: "less than 2,123,366.4 GPU-hours", "more than 82%"."""
    text = percent(value) if unit == "%" else f"{amount(value)} {unit}"
    return bounded(text, bound)
