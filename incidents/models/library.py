"""The library's data model: cases, facet values, sources, figures and shared items.

A Case is one public failure report or study. Facet values (the facets are listed in
incidents.facets) are controlled vocabularies shaped as trees; a case links to the
values it was tagged with (`direct`) and, implied by them, to all their ancestors, so that filtering
by a parent finds its descendants with one join. Remediations, action items and lessons are shared
between cases, with the case-specific wording kept on the link.
"""

from __future__ import annotations

from django.db import models
from django.db.models.functions import Coalesce

from incidents import facets
from incidents.text import spelling_key


class FacetValue(models.Model):
    """One value of a facet, e.g. Symptom = "NCCL timeout"; values form a tree per facet."""

    facet = models.CharField(max_length=32, choices=facets.CHOICES)
    slug = models.SlugField(max_length=100)
    name = models.CharField(max_length=150)
    name_key = models.CharField(
        max_length=150,
        editable=False,
        help_text="Canonical spelling (lower case, singular); one value per spelling.",
    )
    description = models.TextField(blank=True)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="children"
    )
    phrases = models.JSONField(
        default=list,
        blank=True,
        help_text='How engineers say it in their own words ("fell off the bus"); suggestion only.',
    )
    ambiguous = models.JSONField(
        default=list,
        blank=True,
        help_text='The value\'s name or aliases that are also everyday words ("node", "FAIR").',
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["facet", "name"]
        constraints = [
            models.UniqueConstraint(fields=["facet", "slug"], name="facetvalue_unique_slug"),
            models.UniqueConstraint(
                fields=["facet", "name_key"], name="facetvalue_unique_spelling"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_facet_display()}: {self.name}"

    def save(self, *args: object, **kwargs: object) -> None:
        # The canonical spelling is an invariant of the row, not business logic: keep it in step.
        self.name_key = spelling_key(self.name)
        super().save(*args, **kwargs)  # type: ignore[arg-type]


class FacetAlias(models.Model):
    """A word people use for a facet value ("NCCL hang" for NCCL timeout)."""

    value = models.ForeignKey(FacetValue, on_delete=models.CASCADE, related_name="aliases")
    facet = models.CharField(max_length=32, choices=facets.CHOICES, editable=False)
    text = models.CharField(max_length=150)
    text_key = models.CharField(max_length=150, editable=False)

    class Meta:
        ordering = ["text"]
        verbose_name_plural = "facet aliases"
        constraints = [
            models.UniqueConstraint(
                fields=["facet", "text_key"], name="facetalias_unique_spelling"
            ),
        ]

    def __str__(self) -> str:
        return self.text

    def save(self, *args: object, **kwargs: object) -> None:
        self.facet = self.value.facet
        self.text_key = spelling_key(self.text)
        super().save(*args, **kwargs)  # type: ignore[arg-type]


class CaseKind(models.TextChoices):
    INCIDENT = "incident", "Incident"
    STUDY = "study", "Study"
    NEAR_MISS = "near-miss", "Near miss"


# Choices given without labels are labelled by Django from their names ("DAY" reads "Day").
class Setting(models.TextChoices):
    TRAINING = "training"
    EVALUATION = "evaluation"
    SERVING = "serving"
    PLATFORM = "platform"


class DatePrecision(models.TextChoices):
    YEAR = "year"
    MONTH = "month"
    DAY = "day"


class Case(models.Model):
    """One public incident, postmortem or failure study."""

    slug = models.SlugField(max_length=100, unique=True)
    title = models.CharField(max_length=250)
    summary = models.TextField()
    detection = models.TextField(blank=True)
    kind = models.CharField(max_length=16, choices=CaseKind.choices, default=CaseKind.INCIDENT)
    setting = models.CharField(max_length=16, choices=Setting.choices, default=Setting.TRAINING)
    period_start = models.DateField(null=True, blank=True)
    period_start_precision = models.CharField(
        max_length=8, choices=DatePrecision.choices, default=DatePrecision.DAY
    )
    period_end = models.DateField(null=True, blank=True)
    period_end_precision = models.CharField(
        max_length=8, choices=DatePrecision.choices, default=DatePrecision.DAY
    )
    published = models.DateField(
        null=True, blank=True, help_text="When the main source was published."
    )
    published_precision = models.CharField(
        max_length=8, choices=DatePrecision.choices, default=DatePrecision.DAY
    )
    facet_values = models.ManyToManyField(
        FacetValue, through="CaseFacetLink", related_name="cases", blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Indexed: the suggestion engine's cache reads the latest change on every call.
    updated_at = models.DateTimeField(auto_now=True, db_index=True)

    class Meta:
        # Newest first: by when it happened, or, where the source gives no period, when it was published.
        ordering = [Coalesce("period_start", "published").desc(nulls_last=True), "title"]
        # The default order has an index, case_newest_first (migration 0008, written in SQL:
        # SQLite cannot index NULLS LAST), so a page is read from it, not sorted from all rows.

    def __str__(self) -> str:
        return self.title

    @property
    def period_label(self) -> str:
        return case_period_label(self)


class CaseFacetLink(models.Model):
    """Case tagged with a facet value; `direct=False` rows are implied by a tagged descendant."""

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="links")
    value = models.ForeignKey(FacetValue, on_delete=models.PROTECT, related_name="links")
    direct = models.BooleanField(default=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["case", "value"], name="casefacetlink_unique"),
        ]
        indexes = [models.Index(fields=["value", "case"], name="casefacetlink_value_case")]

    def __str__(self) -> str:
        return f"{self.case.slug} → {self.value}"


class CasePart(models.Model):
    """Base of what a case holds in the order its file lists it: sources, key figures, costs,
    breakdowns and links to shared items. Each names its own `case` relation."""

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="+")
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        abstract = True
        ordering = ["case", "position"]


