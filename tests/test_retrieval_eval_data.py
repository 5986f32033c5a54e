"""The retrieval evaluation set (tests/data/retrieval_eval.yaml) stays well-formed and in step with
the library: every facet value and case it names exists in fixtures/, its halves are big enough and
do not share sentences, and the issue's public examples keep their gold answers.

`check_eval_set` returns every problem at once, each naming the sentence and the field, so an editor
who renames a vocabulary slug sees all sentences that still use the old one.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from incidents.services.library_files import read_library
from incidents.services.safe_yaml import safe_load
from tests.conftest import DATA
from tests.conftest import REPO_ROOT

EVAL_SET = DATA / "retrieval_eval.yaml"
FIXTURES = REPO_ROOT / "fixtures"

SPLITS = ("tune", "report")
STYLES = ("chat", "ticket", "postmortem", "search")
SETTINGS = ("training", "serving", "platform", "evaluation")
REQUIRED_KEYS = {"id", "split", "style", "setting", "text", "values", "cases"}
OPTIONAL_KEYS = {"also_ok"}
MIN_PER_SPLIT = 40
MIN_PER_STYLE = 5  # in each half
MIN_PER_SETTING = 3  # in each half
# Word overlap (Jaccard) above which a tune and a report sentence count as near-paraphrases.
MAX_CROSS_SPLIT_OVERLAP = 0.5

PUBLIC_EXAMPLES = {
    "our nccl timeouts came from a leaking data loader": {
        "symptom:nccl-timeout",
        "root_cause:memory-leak",
        "component:training-data-loader",
    },
    "a gpu fell off the bus in the middle of a training run": {"symptom:gpu-fell-off-bus"},
    "the api server fell over when every node started listing pods at once": {
        "symptom:kubernetes-api-unresponsive",
        "root_cause:control-plane-overload",
    },
}
SEED_CASE = "acme-seren-kalos-pretraining-failures"

_WORD = re.compile(r"[a-z0-9]+")


def library_names(fixtures: Path = FIXTURES) -> tuple[dict[str, str | None], set[str]]:
    """Every vocabulary value as `facet:slug`, mapped to its parent's `facet:slug` (or None), and
    the slug of every case under `fixtures`."""
    data = read_library([fixtures])
    values = {
        f"{entry.facet}:{entry.slug}": f"{entry.facet}:{entry.parent}" if entry.parent else None
        for entry in data.vocabulary
    }
    return values, {case.slug for case in data.cases}


def _ancestors(value: str, parents: dict[str, str | None]) -> list[str]:
    found: list[str] = []
    parent = parents.get(value)
    while parent is not None and parent not in found:
        found.append(parent)
        parent = parents.get(parent)
    return found


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _check_value_list(
    where: str, field: str, raw: Any, known_values: dict[str, str | None], problems: list[str]
) -> list[str]:
    if not isinstance(raw, list):
        problems.append(f"{where}: {field} must be a list of facet:slug")
        return []
    for item in raw:
        if not isinstance(item, str) or ":" not in item:
            problems.append(f"{where}: {field} entry {item!r} is not written facet:slug")
        elif item not in known_values:
            problems.append(f"{where}: {field} names {item!r}, which is not in fixtures/vocabulary")
    for item, count in Counter(x for x in raw if isinstance(x, str)).items():
        if count > 1:
            problems.append(f"{where}: {field} lists {item!r} twice")
    return [x for x in raw if isinstance(x, str)]


def _check_sentence(
    sentence: Any, known_values: dict[str, str | None], known_cases: set[str], problems: list[str]
) -> None:
    if not isinstance(sentence, dict):
        problems.append(f"sentence {sentence!r} is not a mapping")
        return
    where = f"sentence {sentence.get('id', '?')}"
    keys = set(sentence)
    if missing := REQUIRED_KEYS - keys:
        problems.append(f"{where}: missing {', '.join(sorted(missing))}")
    if unknown := keys - REQUIRED_KEYS - OPTIONAL_KEYS:
        problems.append(f"{where}: unknown field {', '.join(sorted(unknown))}")
    split, style = sentence.get("split"), sentence.get("style")
    for field, allowed in (("split", SPLITS), ("style", STYLES), ("setting", SETTINGS)):
        if field in sentence and sentence[field] not in allowed:
            problems.append(f"{where}: {field} {sentence[field]!r} is not one of {allowed}")
    ident = sentence.get("id")
    if split in SPLITS and isinstance(ident, str) and not re.fullmatch(rf"{split[0]}\d+", ident):
        problems.append(f"{where}: a {split} sentence's id is {split[0]} followed by digits")
    text = sentence.get("text")
    if not isinstance(text, str) or not text.strip():
        problems.append(f"{where}: text must be non-empty")
    elif style == "search" and not 2 <= len(text.split()) <= 4:
        problems.append(f"{where}: a search is 2-4 words, not {len(text.split())}")
    gold = _check_value_list(where, "values", sentence.get("values", []), known_values, problems)
    also = _check_value_list(where, "also_ok", sentence.get("also_ok", []), known_values, problems)
    for item in sorted(set(gold) & set(also)):
        problems.append(f"{where}: {item!r} is in both values and also_ok")
    for item in gold:
        for parent in _ancestors(item, known_values):
            if parent not in gold and parent not in also:
                problems.append(
                    f"{where}: {parent!r}, the parent of {item!r}, belongs in also_ok: "
                    "suggesting the broader value is not wrong"
                )
    cases = sentence.get("cases")
    if not isinstance(cases, list) or not cases:
        problems.append(f"{where}: cases must list at least one case")
    else:
        for slug in cases:
            if slug not in known_cases:
                problems.append(f"{where}: case {slug!r} is not in fixtures/cases")


def check_eval_set(
    document: Any, known_values: dict[str, str | None], known_cases: set[str]
) -> list[str]:
    """Every problem of the evaluation set, as messages naming the sentence and the field."""
    if not isinstance(document, dict) or document.get("version") != 1:
        return ["the file must be a mapping with version: 1"]
    sentences = document.get("sentences")
    if not isinstance(sentences, list):
        return ["sentences must be a list"]
    problems: list[str] = []
    for sentence in sentences:
        _check_sentence(sentence, known_values, known_cases, problems)
    good = [s for s in sentences if isinstance(s, dict)]
    for ident, count in Counter(s.get("id") for s in good).items():
        if count > 1:
            problems.append(f"id {ident!r} is used {count} times")
    for split in SPLITS:
        half = [s for s in good if s.get("split") == split]
        if len(half) < MIN_PER_SPLIT:
            problems.append(
                f"the {split} half has {len(half)} sentences, fewer than {MIN_PER_SPLIT}"
            )
        styles = Counter(s.get("style") for s in half)
        settings = Counter(s.get("setting") for s in half)
        for style in STYLES:
            if styles[style] < MIN_PER_STYLE:
                problems.append(f"the {split} half has {styles[style]} {style} sentences")
        for setting in SETTINGS:
            if settings[setting] < MIN_PER_SETTING:
                problems.append(f"the {split} half has {settings[setting]} {setting} sentences")
    words = {
        split: [(s.get("id"), _words(s["text"])) for s in good if s.get("split") == split]
        for split in SPLITS
        if all(isinstance(s.get("text"), str) for s in good)
    }
    tune, report = words.get("tune", []), words.get("report", [])
    for tune_id, tune_words in tune:
        for report_id, report_words in report:
            overlap = len(tune_words & report_words) / max(1, len(tune_words | report_words))
            if overlap > MAX_CROSS_SPLIT_OVERLAP:
                problems.append(
                    f"sentences {tune_id} (tune) and {report_id} (report) share {overlap:.0%} of "
                    "their words: the halves must not share a sentence or a near-paraphrase"
                )
    return problems


@pytest.fixture(scope="module")
def document() -> Any:
    return safe_load(EVAL_SET.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def library() -> tuple[dict[str, str | None], set[str]]:
    return library_names()


def test_the_evaluation_set_is_well_formed_and_names_only_existing_values_and_cases(
    document: Any, library: tuple[dict[str, str | None], set[str]]
) -> None:
    values, cases = library
    problems = check_eval_set(document, values, cases)
    assert not problems, "\n".join(problems)


def test_the_public_examples_are_in_the_tune_half_with_their_gold(document: Any) -> None:
    by_text = {s["text"]: s for s in document["sentences"]}
    for text, gold in PUBLIC_EXAMPLES.items():
        assert text in by_text, f"public example missing: {text!r}"
        sentence = by_text[text]
        assert sentence["split"] == "tune"
        assert gold <= set(sentence["values"])
    assert SEED_CASE in by_text["our nccl timeouts came from a leaking data loader"]["cases"]


def test_some_sentences_name_no_value_so_precision_is_measured(document: Any) -> None:
    for split in SPLITS:
        half = [s for s in document["sentences"] if s["split"] == split]
        assert any(not s["values"] for s in half), f"every {split} sentence names a value"


def test_the_check_reports_an_unknown_slug_and_a_missing_case(
    document: Any, library: tuple[dict[str, str | None], set[str]]
) -> None:
    values, cases = library
    broken = safe_load(yaml.safe_dump(document))
    first = broken["sentences"][0]
    first["values"].append("symptom:nccl-timeouts")
    first["cases"] = ["no-such-case"]
    problems = check_eval_set(broken, values, cases)
    assert (
        f"sentence {first['id']}: values names 'symptom:nccl-timeouts', "
        "which is not in fixtures/vocabulary" in problems
    )
    assert f"sentence {first['id']}: case 'no-such-case' is not in fixtures/cases" in problems


def test_the_check_reports_a_sentence_copied_into_the_other_half(
    document: Any, library: tuple[dict[str, str | None], set[str]]
) -> None:
    values, cases = library
    broken = safe_load(yaml.safe_dump(document))
    copied = dict(broken["sentences"][0], id="r99", split="report")
    broken["sentences"].append(copied)
    problems = check_eval_set(broken, values, cases)
    assert any("r99 (report) share 100%" in problem for problem in problems)
