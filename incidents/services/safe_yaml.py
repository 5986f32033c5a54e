"""The YAML reader of library files: safe, without aliases, shallow, and of bounded size.

A case file is data typed by hand, so it needs none of YAML's aliases (`&a` / `*a`), whose
expansion makes a few lines into gigabytes; nesting deeper than `MAX_DEPTH` levels (a case file
uses five) and files over `MAX_FILE_BYTES` are refused before they are read. A date that does not
exist (2023-02-30) is kept as text, so that the case reader names the field it is in.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.events import AliasEvent, CollectionStartEvent
from yaml.nodes import Node, ScalarNode

MAX_DEPTH = 10
MAX_FILE_BYTES = 1024 * 1024


class LibraryYamlError(ValueError):
    """A library file that cannot be read; the message says why."""


def _refused(message: str, event: Any) -> ComposerError:
    return ComposerError(None, None, message, event.start_mark)


class LibraryLoader(yaml.SafeLoader):
    """SafeLoader that refuses aliases and anchors, and nesting deeper than MAX_DEPTH."""

    _depth = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        event = self.peek_event()
        if isinstance(event, AliasEvent):
            raise _refused("aliases (*name) are not allowed in library files", event)
        if getattr(event, "anchor", None) is not None:
            raise _refused("anchors (&name) are not allowed in library files", event)
        if isinstance(event, CollectionStartEvent):
            self._depth += 1
            if self._depth > MAX_DEPTH:
                raise _refused(f"nesting is deeper than {MAX_DEPTH} levels", event)
            try:
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1
        return super().compose_node(parent, index)

    def construct_yaml_timestamp(self, node: ScalarNode) -> Any:  # type: ignore[override]
        try:
            return super().construct_yaml_timestamp(node)
        except ValueError:
            return self.construct_scalar(node)  # "2023-02-30": the reader says it is no date


LibraryLoader.add_constructor("tag:yaml.org,2002:timestamp", LibraryLoader.construct_yaml_timestamp)


def load_text(text: str) -> Any:
    """Parse one library document; raises yaml.YAMLError."""
    return yaml.load(text, Loader=LibraryLoader)  # noqa: S506 - a SafeLoader subclass


def load_file(path: Path) -> Any:
    """Parse a library file; raises LibraryYamlError for a file too large, yaml.YAMLError else."""
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise LibraryYamlError(
            f"is {size:,} bytes; library files may be at most {MAX_FILE_BYTES:,} bytes"
        )
    with path.open(encoding="utf-8") as fh:
        return load_text(fh.read())
