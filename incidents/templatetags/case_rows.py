"""`{% case_rows rows %}`: the library page's list of cases, one `li.case-row` per case.

Rendered by Django's template engine, a row (a title, a meta line, a few facets of linked
values) went through about forty nodes, and the twenty rows of a page were most of an uncached
page's time, more than reading them; this writes the same markup with string formatting, as
`{% facet_nodes %}` does the facet trees: every text escaped (the standard library's
`html.escape`, as Django's own, remembered), every link made by the presenter (QueryState), nothing looked
up.

    <li class="case-row">
      <h3><a href="/cases/<slug>/" hx-boost="false">Title</a></h3>
      <p class="matched-words">matches 2 of 3 words</p>          (a partial match only)
      <p class="meta"><a href="...">Acme</a> · 2023</p>
      <dl class="row-values"><div><dt>Symptom</dt><dd><a href="...">NCCL timeout</a>, ...</dd></div>
      </dl>
    </li>
"""

from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils.safestring import SafeString
from django.utils.safestring import mark_safe

from incidents.models import FacetValue
from incidents.presenters.library_page import CaseRow
from incidents.templatetags.facet_nodes import escape

register = template.Library()

# The indentation the rows had in case_list.html, kept so that the page reads the same.
_ROW = "\n          "
_VALUES = "\n              "
# A slug the case page's address is reversed with once per list, then replaced by each case's
# (a slug is the same in a path as quoted: letters, digits, "-" and "_").
_SLUG = "slug-of-the-case"


@register.simple_tag
def case_rows(rows: list[CaseRow]) -> SafeString:
    """Every row, each between the newlines and indentation of the list it sits in."""
    before, _, after = reverse("incidents:case-detail", args=[_SLUG]).partition(_SLUG)
    parts: list[str] = []
    for row in rows:
        parts += (_ROW, _row(row, escape(before), escape(after)), _ROW)
    return mark_safe("".join(parts))  # noqa: S308 - every text and attribute is escaped below


def _links(links: list[tuple[FacetValue, str]]) -> str:
    return ", ".join(f'<a href="{escape(url)}">{escape(value.name)}</a>' for value, url in links)


def _row(row: CaseRow, before: str, after: str) -> str:
    case = row.case
    href = f"{before}{escape(case.slug)}{after}"
    matched = f'<p class="matched-words">{escape(row.matched)}</p>' if row.matched else ""
    period = str(case.period_label)
    between = " · " if row.meta and period else ""
    values = "".join(
        f"{_VALUES}<div><dt>{escape(str(values.spec.label))}</dt>"
        f"<dd>{_links(values.links)}</dd></div>{_VALUES}"
        for values in row.facets
    )
    return (
        f'\n          <li class="case-row">\n'
        f'            <h3><a href="{href}" hx-boost="false">{escape(case.title)}</a></h3>\n'
        f"            {matched}\n"
        f'            <p class="meta">{_links(row.meta)}{between}{escape(period)}</p>\n'
        f'            <dl class="row-values">{_VALUES}{values}\n            </dl>\n'
        "          </li>\n"
    )
