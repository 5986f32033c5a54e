"""Reading the library's YAML files into validated entries, without touching the database.

Every problem is collected with the file, the case (or vocabulary entry) and the field it concerns,
so an editor sees all mistakes of a change at once. See fixtures/README.md for the format.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from incidents.facets import FACETS
from incidents.services.case_fields import SLUG_MAX
from incidents.services.case_fields import FieldReader
from incidents.services.case_fields import case_entry
from incidents.services.library_entries import SHARED_KINDS
from incidents.services.library_entries import SLUG_RE
from incidents.services.library_entries import CaseEntry
from incidents.services.library_entries import LibraryData
from incidents.services.library_entries import LibraryError
from incidents.services.library_entries import Problem
from incidents.services.library_entries import SharedEntry
from incidents.services.library_entries import VocabularyEntry
from incidents.services.safe_yaml import LibraryYamlError
from incidents.services.safe_yaml import load_file
from incidents.text import spelling_key

ALIAS_MAX = 150  # FacetAlias.text


def _load_yaml(path: Path, problems: list[Problem], display: str) -> Any:
    try:
        return load_file(path)
    except LibraryYamlError as exc:
        problems.append(Problem(display, None, None, str(exc)))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problems.append(Problem(display, None, None, f"is not valid YAML{where}: {exc}"))
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(Problem(display, None, None, f"cannot be read: {exc}"))
    return None


def library_files(paths: Iterable[Path]) -> Iterator[tuple[str, Path]]:
    """Yield (role, file) for every library file under the given files or folders.

    The role is the folder a file sits in: "vocabulary", "shared" or "cases". Folders are walked in
    sorted order so that loading is deterministic.
    """
    for path in paths:
        if path.is_dir():
            for role in ("vocabulary", "shared", "cases"):
                base = path if path.name == role else path / role
                if base.is_dir():
                    for file in sorted(base.glob("*.yaml")):
                        yield role, file
        else:
            yield path.parent.name, path


def read_library(paths: Iterable[Path], *, root: Path | None = None) -> LibraryData:
    """Read and validate library files; raise LibraryError listing every problem found."""
    data, problems = read_library_collecting(paths, root=root)
    if problems:
        raise LibraryError(problems)
    return data


def read_library_collecting(
    paths: Iterable[Path], *, root: Path | None = None
) -> tuple[LibraryData, list[Problem]]:
    """Read and validate library files: every entry that could be read, and every problem.

    The loader goes on to check the entries against the database, so that one run lists the
    problems of the files' format and of their references together.
    """
    paths = list(paths)
    problems: list[Problem] = []
    data = LibraryData()
    seen_any = False
    for given in paths:
        if not given.exists():
            problems.append(Problem(str(given), None, None, "does not exist"))
    for role, path in library_files(p for p in paths if p.exists()):
        seen_any = True
        display = _display(path, root)
        if path.suffix != ".yaml":
            problems.append(Problem(display, None, None, "is not a .yaml file"))
            continue
        if role == "vocabulary":
            _read_vocabulary(path, display, data, problems)
        elif role == "shared":
            _read_shared(path, display, data, problems)
        elif role == "cases":
            _read_case(path, display, data, problems)
        else:
            problems.append(
                Problem(display, None, None, "is not in a vocabulary/, shared/ or cases/ folder")
            )
    if not seen_any and not problems:
        problems.append(
            Problem(", ".join(str(p) for p in paths), None, None, "holds no case files")
        )
    _check_duplicates(data, problems)
    return data, problems


def _display(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return str(path.resolve().relative_to(root.resolve()))
        except ValueError:
            pass
    return str(path)


def _facet_of(path: Path) -> str | None:
    for spec in FACETS:
        if path.stem == spec.facet or path.stem.startswith(f"{spec.facet}-"):
            return spec.facet
    return None


def _mapping_entries(
    path: Path, display: str, problems: list[Problem], *, noun: str, keys: set[str]
) -> Iterator[tuple[FieldReader, dict[str, Any]]]:
    """Each mapping of a YAML list file with a reader for its fields; other shapes are problems."""
    raw = _load_yaml(path, problems, display)
    if raw is None:
        return
    if not isinstance(raw, list):
        problems.append(Problem(display, None, None, f"must be a YAML list of {noun} entries"))
        return
    for index, item in enumerate(raw):
        label = f"{noun} {item.get('slug', f'#{index + 1}')!r}" if isinstance(item, dict) else None
        c = FieldReader(problems, display, label or f"entry #{index + 1}")
        if not isinstance(item, dict):
            c.add(None, f"must be a mapping with {', '.join(sorted(keys))}")
            continue
        c.unknown_keys(item, keys)
        yield c, item


def _read_vocabulary(path: Path, display: str, data: LibraryData, problems: list[Problem]) -> None:
    facet = _facet_of(path)
    if facet is None:
        problems.append(
            Problem(
                display,
                None,
                None,
                f"file name must start with one of {', '.join(s.facet for s in FACETS)}",
            )
        )
        return
    keys = {"slug", "name", "description", "parent", "aliases", "phrases", "ambiguous"}
    for c, item in _mapping_entries(path, display, problems, noun="value", keys=keys):
        slug = c.slug(item.get("slug"), "slug")
        name = c.text(item, "name", required=True, max_len=150)
        description = c.text(item, "description", required=False)
        parent = item.get("parent")
        if parent is not None:
            parent = c.slug(parent, "parent") or None
            if parent == slug:
                c.add("parent", "a value cannot be its own parent")
        aliases = _word_list(c, item, "aliases")
        phrases = _word_list(c, item, "phrases")
        ambiguous = _word_list(c, item, "ambiguous")
        spellings = {spelling_key(t) for t in (name, *aliases, *phrases)}
        for a_index, word in enumerate(ambiguous):
            if spelling_key(word) not in spellings:
                c.add(
                    f"ambiguous[{a_index}]",
                    f"{word!r} is not the name, an alias or a phrase of this value",
                )
        if slug and name:
            data.vocabulary.append(
                VocabularyEntry(
                    facet,
                    slug,
                    name,
                    description,
                    parent,
                    tuple(aliases),
                    display,
                    phrases=tuple(phrases),
                    ambiguous=tuple(ambiguous),
                )
            )


def _word_list(c: FieldReader, item: dict[str, Any], key: str) -> list[str]:
    """A list of words or phrases (aliases, phrases, ambiguous), whitespace collapsed."""
    raw = item.get(key) or []
    found: list[str] = []
    if not isinstance(raw, list):
        c.add(key, "must be a list of words")
        return found
    for index, text in enumerate(raw):
        if not isinstance(text, str) or not text.strip():
            c.add(f"{key}[{index}]", "must be non-empty text")
        elif words := c.words(text, f"{key}[{index}]", max_len=ALIAS_MAX):
            found.append(words)
    return found


def _read_shared(path: Path, display: str, data: LibraryData, problems: list[Problem]) -> None:
    kind = next((k for k in SHARED_KINDS if path.stem == k or path.stem.startswith(f"{k}-")), None)
    if kind is None:
        problems.append(
            Problem(
                display, None, None, f"file name must start with one of {', '.join(SHARED_KINDS)}"
            )
        )
        return
    for c, item in _mapping_entries(path, display, problems, noun="entry", keys={"slug", "text"}):
        slug = c.slug(item.get("slug"), "slug")
        text = c.text(item, "text", required=True)
        if slug and text:
            data.shared.append(SharedEntry(kind, slug, text, display))


def _read_case(path: Path, display: str, data: LibraryData, problems: list[Problem]) -> None:
    slug = path.stem
    c = FieldReader(problems, display, f"case '{slug}'")
    if not SLUG_RE.match(slug):
        c.add(None, "the file name must be the case slug (lower-case letters, digits, hyphens)")
        return
    if len(slug) > SLUG_MAX:
        c.add(None, f"the file name (the case slug) is {len(slug)} characters; at most {SLUG_MAX}")
        return
    raw = _load_yaml(path, problems, display)
    if raw is None:
        if not any(p.file == display for p in problems):
            c.add(None, "the file is empty")
        return
    if not isinstance(raw, dict):
        c.add(None, "must be a YAML mapping of fields")
        return
    data.cases.append(case_entry(c, slug, display, raw))


def _check_duplicates(data: LibraryData, problems: list[Problem]) -> None:
    """Refuse two definitions of one slug, and one spelling (a name or an alias) for two values.

    Spellings are compared across facets too: an alias that named a symptom and a root cause, or a
    component and an organisation, would make a search suggest both.
    """
    by_slug: dict[tuple[str, str], VocabularyEntry] = {}
    by_key: dict[str, tuple[VocabularyEntry, str]] = {}
    for entry in data.vocabulary:
        label = f"value '{entry.slug}'"
        first = by_slug.get((entry.facet, entry.slug))
        if first:
            problems.append(
                Problem(entry.file, label, "slug", f"is already defined in {first.file}")
            )
            continue
        by_slug[(entry.facet, entry.slug)] = entry
        for fieldname, text in [("name", entry.name), *(("aliases", a) for a in entry.aliases)]:
            key = spelling_key(text)
            other = by_key.get(key)
            if other and other[0] is not entry:
                facet = "" if other[0].facet == entry.facet else f"{other[0].facet} "
                problems.append(
                    Problem(
                        entry.file,
                        label,
                        fieldname,
                        f"{text!r} is the same spelling as {other[1]!r} of {facet}value "
                        f"'{other[0].slug}' ({other[0].file}); a name or alias names one value",
                    )
                )
            elif other and other[0] is entry and fieldname == "aliases":
                problems.append(
                    Problem(entry.file, label, fieldname, f"{text!r} repeats a name or alias")
                )
            else:
                by_key[key] = (entry, text)
    _check_phrases(data, by_key, problems)
    seen_shared: dict[tuple[str, str], SharedEntry] = {}
    for shared in data.shared:
        first_shared = seen_shared.get((shared.kind, shared.slug))
        if first_shared:
            problems.append(
                Problem(
                    shared.file,
                    f"entry '{shared.slug}'",
                    "slug",
                    f"is already defined in {first_shared.file}",
                )
            )
        seen_shared[(shared.kind, shared.slug)] = shared
    seen_cases: dict[str, CaseEntry] = {}
    for case in data.cases:
        if case.slug in seen_cases:
            problems.append(
                Problem(
                    case.file,
                    f"case '{case.slug}'",
                    None,
                    f"is already in {seen_cases[case.slug].file}",
                )
            )
        seen_cases[case.slug] = case


def _check_phrases(
    data: LibraryData,
    spellings: dict[str, tuple[VocabularyEntry, str]],
    problems: list[Problem],
) -> None:
    """A phrase says one value in other words: never a name or alias, never another's phrase."""
    seen: dict[str, VocabularyEntry] = {}
    for entry in data.vocabulary:
        label = f"value '{entry.slug}'"
        for text in entry.phrases:
            key = spelling_key(text)
            named = spellings.get(key)
            if named is not None:
                problems.append(
                    Problem(
                        entry.file,
                        label,
                        "phrases",
                        f"{text!r} is already the name or an alias of '{named[0].slug}'",
                    )
                )
            elif key in seen:
                other = "this value" if seen[key] is entry else f"'{seen[key].slug}'"
                problems.append(
                    Problem(
                        entry.file, label, "phrases", f"{text!r} is already a phrase of {other}"
                    )
                )
            else:
                seen[key] = entry
