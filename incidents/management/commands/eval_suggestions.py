"""`manage.py eval_suggestions`: suggestion precision and recall on the evaluation set."""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand
from django.core.management.base import CommandError
from django.core.management.base import CommandParser

from incidents.evaluation.suggestions import evaluate_suggestions
from incidents.evaluation.suggestions import load_items
from incidents.models import FacetValue
from incidents.suggest import THRESHOLD
from incidents.suggest import like
from incidents.suggest import prior
from incidents.suggest import suggest_filters
from incidents.suggest import weights

DEFAULT_SET = Path(settings.BASE_DIR) / "tests" / "data" / "retrieval_eval.yaml"


def suggested(text: str, threshold: float = THRESHOLD) -> list[str]:
    """The engine's suggestions for a text as `facet:slug`."""
    return [f"{s.facet}:{s.value.slug}" for s in suggest_filters(text, threshold=threshold)]


class Command(BaseCommand):
    help = (
        "Print suggestion precision and recall on tests/data/retrieval_eval.yaml (the report "
        "half by default), and the time per 500-character text, on the database in use."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--split", choices=["tune", "report", "all"], default="report")
        parser.add_argument("--file", type=Path, default=DEFAULT_SET)
        parser.add_argument("--misses", action="store_true", help="list each sentence's misses")
        parser.add_argument("--threshold", type=float, default=THRESHOLD)
        parser.add_argument(
            "--repeats",
            type=int,
            default=5,
            help="runs per text for the time per 500 characters; the best is kept (default 5)",
        )
        parser.add_argument(
            "--set",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="try another value of an engine weight (tuning on the tune half), e.g. "
            "--set LEARNED_WEIGHT=0.3",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["file"].exists():
            raise CommandError(f"{options['file']} does not exist")
        split = None if options["split"] == "all" else options["split"]
        items = load_items(options["file"], split=split)
        if not items:
            raise CommandError(f"no sentence in split {options['split']!r}")
        if options["repeats"] < 1:
            raise CommandError("--repeats must be at least 1")
        if not FacetValue.objects.exists():
            raise CommandError("the library is empty: run `manage.py load_cases` first")
        threshold = options["threshold"]
        for setting in options["set"]:
            name, _eq, raw = setting.partition("=")
            module = next((m for m in (weights, like, prior) if hasattr(m, name)), None)
            if module is None or not name.isupper():
                raise CommandError(
                    f"{name!r} is not a weight of incidents.suggest.weights, .like or .prior"
                )
            setattr(module, name, type(getattr(module, name))(float(raw)))
        scores = evaluate_suggestions(items, lambda text: suggested(text, threshold))
        self.stdout.write(
            f"suggestions ({options['split']}, {len(items)} sentences, threshold {threshold}): "
            f"precision {scores.precision:.3f} ({scores.hits} right, {scores.wrong} wrong), "
            f"recall {scores.recall:.3f} ({scores.hits} of {scores.gold})"
        )
        if options["misses"]:
            for item in scores.misses:
                self.stdout.write(
                    f"  {item.id}: missed {list(item.missed)} wrong {list(item.wrong)}"
                )
        self.stdout.write(
            f"suggestion time per 500-character text: {_timing(items, options['repeats'])}"
        )


def _timing(items: list[Any], repeats: int = 5) -> str:
    """Each sentence padded or cut to 500 characters; per text the best of `repeats` runs (the
    machine's other work only ever adds time), then the median and p95 over the texts."""
    texts = [((item.text + " ") * (500 // max(1, len(item.text)) + 1))[:500] for item in items]
    best = []
    for text in texts:
        runs = []
        for _ in range(repeats):
            start = time.perf_counter()
            suggest_filters(text)
            runs.append((time.perf_counter() - start) * 1000)
        best.append(min(runs))
    best.sort()
    p95 = best[int(0.95 * (len(best) - 1))]
    return f"median {statistics.median(best):.2f} ms, p95 {p95:.2f} ms (best of {repeats} per text)"
