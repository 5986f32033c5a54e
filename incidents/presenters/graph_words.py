"""The graph page's words: its heading and the sentence saying what the drawing counts, for the
overview, a value's focus, a remediation's or lesson's, and a case's. No queries here."""

from __future__ import annotations

from incidents.graph.kinds import CASE
from incidents.graph.kinds import LESSON
from incidents.graph.kinds import NODE_KINDS
from incidents.graph.kinds import REMEDIATION
from incidents.graph.kinds import short_label
from incidents.selectors.graph import GraphView


def heading(view: GraphView) -> str:
    focus = view.picture.focus
    if focus is None:
        n = view.picture.cases
        return f"What {n} case{'s' if n != 1 else ''} share"
    label = view.labels.get(focus, "")
    if focus[0] == CASE:
        return f"{label}: what it shares with other cases"
    if focus[0] in (REMEDIATION, LESSON):
        # Its slug as words ("Raise timeout"), as the drawing names it: its text is a sentence.
        named = short_label(focus[0], str(view.slugs.get(focus, "")), label)
        return f"What “{named}” was used against"
    if view.leave_out is not None:
        return f"What fixed {label} elsewhere"
    return f"What fixes {label}?"


def summary(view: GraphView) -> str:
    """One sentence saying what the drawing counts."""
    focus = view.picture.focus
    n = view.picture.cases
    cases = f"{n} case{'s' if n != 1 else ''}"
    if focus is None:
        drawn = len(view.picture.nodes())
        return (
            f"The {drawn} values, remediations and lessons these {cases} share most, sized by"
            " their number of cases; a link's width is the number of cases that share both ends."
        )
    if focus[0] == CASE:
        return (
            "Its own values, remediations and lessons, each with the number of cases (this one"
            " included) that share it, and the cases sharing the most with it."
        )
    where = ""
    if view.leave_out is not None:
        where = f" other than {view.labels.get(view.leave_out, 'the case it came from')}"
    what = NODE_KINDS[focus[0]].lower()
    return (
        f"{cases}{where} {'has' if n == 1 else 'have'} this {what}; each node says in how many of them it appears"
        " (their own tags, not the broader values implied)."
    )
