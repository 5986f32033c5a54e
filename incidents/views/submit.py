"""Submitting a case (editors): paste a postmortem, get its facet values ticked, save it through
the same validation as `load_cases`.

The form is a plain POST form that works without JavaScript: "Suggest values from the text" posts
it back with the values that `suggest_filters` finds in the pasted text ticked; "Add the case"
validates it with the library's rules and, if all is right, writes it and shows its case-file YAML.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.contrib.auth.decorators import permission_required
from django.http import Http404
from django.http import HttpRequest
from django.http import HttpResponse
from django.http import QueryDict
from django.shortcuts import redirect
from django.shortcuts import render

from incidents import facets
from incidents.forms import SubmitCaseForm
from incidents.models import Case
from incidents.selectors.cases import case_detail
from incidents.selectors.vocabulary import Vocabulary
from incidents.services.case_submission import case_file_yaml
from incidents.services.case_submission import submit_case
from incidents.services.library_entries import LibraryError
from incidents.suggest import suggest_filters

SESSION_KEY = "submitted_case"


def _initial(form: SubmitCaseForm, data: QueryDict) -> dict[str, Any]:
    return {
        name: data.getlist(name)
        if isinstance(field, forms.MultipleChoiceField)
        else data.get(name, "")
        for name, field in form.fields.items()
        if name in data
    }


@login_required
@permission_required("incidents.add_case", raise_exception=True)
def submit(request: HttpRequest) -> HttpResponse:
    """The submission form; POST with action=suggest ticks the values found in the text."""
    vocabulary = Vocabulary.load()
    suggestions: list[Any] = []
    if request.method != "POST":
        form = SubmitCaseForm(vocabulary=vocabulary)
    elif request.POST.get("action") == "suggest":
        data = request.POST.copy()
        suggestions = suggest_filters(data.get("text", ""), values=vocabulary.values.values())
        for suggestion in suggestions:
            name = facets.spec(suggestion.facet).fixture_key
            if suggestion.value.slug not in data.getlist(name):
                data.appendlist(name, suggestion.value.slug)
        blank = SubmitCaseForm(vocabulary=vocabulary)
        form = SubmitCaseForm(initial=_initial(blank, data), vocabulary=vocabulary)
    else:
        form = SubmitCaseForm(request.POST, vocabulary=vocabulary)
        if form.is_valid():
            entry, origin = form.entry()
            try:
                case = submit_case(slug=form.case_slug(), entry=entry)
            except LibraryError as exc:
                form.add_problems(exc.problems, origin)
            else:
                request.session[SESSION_KEY] = {"slug": case.slug, "yaml": case_file_yaml(entry)}
                return redirect("incidents:submit-done", slug=case.slug)
    failed = form.is_bound and bool(form.errors)
    return render(
        request,
        "incidents/submit.html",
        {"form": form, "suggestions": suggestions, "failed": failed},
        status=400 if failed else 200,
    )


@login_required
@permission_required("incidents.add_case", raise_exception=True)
def submit_done(request: HttpRequest, slug: str) -> HttpResponse:
    """The case just added, with the YAML to commit as fixtures/cases/<slug>.yaml."""
    try:
        case = case_detail(slug=slug)
    except Case.DoesNotExist as exc:
        raise Http404(f"No case with slug {slug!r}") from exc
    saved = request.session.get(SESSION_KEY) or {}
    return render(
        request,
        "incidents/submit_done.html",
        {"case": case, "yaml": saved.get("yaml") if saved.get("slug") == slug else None},
    )
