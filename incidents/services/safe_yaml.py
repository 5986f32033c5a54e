"""The YAML reader of library files: safe, without aliases, shallow, and of bounded size.

A case file is data typed by hand, so it needs none of YAML's aliases (`&a` / `*a`), whose
expansion makes a few lines into gigabytes; nesting deeper than `MAX_DEPTH` levels (a case file
uses five) and files over `MAX_FILE_BYTES` are refused before they are read. A date that does not
exist (2023-02-30) is kept as text, so that the case reader names the field it is in.

Where PyYAML was built with libyaml, a document is read with libyaml's scanner and parser (about
four times faster: `load_cases` reads the seeded library in a tenth of a second, not half) and
composed and constructed in Python with the same checks; a document that libyaml refuses is read
again with PyYAML's own parser, so that the message (line, column, the line quoted) is PyYAML's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.composer import ComposerError
from yaml.constructor import SafeConstructor
from yaml.events import AliasEvent
from yaml.events import CollectionStartEvent
from yaml.nodes import Node
from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

MAX_DEPTH = 10
MAX_FILE_BYTES = 1024 * 1024


class LibraryYamlError(ValueError):
    """A library file that cannot be read; the message says why."""


def _refused(message: str, event: Any) -> ComposerError:
    return ComposerError(None, None, message, event.start_mark)


class _Checks:
    """Composing that refuses aliases and anchors, and nesting deeper than MAX_DEPTH; dates that
    do not exist kept as text. Mixed in before a composer and a constructor."""

    _depth = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        event = self.peek_event()  # type: ignore[attr-defined]
        if isinstance(event, AliasEvent):
            raise _refused("aliases (*name) are not allowed in library files", event)
        if getattr(event, "anchor", None) is not None:
            raise _refused("anchors (&name) are not allowed in library files", event)
        if isinstance(event, CollectionStartEvent):
            self._depth += 1
            if self._depth > MAX_DEPTH:
                raise _refused(f"nesting is deeper than {MAX_DEPTH} levels", event)
            try:
                return super().compose_node(parent, index)  # type: ignore[misc, no-any-return]
            finally:
                self._depth -= 1
        return super().compose_node(parent, index)  # type: ignore[misc]

    def construct_yaml_timestamp(self, node: ScalarNode) -> Any:
        try:
            return super().construct_yaml_timestamp(node)  # type: ignore[misc]
        except ValueError:
            return self.construct_scalar(node)  # type: ignore[attr-defined]  # "2023-02-30": no date


class LibraryLoader(_Checks, yaml.SafeLoader):
    """SafeLoader that refuses aliases and anchors, and nesting deeper than MAX_DEPTH."""


LibraryLoader.add_constructor(  # type: ignore[type-var]
    "tag:yaml.org,2002:timestamp", LibraryLoader.construct_yaml_timestamp
)

_FastLoader: type | None
try:
    from yaml._yaml import CParser
except ImportError:  # PyYAML without libyaml: the Python parser only
    _FastLoader = None
else:

    class _LibyamlLoader(_Checks, Composer, CParser, SafeConstructor, Resolver):
        """LibraryLoader's checks and construction over libyaml's parser (its events)."""

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)

    _LibyamlLoader.add_constructor(  # type: ignore[type-var]
        "tag:yaml.org,2002:timestamp", _LibyamlLoader.construct_yaml_timestamp
    )
    _FastLoader = _LibyamlLoader


def load_text(text: str) -> Any:
    """Parse one library document; raises yaml.YAMLError."""
    if _FastLoader is not None:
        try:
            return yaml.load(text, Loader=_FastLoader)  # noqa: S506 - safe construction only
        except (yaml.YAMLError, UnicodeError):
            pass  # read again below: the refusal, in PyYAML's words
    return yaml.load(text, Loader=LibraryLoader)  # noqa: S506 - a SafeLoader subclass


_SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> Any:
    """`yaml.safe_load`, with libyaml's loader where PyYAML has it: for the project's own data
    files (the evaluation set: a quarter of a second each time with PyYAML's, 25 ms with this)."""
    return yaml.load(text, Loader=_SAFE_LOADER)  # noqa: S506 - a safe loader


def load_file(path: Path) -> Any:
    """Parse a library file; raises LibraryYamlError for a file too large, yaml.YAMLError else."""
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise LibraryYamlError(
            f"is {size:,} bytes; library files may be at most {MAX_FILE_BYTES:,} bytes"
        )
    with path.open(encoding="utf-8") as fh:
        return load_text(fh.read())
