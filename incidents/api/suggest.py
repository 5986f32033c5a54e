"""`GET /api/suggest/?q=`: the facet values a text names, as the library page suggests them.

The same engine (incidents.suggest) and the same counts (selectors.facet_counts.suggestions_for):
each suggestion carries its facet, slug and name, the words that named it, a score from 0 to 1,
and the number of cases the filter would give (the other filters in the request kept, `q`
replaced by the suggestion).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from incidents.api.reads import LibraryRead
from incidents.api.views import FILTER_PARAMETERS
from incidents.api.views import object_read_responses
from incidents.selectors.cases import case_queryset
from incidents.selectors.facet_counts import suggestions_for
from incidents.selectors.parameters import FILTER_PARAMS
from incidents.selectors.parameters import filter_problems
from incidents.suggest import MAX_SUGGEST_CHARS


class SuggestionSerializer(serializers.Serializer[Any]):
    """One suggested filter."""

    facet = serializers.CharField(source="suggestion.facet")
    facet_label = serializers.CharField(source="suggestion.facet_label")
    slug = serializers.CharField(source="suggestion.value.slug")
    name = serializers.CharField(source="suggestion.value.name")
    matched = serializers.CharField(
        source="suggestion.matched", help_text="The words of its best match, as written."
    )
    matched_words = serializers.ListField(
        child=serializers.CharField(),
        source="suggestion.words",
        help_text="Every word of the text that counted for it.",
    )
    via = serializers.CharField(
        source="suggestion.via",
        help_text="How it was found: name, alias, phrase, learned, children or like (the "
        "cases most like the text are tagged with it, and some of its words are in the text).",
    )
    like_cases = serializers.ListField(
        child=serializers.CharField(),
        source="suggestion.like",
        help_text="Titles of the cases most like the text that are tagged with it, when they "
        "raised it.",
    )
    score = serializers.FloatField(source="suggestion.score", help_text="0 to 1.")
    count = serializers.IntegerField(help_text="Cases the filter would give.")


class SuggestView(LibraryRead):
    """Facet values named in `q`, in the order their words appear."""

    known_parameters = FILTER_PARAMS  # q and the filters whose counts it keeps

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "q",
                # Blank text, or a NUL character, is a 400.
                {"type": "string", "pattern": "^[^\\x00]*\\S[^\\x00]*$"},  # type: ignore[arg-type]
                required=True,
                description=f"Text to read (at most {MAX_SUGGEST_CHARS:,} characters are read)",
            ),
            *(p for p in FILTER_PARAMETERS if p.name != "q"),
        ],
        responses=object_read_responses(
            "Suggestions",
            q=serializers.CharField(),
            suggestions=SuggestionSerializer(many=True),
        ),
    )
    def get(self, request: Request) -> Response:
        text = request.query_params.get("q", "")
        if not text.strip():
            raise ValidationError({"q": ["Give the text to read in q."]})
        found = case_queryset(params=request.query_params)
        if found.errors:
            raise ValidationError(
                filter_problems(request.query_params, found.errors, found.vocabulary)
            )
        suggestions = suggestions_for(found.filterset, text)
        return Response(
            {
                "q": text,
                "suggestions": SuggestionSerializer(suggestions, many=True).data,
            }
        )
