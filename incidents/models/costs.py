"""What a failure cost, typed: each figure has a kind, and kinds are never added together.

The seed's lesson is that count is not cost, which only holds if costs are comparable: the hours a
training job lost are not the minutes a public service was down, and a share of GPU time is not a
number of GPU-hours. So every figure says which of five kinds it is, how exact it is (a bound),
what it covers, and, when the library computed it, the formula.
"""

from __future__ import annotations

from django.db import models

from incidents.amounts import BOUND_WORDS
from incidents.models.library import Case
from incidents.models.library import CasePart


class CostKind(models.TextChoices):
    """The kinds of cost the library records; a chart or table shows one kind at a time."""

    GPU_HOURS_LOST = "gpu_hours_lost", "GPU-hours lost"
    GPU_TIME_SHARE = "gpu_time_share", "Share of GPU time lost"
    TRAINING_DOWNTIME_HOURS = "training_downtime_hours", "Training-job downtime"
    OUTAGE_MINUTES = "outage_minutes", "User-facing outage"
    INTERRUPTIONS = "interruptions", "Interruptions"


# The unit each kind is given in; a figure's value is always in its kind's unit.
KIND_UNITS: dict[str, str] = {
    CostKind.GPU_HOURS_LOST: "GPU-hours",
    CostKind.GPU_TIME_SHARE: "%",
    CostKind.TRAINING_DOWNTIME_HOURS: "hours",
    CostKind.OUTAGE_MINUTES: "minutes",
    CostKind.INTERRUPTIONS: "interruptions",
}
# What a figure states besides its amount (kind, value, bound); with it, every field a case file
# sets on a CostFigure, in the order the API gives them (the loader and case-file keys read these).
COST_DETAIL_FIELDS: tuple[str, ...] = (
    "of",
    "scope",
    "per_occurrence",
    "derived",
    "formula",
    "locator",
    "note",
    "source_url",
    "status",
)
COST_FIELDS: tuple[str, ...] = ("kind", "value", "bound", *COST_DETAIL_FIELDS)


class Bound(models.TextChoices):
    """How a source states a number: "over 82%", "about 18 hours", "up to 12 hours"."""

    MORE_THAN = "more_than"
    AT_LEAST = "at_least"
    ABOUT = "about"
    AT_MOST = "at_most"
    LESS_THAN = "less_than"

    @property
    def label(self) -> str:
        """The words figures print before a number ("more than"), not Django's "More Than"."""
        return BOUND_WORDS[self.value]


class Confirmation(models.TextChoices):
    """Where the library read a number: in the source (or its data), or only in a transcription."""

    CONFIRMED = "confirmed", "Read in the source"
    SECONDARY = "secondary", "Secondary transcription only"


class CostFigure(CasePart):
    """One cost a source gives for a case, with its kind, bound, scope and derivation."""

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="costs")
    kind = models.CharField(max_length=32, choices=CostKind.choices)
    value = models.FloatField()
    bound = models.CharField(max_length=16, choices=Bound.choices, blank=True)
    of = models.CharField(
        max_length=300, blank=True, help_text="For a share: the whole it is a share of."
    )
    scope = models.CharField(max_length=300, blank=True, help_text="What the figure covers.")
    per_occurrence = models.BooleanField(
        default=False, help_text="A cost per event (per restart, per start), not the case's total."
    )
    derived = models.BooleanField(default=False, help_text="Computed by the library, not stated.")
    formula = models.CharField(max_length=300, blank=True)
    locator = models.CharField(max_length=300, help_text="Where in the source: section, table.")
    note = models.CharField(max_length=500, blank=True)
    source_url = models.URLField(max_length=500)
    status = models.CharField(
        max_length=16, choices=Confirmation.choices, default=Confirmation.CONFIRMED
    )

    def __str__(self) -> str:
        bound = f"{self.get_bound_display()} " if self.bound else ""
        return f"{self.get_kind_display()}: {bound}{self.value:g} {self.unit}"

    @property
    def unit(self) -> str:
        return KIND_UNITS[self.kind]
