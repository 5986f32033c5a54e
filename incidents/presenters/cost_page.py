"""What the cost view shows: the lesson first (a headline from the data, with its source), the
share-by-count against share-by-cost charts per study and pooled, then each kind of cost."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from incidents.amounts import bounded
from incidents.amounts import percent
from incidents.models import CostKind
from incidents.presenters import cost_chart
from incidents.presenters.query_state import QueryState
from incidents.selectors.cost import CostView
from incidents.selectors.cost import KindCosts
from incidents.selectors.cost_lesson import POOLING_RULE
from incidents.selectors.cost_lesson import Callout
from incidents.selectors.cost_lesson import ShareTable

VIEW = "incidents:cost"
# What each kind is for, said above its chart.
KIND_NOTES: dict[str, str] = {
    CostKind.GPU_HOURS_LOST: "GPU time a failure took from training, mostly studies and runs.",
    CostKind.GPU_TIME_SHARE: "The share of some whole of GPU time lost; each bar says of what.",
    CostKind.TRAINING_DOWNTIME_HOURS: "Hours a training job lost, not a service's outage.",
    CostKind.OUTAGE_MINUTES: "How long a service was down or degraded for its users.",
    CostKind.INTERRUPTIONS: "How many times a job was interrupted or restarted.",
}
# The kind as a noun phrase in a sentence ("3 report interruptions").
KIND_PHRASES: dict[str, str] = {
    CostKind.GPU_HOURS_LOST: "GPU-hours lost",
    CostKind.GPU_TIME_SHARE: "a share of GPU time lost",
    CostKind.TRAINING_DOWNTIME_HOURS: "training-job downtime",
    CostKind.OUTAGE_MINUTES: "a user-facing outage",
    CostKind.INTERRUPTIONS: "interruptions",
}
MULTI_TAG_RULE = (
    "Each case is one bar per chart, whatever values it is tagged with: a case tagged with "
    "several root causes, components or symptoms is never counted under each of them. A case "
    "with several figures of one kind is drawn with the first its file lists; the others are "
    "in the table. A figure two cases share (the same number from the same place of the same "
    "source) is one bar naming both. A cost per event (per restart, per start) is listed but "
    "not drawn next to totals. Nothing is added up: not across kinds, and not across cases."
)


@dataclass(frozen=True)
class CalloutView:
    callout: Callout
    sentence: str  # "Infrastructure: 11% of failed jobs ..., more than 82% of ..."
    count_text: str  # "11%"
    cost_text: str  # "more than 82%"


@dataclass(frozen=True)
class SharePanel:
    table: ShareTable
    chart: cost_chart.ShareChart
    called_out: set[str]


@dataclass(frozen=True)
class KindPanel:
    costs: KindCosts
    chart: cost_chart.KindChart
    note: str
    phrase: str


def callout_view(callout: Callout) -> CalloutView:
    """The call-out in words, from the table's own wording of what its shares are of."""
    pair, table = callout.pair, callout.table
    count = bounded(percent(round(pair.count_share, 2)), pair.count_bound)
    cost = bounded(percent(round(pair.cost_share, 2)), pair.cost_bound)
    sentence = f"{pair.label}: {count} of {table.count_of}, {cost} of {table.cost_of}."
    return CalloutView(callout, sentence, count, cost)


def context(view: CostView, params: Mapping[str, Any], problems: list[str]) -> dict[str, Any]:
    """Everything the cost page's template shows; links keep the filters."""
    state = QueryState.of(view.query.filterset, params).on(VIEW)
    lesson = view.lesson
    called: dict[str, set[str]] = {}
    for callout in lesson.callouts:
        called.setdefault(callout.table.key, set()).add(callout.pair.label)
    panels = [
        SharePanel(t, cost_chart.share_chart(t, called.get(t.key, set())), called.get(t.key, set()))
        for t in lesson.tables
    ]
    pooled = [SharePanel(t, cost_chart.share_chart(t, set()), set()) for t in lesson.pooled]
    callouts = [callout_view(c) for c in lesson.callouts]
    kinds = [
        KindPanel(k, cost_chart.kind_chart(k), KIND_NOTES[k.kind], KIND_PHRASES[k.kind])
        for k in view.kinds
    ]
    return {
        "view": view,
        "state": state,
        "headline": callouts[0] if callouts else None,
        "callouts": callouts[1:],
        "panels": panels,
        "pooled": pooled,
        "one_sided": lesson.one_sided,
        "pooling_rule": POOLING_RULE,
        "multi_tag_rule": MULTI_TAG_RULE,
        "kinds": kinds,
        "reported_kinds": [k for k in kinds if k.costs.cases],
        "chips": state.chips(view.query.vocabulary.by_slug),
        "problems": problems,
        "clear_url": state.replace(q="", selected=()).href(),
    }
