"""Schema post-processing: the answers every operation may give, documented on every one, and
the facet values the library holds as the enums of the facet parameters.

The schema is made when it is asked for, so its enums are the vocabulary of that moment: a
client (or schemathesis) reading it knows every value a filter accepts. Without a database (say,
`manage.py spectacular` in CI before any migration) the facet parameters stay plain strings.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import DatabaseError

from incidents.facets import FACETS
from incidents.selectors.vocabulary import Vocabulary

logger = logging.getLogger(__name__)

COMMON_RESPONSES = {
    "401": {"description": "The credentials sent are not valid (WWW-Authenticate: Token)"},
    "406": {"description": "No representation for the Accept header sent"},
    "429": {
        "description": "Too many requests; the Retry-After header says how many seconds to wait"
    },
}


def add_common_responses(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """Add the answers any operation can give (bad credentials, throttled) where not given, and
    say that reads need no credentials."""
    for path in result.get("paths", {}).values():
        for method, operation in path.items():
            if method == "get" and {} not in operation.setdefault("security", [{}]):
                operation["security"].append({})  # every read is public
            responses = operation.setdefault("responses", {})
            for code, response in COMMON_RESPONSES.items():
                responses.setdefault(code, response)
            if any(p.get("name") == "page" for p in operation.get("parameters", [])):
                responses.setdefault("404", {"description": "No such page (beyond the last)"})
    return result


def add_vocabulary_enums(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """Give every facet parameter (`symptom`, `not_symptom`, ...) its values as an enum."""
    try:
        vocabulary = Vocabulary.load()
    except DatabaseError as error:  # no database yet: the schema is still valid without enums
        logger.info("schema without facet enums: %s", error)
        return result
    slugs = {name: vocabulary.slugs(spec.facet) for spec in FACETS for name in spec.params}
    for path in result.get("paths", {}).values():
        for operation in path.values():
            for parameter in operation.get("parameters", []):
                values = slugs.get(parameter.get("name"))
                if values and parameter.get("in") == "query":
                    parameter["schema"] = {
                        "type": "array",
                        "items": {"type": "string", "enum": values},
                    }
    return result
