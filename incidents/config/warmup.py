"""What production imports and loads before it serves, so that no user request pays for it.

Start-up stays lean for `manage.py` commands: wordfreq, simplemma and networkx are imported where
they are used (incidents.suggest.words, incidents.graph.projection), and the URLconf (every
view, the API and its schema decorators) when Django first resolves a path. gunicorn loads the
app once in its master (`preload_app`), and its `when_ready` hook (incidents/config/gunicorn.py)
calls `warm()` there, before the workers fork: they start with all of it in memory, and with
the digest of the code the master loaded (views.whole_pages.build_digest), which a worker forked
later, after a deploy replaced the files in place, would otherwise take of the new files.
"""

from __future__ import annotations


def warm() -> None:
    """Import the URLconf with every view, and load the word tables and graph library the
    suggestion engine and the graph pages use (about 0.5 s of CPU, once per server); take the
    digest of the code that renders the anonymous pages."""
    import networkx  # noqa: F401  (incidents.graph.projection imports it per call)
    from django.urls import get_resolver

    from incidents.suggest.words import stem
    from incidents.suggest.words import zipf
    from incidents.views.whole_pages import build_digest

    get_resolver().url_patterns  # noqa: B018  (imports ROOT_URLCONF and all it names)
    zipf("the")  # wordfreq's English table is read on its first look-up
    stem("went")  # simplemma's English dictionary likewise
    build_digest()  # the code as loaded, before any file can be replaced
