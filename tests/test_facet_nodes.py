"""The facet tree's escaping memo: names and links escaped as html.escape does, the short ones
remembered, and a link built from a reader's long query never kept (client input: bounded)."""

from __future__ import annotations

import html

from incidents.templatetags import facet_nodes


def test_long_links_are_escaped_but_not_remembered() -> None:
    facet_nodes._escaped.clear()
    assert facet_nodes.escape('Tom & "Jerry" <x>') == html.escape('Tom & "Jerry" <x>')
    # One reader's made-up queries: a thousand distinct links of 5,000 characters.
    for i in range(1000):
        link = f"?q={i}" + "&symptom=x" * 500
        assert facet_nodes.escape(link) == html.escape(link)
    held = sum(len(text) + len(done) for text, done in facet_nodes._escaped.items())
    assert held < 10_000  # not the ~12 million characters of those links and their escapes
    assert 'Tom & "Jerry" <x>' in facet_nodes._escaped  # the short ones are still remembered
