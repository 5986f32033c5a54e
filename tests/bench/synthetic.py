"""A synthetic library of any size in a throwaway PostgreSQL database, written with COPY.

The real library (fixtures/) is loaded first, for its vocabulary and its cases; synthetic cases
fill it up to the size asked. Each synthetic case is tagged like a real one: one organisation,
one or two symptoms, one component, one root cause and, for half of them, a contributing factor,
with the implied ancestors linked as `load_library` links them. Popular values are far more
common than rare ones (weights fall as 1/rank^0.8). Titles and summaries are made of the real
cases' sentences, so a text search finds something. Dates span 2015-2025; one case in ten gives
only a publication date.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections import defaultdict

from django.conf import settings
from django.db import connection
from django.utils import timezone

from incidents.models import Case
from incidents.models import FacetValue
from incidents.services import load_library
from incidents.services.case_rows import CASE_FIELDS
from incidents.services.facet_links import ancestors_by_value
from incidents.services.library_version import bump

PREFIX = "synthetic"
FIRST_DAY = dt.date(2015, 1, 1)
DAYS = 11 * 365
# (facet, how many values a case gets: at least, at most, chance of any at all)
TAGS = [
    ("organisation", 1, 1, 1.0),
    ("symptom", 1, 2, 1.0),
    ("component", 1, 1, 1.0),
    ("root_cause", 1, 1, 1.0),
    ("contributing_factor", 1, 1, 0.5),
]

CASE_COLUMNS = ("slug", *CASE_FIELDS, "created_at", "updated_at")


def build(size: int, *, seed: int = 15) -> int:
    """Fill the (migrated, empty) database up to `size` cases; returns the number of cases."""
    load_library([settings.FIXTURES_DIR])
    missing = size - Case.objects.count()
    if missing > 0:
        _add(missing, random.Random(seed))
    bump()  # bulk writes send no signals
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return Case.objects.count()


def _sentences() -> tuple[list[str], list[str]]:
    """Sentences of the real summaries, and words of the real titles."""
    sentences, title_words = [], []
    for title, summary in Case.objects.values_list("title", "summary"):
        sentences += [s.strip() for s in re.split(r"(?<=\.)\s+", summary) if len(s) > 20]
        title_words += [w for w in title.split() if w.isalpha()]
    return sentences or ["A job failed."], title_words or ["Failure"]


def _weighted_values(rng: random.Random) -> dict[str, tuple[list[int], list[float]]]:
    by_facet: dict[str, list[int]] = defaultdict(list)
    for value_id, facet in FacetValue.objects.order_by("id").values_list("id", "facet"):
        by_facet[facet].append(value_id)
    weighted = {}
    for facet, ids in by_facet.items():
        ids = ids[:]
        rng.shuffle(ids)
        weighted[facet] = (ids, [1 / (rank + 1) ** 0.8 for rank in range(len(ids))])
    return weighted


def _add(count: int, rng: random.Random) -> None:
    sentences, title_words = _sentences()
    values = _weighted_values(rng)
    ancestors = ancestors_by_value()
    now = timezone.now()
    raw = connection.connection  # the psycopg connection, for COPY
    assert raw is not None
    with raw.cursor() as cursor:
        with cursor.copy(f"COPY incidents_case ({', '.join(CASE_COLUMNS)}) FROM STDIN") as copy:
            for i in range(count):
                day = FIRST_DAY + dt.timedelta(days=rng.randrange(DAYS))
                dated = rng.random() >= 0.1
                copy.write_row(
                    (
                        f"{PREFIX}-{i}",
                        " ".join(rng.sample(title_words, min(6, len(title_words)))).capitalize()
                        + f" ({i})",
                        " ".join(rng.sample(sentences, min(3, len(sentences)))),
                        rng.choice(sentences),
                        "incident",
                        "training",
                        day if dated else None,
                        "day",
                        day + dt.timedelta(days=rng.randrange(30)) if dated else None,
                        "day",
                        day + dt.timedelta(days=30),
                        "day",
                        now,
                        now,
                    )
                )
        cursor.execute(
            "SELECT id FROM incidents_case WHERE slug LIKE %s ORDER BY id", [f"{PREFIX}-%"]
        )
        case_ids = [row[0] for row in cursor.fetchall()]
        with cursor.copy(
            "COPY incidents_casefacetlink (case_id, value_id, direct) FROM STDIN"
        ) as copy:
            for case_id in case_ids:
                direct: set[int] = set()
                for facet, low, high, chance in TAGS:
                    if facet in values and rng.random() < chance:
                        ids, weights = values[facet]
                        direct.update(rng.choices(ids, weights, k=rng.randint(low, high)))
                implied = {a for v in direct for a in ancestors.get(v, [])} - direct
                for value_id in direct:
                    copy.write_row((case_id, value_id, True))
                for value_id in implied:
                    copy.write_row((case_id, value_id, False))
        columns = "case_id, position, url, kind, title, archived_url"
        with cursor.copy(f"COPY incidents_source ({columns}) FROM STDIN") as copy:
            for case_id in case_ids:
                url = f"https://example.org/synthetic/{case_id}"
                copy.write_row((case_id, 0, url, "primary", "Synthetic report", ""))
    raw.commit()
