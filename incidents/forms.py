"""The case-submission form: fields for one case, turned into the case-file format.

The form itself judges almost nothing (its text fields are all optional): the library's own rules,
the ones `load_cases` applies to case files, judge the entry it builds, and their problems are
put back on the form field they concern.
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.utils.text import slugify

from incidents.facets import FACETS
from incidents.models import Bound
from incidents.models import CaseKind
from incidents.models import CostKind
from incidents.models import Setting
from incidents.models import SourceKind
from incidents.selectors.vocabulary import Vocabulary
from incidents.services.library_entries import Problem
from incidents.services.library_load import SHARED_MODELS

SOURCE_ROWS = 3
FIGURE_ROWS = 3
COST_ROWS = 2
COST_PARTS = ("kind", "value", "bound", "of", "source", "locator", "formula", "note")
_NUMBER = re.compile(r"^-?[\d,]*\.?\d+$")


def _text(**kwargs: Any) -> forms.CharField:
    return forms.CharField(required=False, **kwargs)


def _area(rows: int = 4, **kwargs: Any) -> forms.CharField:
    return forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": rows}), **kwargs)


class SubmitCaseForm(forms.Form):
    """One case: text to suggest from, the case's fields, facet values, sources, figures, cost."""

    text = _area(
        rows=8,
        label="Postmortem text",
        help_text="Paste the postmortem or report; the facet values named in it are ticked for you.",
    )
    title = _text(max_length=250)
    slug = _text(max_length=100, help_text="Lower-case words and hyphens; from the title if empty.")
    kind = forms.ChoiceField(choices=CaseKind.choices, initial=CaseKind.INCIDENT)
    setting = forms.ChoiceField(choices=Setting.choices, initial=Setting.TRAINING)
    period_start = _text(label="Started", help_text="YYYY, YYYY-MM or YYYY-MM-DD")
    period_end = _text(label="Ended", help_text="optional")
    published = _text(
        label="Published", help_text="when the main source appeared; required if no start date"
    )
    summary = _area(rows=5, help_text="In your own words: what happened, to what, how big.")
    detection = _area(rows=3, help_text="How the failure was noticed (optional).")

    def __init__(self, *args: Any, vocabulary: Vocabulary, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # One field per facet, named like the case file's key ("root_causes").
        for spec in FACETS:
            choices = [
                (v.slug, "— " * vocabulary.depth(v) + v.name)
                for v in vocabulary.in_tree_order(spec.facet)
            ]
            self.fields[spec.fixture_key] = forms.MultipleChoiceField(
                required=False,
                choices=choices,
                label=spec.plural,
                widget=forms.CheckboxSelectMultiple,
            )
        for kind, model in SHARED_MODELS.items():
            self.fields[kind] = forms.MultipleChoiceField(
                required=False,
                choices=[(i.slug, i.text) for i in model.objects.order_by("text")],
                label=kind.replace("_", " ").capitalize(),
                widget=forms.CheckboxSelectMultiple,
            )
        for row in range(SOURCE_ROWS):
            n = row + 1
            self.fields[f"source_{row}_url"] = _text(label=f"Source {n} URL", max_length=500)
            self.fields[f"source_{row}_title"] = _text(label=f"Source {n} title", max_length=300)
            self.fields[f"source_{row}_kind"] = forms.ChoiceField(
                choices=SourceKind.choices, initial=SourceKind.PRIMARY, label=f"Source {n} kind"
            )
            self.fields[f"source_{row}_archived_url"] = _text(
                label=f"Source {n} archived copy", max_length=600
            )
        for row in range(FIGURE_ROWS):
            n = row + 1
            self.fields[f"figure_{row}_value"] = _text(label=f"Figure {n} value")
            self.fields[f"figure_{row}_unit"] = _text(label=f"Figure {n} unit", max_length=40)
            self.fields[f"figure_{row}_measures"] = _text(label=f"Figure {n} measures")
            self.fields[f"figure_{row}_source"] = _text(label=f"Figure {n} source URL")
        for row in range(COST_ROWS):
            n = row + 1
            self.fields[f"cost_{row}_kind"] = forms.ChoiceField(
                required=False,
                choices=[("", "—"), *CostKind.choices],
                label=f"Cost {n} kind",
                help_text="GPU-hours, share of GPU time, training downtime, outage or interruptions",
            )
            self.fields[f"cost_{row}_value"] = _text(label=f"Cost {n} value")
            self.fields[f"cost_{row}_bound"] = forms.ChoiceField(
                required=False, choices=[("", "as stated"), *Bound.choices], label=f"Cost {n} bound"
            )
            self.fields[f"cost_{row}_of"] = _text(
                label=f"Cost {n} of", max_length=300, help_text="for a share: of what"
            )
            self.fields[f"cost_{row}_source"] = _text(label=f"Cost {n} source URL")
            self.fields[f"cost_{row}_locator"] = _text(
                label=f"Cost {n} where in the source", max_length=300
            )
            self.fields[f"cost_{row}_formula"] = _text(
                label=f"Cost {n} formula",
                max_length=300,
                help_text="only if you computed it (e.g. 7.3 h x 384 GPUs)",
            )
            self.fields[f"cost_{row}_note"] = _text(label=f"Cost {n} note", max_length=500)

    # --- layout helpers for the template ---------------------------------------------------

    def facet_fields(self) -> list[forms.BoundField]:
        return [self[spec.fixture_key] for spec in FACETS]

    def shared_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in SHARED_MODELS]

    def source_rows(self) -> list[list[forms.BoundField]]:
        parts = ("url", "title", "kind", "archived_url")
        return [[self[f"source_{r}_{p}"] for p in parts] for r in range(SOURCE_ROWS)]

    def figure_rows(self) -> list[list[forms.BoundField]]:
        parts = ("value", "unit", "measures", "source")
        return [[self[f"figure_{r}_{p}"] for p in parts] for r in range(FIGURE_ROWS)]

    def cost_rows(self) -> list[list[forms.BoundField]]:
        return [[self[f"cost_{r}_{p}"] for p in COST_PARTS] for r in range(COST_ROWS)]

    # --- the case-file entry ---------------------------------------------------------------

    def case_slug(self) -> str:
        data = self.cleaned_data
        return data.get("slug") or slugify(data.get("title") or "")[:100].strip("-")

    def entry(self) -> tuple[dict[str, Any], dict[str, str]]:
        """The case in the case-file format, and which form field each of its fields came from.

        Call after is_valid(). Rows left empty are left out; numbers stay text when they are not
        numbers, so that the library's rules say what is wrong with them.
        """
        data = self.cleaned_data
        entry: dict[str, Any] = {"title": data["title"], "kind": data["kind"]}
        entry["setting"] = data["setting"]
        origin: dict[str, str] = {}
        if data["period_start"] or data["period_end"]:
            entry["period"] = {"start": data["period_start"] or None}
            if data["period_end"]:
                entry["period"]["end"] = data["period_end"]
        if data["published"]:
            entry["published"] = data["published"]
        entry["summary"] = data["summary"]
        if data["detection"]:
            entry["detection"] = data["detection"]
        for spec in FACETS:
            if data.get(spec.fixture_key):
                entry[spec.fixture_key] = list(data[spec.fixture_key])
        for kind in SHARED_MODELS:
            if data.get(kind):
                entry[kind] = [{"ref": slug} for slug in data[kind]]
        entry["sources"] = []
        for row in range(SOURCE_ROWS):
            parts = {p: data[f"source_{row}_{p}"] for p in ("url", "title", "archived_url")}
            if not any(parts.values()):
                continue
            index = len(entry["sources"])
            origin[f"sources[{index}]"] = f"source_{row}_url"
            for p in ("url", "title", "kind", "archived_url"):
                origin[f"sources[{index}].{p}"] = f"source_{row}_{p}"
            source = {"url": parts["url"], "kind": data[f"source_{row}_kind"]}
            source.update({p: parts[p] for p in ("title", "archived_url") if parts[p]})
            entry["sources"].append(source)
        figures: list[dict[str, Any]] = []
        for row in range(FIGURE_ROWS):
            parts = {p: data[f"figure_{row}_{p}"] for p in ("value", "unit", "measures", "source")}
            if not any(parts.values()):
                continue
            index = len(figures)
            origin[f"key_figures[{index}]"] = f"figure_{row}_value"
            for p in parts:
                origin[f"key_figures[{index}].{p}"] = f"figure_{row}_{p}"
            figure = {
                "value": _number(parts["value"]),
                "measures": parts["measures"],
                "source": parts["source"],
            }
            if parts["unit"]:
                figure["unit"] = parts["unit"]
            figures.append(figure)
        if figures:
            entry["key_figures"] = figures
        costs: list[dict[str, Any]] = []
        for row in range(COST_ROWS):
            parts = {p: data[f"cost_{row}_{p}"] for p in COST_PARTS}
            if not any(parts.values()):
                continue
            index = len(costs)
            origin[f"costs[{index}]"] = f"cost_{row}_kind"
            for p in (*COST_PARTS, "derived"):
                origin[f"costs[{index}].{p}"] = f"cost_{row}_{'formula' if p == 'derived' else p}"
            cost = {"kind": parts["kind"] or None, "value": _number(parts["value"])}
            cost.update(
                {p: parts[p] for p in ("bound", "of", "source", "locator", "note") if parts[p]}
            )
            if parts["formula"]:
                cost.update(derived=True, formula=parts["formula"])
            costs.append(cost)
        if costs:
            entry["costs"] = costs
        return entry, origin

    def add_problems(self, problems: list[Problem], origin: dict[str, str]) -> None:
        """Put each problem the library's rules found on the form field it concerns."""
        for problem in problems:
            name = field_for(problem.field, origin)
            if name in self.fields:
                self.add_error(name, problem.message)
            else:
                where = f"{problem.field}: " if problem.field else ""
                self.add_error(None, where + problem.message)


def _number(text: str) -> Any:
    cleaned = text.replace(",", "").strip()
    if cleaned and _NUMBER.match(text.strip()):
        value = float(cleaned)
        return int(value) if value.is_integer() else value
    return text if text else None


def field_for(path: str | None, origin: dict[str, str]) -> str | None:
    """The form field a case-file field path comes from: "sources[1].url" -> "source_2_url"."""
    if path is None:
        return None
    if path in origin:
        return origin[path]
    if path in ("period", "period.start"):
        return "period_start"
    if path == "period.end":
        return "period_end"
    if path == "sources":
        return "source_0_url"
    base = path.split("[", 1)[0]
    return base