class SourceKind(models.TextChoices):
    PRIMARY = "primary"
    SECONDARY = "secondary"


class Source(CasePart):
    """A public document the case's facts come from."""

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="sources")
    url = models.URLField(max_length=500)
    kind = models.CharField(max_length=16, choices=SourceKind.choices, default=SourceKind.PRIMARY)
    title = models.CharField(max_length=300, blank=True)
    archived_url = models.URLField(max_length=600, blank=True)

    class Meta(CasePart.Meta):
        constraints = [
            models.UniqueConstraint(fields=["case", "url"], name="source_unique_url_per_case"),
        ]

    def __str__(self) -> str:
        return self.title or self.url


class KeyFigure(CasePart):
    """A number the sources give: value, unit, what it measures, where it comes from."""

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="key_figures")
    value = models.FloatField()
    unit = models.CharField(max_length=40, blank=True)
    measures = models.CharField(max_length=300)
    source_url = models.URLField(max_length=500)

    def __str__(self) -> str:
        return f"{self.display_value} {self.unit} {self.measures}".strip()

    @property
    def display_value(self) -> str:
        """The value without a trailing ".0" for whole numbers."""
        return f"{self.value:,.0f}" if float(self.value).is_integer() else f"{self.value:,g}"


class SharedItem(models.Model):
    """Base of remediations, action items and lessons: shared between cases by slug."""

    slug = models.SlugField(max_length=100, unique=True)
    text = models.TextField()

    class Meta:
        abstract = True
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.text


class Remediation(SharedItem):
    """Something done to recover from or stop a failure."""


class ActionItem(SharedItem):
    """A follow-up planned after a failure."""


class Lesson(SharedItem):
    """What a failure teaches; one lesson can come from many cases."""


class CaseItemLink(CasePart):
    """Base of the ordered links from a case to a shared item, with the case's own wording."""

    wording = models.TextField(blank=True, help_text="The case's own wording, if it differs.")

    class Meta(CasePart.Meta):
        abstract = True
        # A case links to an item once; "%(class)s" names it per model ("caselesson_unique").
        constraints = [
            models.UniqueConstraint(fields=["case", "item"], name="%(class)s_unique"),
        ]

    def __str__(self) -> str:
        return self.text

    @property
    def text(self) -> str:
        """The case-specific wording, or the shared item's text."""
        item: SharedItem = getattr(self, "item")  # noqa: B009 - defined by subclasses
        return self.wording or item.text


class CaseRemediation(CaseItemLink):
    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="remediation_links")
    item = models.ForeignKey(Remediation, on_delete=models.PROTECT, related_name="case_links")


class CaseActionItem(CaseItemLink):
    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="action_item_links")
    item = models.ForeignKey(ActionItem, on_delete=models.PROTECT, related_name="case_links")


class CaseLesson(CaseItemLink):
    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="lesson_links")
    item = models.ForeignKey(Lesson, on_delete=models.PROTECT, related_name="case_links")


# The kinds of shared entry, by their key in a case file (and shared/<kind>*.yaml), each with the
# model linking a case to its items: one table the loader, the case rows, the search index, the
# submit form and the case card read. `item_model` and `case_relation` follow from each model.
ItemLinkModel = type[CaseRemediation] | type[CaseActionItem] | type[CaseLesson]
CASE_ITEM_LINKS: dict[str, ItemLinkModel] = {
    "remediations": CaseRemediation,
    "action_items": CaseActionItem,
    "lessons": CaseLesson,
}


def item_model(link: ItemLinkModel) -> type[SharedItem]:
    """The shared model a link model points at (Remediation for CaseRemediation)."""
    model: type[SharedItem] = link._meta.get_field("item").related_model  # type: ignore[assignment]
    return model


def case_relation(link: ItemLinkModel) -> str:
    """The name of a case's links of that model ("remediation_links")."""
    field = link._meta.get_field("case")
    return str(field.remote_field.related_name)  # type: ignore[union-attr]


def format_period_point(date: object, precision: str) -> str:
    """A date at the precision its source gives: "2023", "Mar 2023" or "21 Mar 2023"."""
    import datetime as dt

    if not isinstance(date, dt.date):
        return ""
    if precision == DatePrecision.YEAR:
        return f"{date.year}"
    if precision == DatePrecision.MONTH:
        return date.strftime("%b %Y")
    return f"{date.day} {date.strftime('%b %Y')}"


def case_period_label(case: Case) -> str:
    """The case's period as text, e.g. "Mar 2023 – Aug 2023", or "published Oct 2024" when no
    source states the period."""
    start = format_period_point(case.period_start, case.period_start_precision)
    end = format_period_point(case.period_end, case.period_end_precision)
    if start and end and end != start:
        return f"{start} – {end}"
    if start or end:
        return start or end
    published = format_period_point(case.published, case.published_precision)
    return f"published {published}" if published else ""
