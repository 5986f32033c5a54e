"""Writes: loading and validating the library, keeping derived rows in step."""

from incidents.services.facet_links import refresh_implied_links
from incidents.services.library_entries import LibraryError
from incidents.services.library_entries import Problem
from incidents.services.library_files import read_library
from incidents.services.library_load import LoadReport
from incidents.services.library_load import load_library

__all__ = [
    "LibraryError",
    "LoadReport",
    "Problem",
    "load_library",
    "read_library",
    "refresh_implied_links",
]
