"""The evaluation set's sentences, as typed items (the file's format: tests/data/README.md)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from incidents.services.safe_yaml import safe_load

HALVES = ("tune", "report")


def default_path() -> Path:
    return Path(settings.BASE_DIR) / "tests" / "data" / "retrieval_eval.yaml"


@dataclass(frozen=True)
class EvalItem:
    """One sentence with its gold answers: values named (`facet:slug`) and cases to find."""

    id: str
    split: str
    style: str
    text: str
    values: frozenset[str]
    also_ok: frozenset[str]
    cases: tuple[str, ...]


def load_items(path: Path | None = None, *, half: str = "all") -> list[EvalItem]:
    """The sentences of one half ("tune", "report") or of both ("all"), in file order."""
    if half not in (*HALVES, "all"):
        raise ValueError(f"half must be tune, report or all, not {half!r}")
    document = safe_load((path or default_path()).read_text(encoding="utf-8"))
    return [
        EvalItem(
            id=str(s["id"]),
            split=str(s["split"]),
            style=str(s["style"]),
            text=str(s["text"]),
            values=frozenset(s.get("values") or []),
            also_ok=frozenset(s.get("also_ok") or []),
            cases=tuple(s["cases"]),
        )
        for s in document["sentences"]
        if half == "all" or s["split"] == half
    ]
