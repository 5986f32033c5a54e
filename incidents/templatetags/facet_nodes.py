"""`{% facet_nodes tree %}`: the library page's facet tree as nested lists of links.

The tree has a row for every facet value with cases (a couple of hundred rows, two links each);
rendered by Django's template engine, node by node through a recursive include, it was most of
the page's time. This writes the same markup with string formatting: every text escaped (the standard
library's `html.escape`, as Django's own), every link made by the presenter (QueryState), nothing looked up.

    <ul class="facet-tree"><li><div class="facet-row is-selected">
      <a class="facet-link" id="f-<param>-<slug>" href="..." data-value="<slug>" aria-current="true">
        <span class="mark" aria-hidden="true">✓</span> <span class="facet-name">Name</span> ...
        <span class="count">12</span><span class="visually-hidden"> cases</span></a>
      <a class="facet-exclude" id="x-<param>-<slug>" href="..." ...>not<span ...> ...</span></a>
    </div><ul class="facet-tree">(children)</ul></li></ul>
"""

from __future__ import annotations

from html import escape as _escape

from django import template
from django.utils.safestring import SafeString
from django.utils.safestring import mark_safe

from incidents.presenters.library_page import FacetNode
from incidents.presenters.library_page import FacetTree

register = template.Library()

# Escaped texts: the same few hundred names, slugs and links on every page of a version; at most
# this many are kept, then forgotten at once, and none longer than _MEMO_CHARS (a link holds the
# reader's query, client input of any length: escaped each time). So the memo holds at most
# about 20,000 x (200 + 1,200) characters, 28 MB if every one were quotes; the links (percent-
# encoded: only `&` grows) and names make it a few MB.
_ESCAPED_SIZE = 20_000
_MEMO_CHARS = 200
_escaped: dict[str, str] = {}


def escape(text: str) -> str:
    """`html.escape(text)`, remembered when short."""
    done = _escaped.get(text)
    if done is None:
        done = _escape(text)
        if len(text) <= _MEMO_CHARS:
            if len(_escaped) >= _ESCAPED_SIZE:
                _escaped.clear()
            _escaped[text] = done
    return done


@register.simple_tag
def facet_nodes(tree: FacetTree) -> SafeString:
    """The tree's values as nested `ul.facet-tree` lists (the roots, then each one's children)."""
    parts: list[str] = []
    _nodes(tree.roots, escape(tree.spec.param), parts)
    return mark_safe("".join(parts))  # noqa: S308 - every text and attribute is escaped above


def _nodes(nodes: list[FacetNode], param: str, out: list[str]) -> None:
    out.append('<ul class="facet-tree">\n')
    for node in nodes:
        item = node.item
        slug = escape(item.value.slug)
        name = escape(item.value.name)
        if item.selected:
            row, current, mark = (
                " is-selected",
                ' aria-current="true"',
                '<span class="mark" aria-hidden="true">✓</span>\n',
            )
            state = '<span class="visually-hidden"> (applied; select to remove)</span>\n'
        elif item.excluded:
            row, current, mark = " is-excluded", "", ""
            state = '<span class="visually-hidden"> (excluded; select to include)</span>\n'
        else:
            row = current = mark = state = ""
        cases = "case" if item.count == 1 else "cases"
        if item.excluded:
            title, word, hidden = f"Stop excluding {name}", "undo", f" {name}: stop excluding it"
        else:
            title, word, hidden = f"Exclude {name}", "not", f" {name}: exclude cases with it"
        out.append(
            f'  <li>\n    <div class="facet-row{row}">\n'
            f'      <a class="facet-link" id="f-{param}-{slug}" href="{escape(node.toggle_url)}"'
            f' data-value="{slug}"{current}>\n'
            f'        {mark}<span class="facet-name">{name}</span>\n'
            f'        {state}<span class="count">{item.count}</span>'
            f'<span class="visually-hidden"> {cases}</span></a>\n'
            f'      <a class="facet-exclude" id="x-{param}-{slug}" href="{escape(node.exclude_url)}"'
            f' data-value="{slug}" title="{title}">{word}'
            f'<span class="visually-hidden">{hidden}</span></a>\n'
            "    </div>\n"
        )
        if node.children:
            _nodes(node.children, param, out)
        out.append("  </li>\n")
    out.append("</ul>\n")
