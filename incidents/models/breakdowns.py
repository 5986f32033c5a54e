"""Failure breakdowns: a study's table of failure categories, by count and by cost.

Many sources are studies that say, per category of failure, how many failures there were and how
much GPU time (or job time, or downtime) they took. A case carries such tables as they are printed:
each row keeps the source's own label, the facet values it maps to, and whichever of count, count
share, cost and cost share the source gives, with a bound where the source gives one.
"""

from __future__ import annotations

from django.db import models

from incidents.models.costs import Bound
from incidents.models.costs import Confirmation
from incidents.models.library import Case
from incidents.models.library import CasePart
from incidents.models.library import FacetValue


class CountUnit(models.TextChoices):
    """What one count of a breakdown is."""

    FAILED_JOBS = "failed_jobs", "failed jobs"
    GPU_JOBS = "gpu_jobs", "GPU jobs"
    INTERRUPTIONS = "interruptions", "interruptions"
    INCIDENTS = "incidents", "incidents"


class CostUnit(models.TextChoices):
    """What a breakdown's costs are measured in."""

    GPU_HOURS = "gpu_hours", "GPU-hours"
    GPU_TIME_SHARE = "gpu_time_share", "share of GPU time"
    NODE_HOURS = "node_hours", "node-hours"
    JOB_HOURS = "job_hours", "job time (hours)"
    JOB_TIME_SHARE = "job_time_share", "share of job time"


# Units whose costs are shares only: a row gives `cost_share`, never an absolute `cost`.
SHARE_COST_UNITS: tuple[str, ...] = (CostUnit.GPU_TIME_SHARE, CostUnit.JOB_TIME_SHARE)

# The fields a case file sets on a Breakdown and on a BreakdownRow (not their owner, position or
# facet values), in the order the API gives them; the loader and the case-file keys read these.
BREAKDOWN_FIELDS: tuple[str, ...] = (
    "slug",
    "title",
    "counted",
    "count_of",
    "count_total",
    "cost_unit",
    "cost_of",
    "cost_total",
    "source_url",
    "locator",
    "status",
    "derived",
    "method",
    "notes",
)
ROW_LABEL_FIELDS: tuple[str, ...] = ("label", "group")
ROW_FIGURE_FIELDS: tuple[str, ...] = (
    "count",
    "count_share",
    "count_bound",
    "cost",
    "cost_share",
    "cost_bound",
    "derived",
)
ROW_FIELDS: tuple[str, ...] = (*ROW_LABEL_FIELDS, *ROW_FIGURE_FIELDS)


class Breakdown(CasePart):
    """One table of a source: failure categories with their counts and costs."""

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="breakdowns")
    slug = models.SlugField(max_length=100, help_text="Names the table within its case.")
    title = models.CharField(max_length=250)
    counted = models.CharField(
        max_length=32, choices=CountUnit.choices, blank=True, help_text="Blank: no counts."
    )
    count_of = models.CharField(
        max_length=300, blank=True, help_text="What the count shares are of."
    )
    count_total = models.FloatField(null=True, blank=True)
    cost_unit = models.CharField(
        max_length=32, choices=CostUnit.choices, blank=True, help_text="Blank: no costs."
    )
    cost_of = models.CharField(max_length=300, blank=True, help_text="What the cost shares are of.")
    cost_total = models.FloatField(null=True, blank=True)
    source_url = models.URLField(max_length=500)
    locator = models.CharField(max_length=300, help_text="The table or figure in the source.")
    status = models.CharField(
        max_length=16, choices=Confirmation.choices, default=Confirmation.CONFIRMED
    )
    derived = models.BooleanField(default=False, help_text="Some numbers computed by the library.")
    method = models.TextField(blank=True, help_text="How the derived numbers were computed.")
    notes = models.TextField(blank=True)

    class Meta(CasePart.Meta):
        constraints = [
            models.UniqueConstraint(fields=["case", "slug"], name="breakdown_unique_slug"),
        ]

    def __str__(self) -> str:
        return self.title


class BreakdownRow(models.Model):
    """One category of a breakdown, labelled as the source labels it."""

    breakdown = models.ForeignKey(Breakdown, on_delete=models.CASCADE, related_name="rows")
    position = models.PositiveSmallIntegerField(default=0)
    label = models.CharField(max_length=200)
    group = models.CharField(max_length=100, blank=True, help_text="The source's own grouping.")
    facet_values = models.ManyToManyField(
        FacetValue, through="BreakdownRowValue", related_name="breakdown_rows"
    )
    count = models.FloatField(null=True, blank=True)
    count_share = models.FloatField(null=True, blank=True)
    count_bound = models.CharField(max_length=16, choices=Bound.choices, blank=True)
    cost = models.FloatField(null=True, blank=True)
    cost_share = models.FloatField(null=True, blank=True)
    cost_bound = models.CharField(max_length=16, choices=Bound.choices, blank=True)
    derived = models.BooleanField(default=False, help_text="A row computed, e.g. a remainder.")

    class Meta:
        ordering = ["breakdown", "position"]

    def __str__(self) -> str:
        return self.label


class BreakdownRowValue(models.Model):
    """A breakdown row mapped to a facet value (explicit, so that it is one of the app's models)."""

    row = models.ForeignKey(BreakdownRow, on_delete=models.CASCADE, related_name="value_links")
    value = models.ForeignKey(FacetValue, on_delete=models.PROTECT, related_name="breakdown_links")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["row", "value"], name="breakdownrowvalue_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.row} → {self.value}"
