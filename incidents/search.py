"""Text search over cases.

`filter_cases(qs, text)` narrows a case queryset to those matching every word of the text, in the
title, summary or detection. A ranked full-text engine can replace it behind the same function.
"""

from __future__ import annotations

from django.db.models import Q, QuerySet

from incidents.models import Case
from incidents.text import words


def filter_cases(queryset: QuerySet[Case], text: str) -> QuerySet[Case]:
    """Cases whose title, summary or detection contain every word of `text`."""
    for word in words(text)[:12]:
        queryset = queryset.filter(
            Q(title__icontains=word) | Q(summary__icontains=word) | Q(detection__icontains=word)
        )
    return queryset
