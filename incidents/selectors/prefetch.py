"""Reading prefetched relations loudly: a relation that was not prefetched raises, never reads empty.

A page that forgets a prefetch must not quietly show less (organisation names once vanished from
a facet-value page that way, and every test still passed) nor quietly run one query per row.
`prefetched(case, "direct_links")` returns what `prefetch_related` stored on the instance, and
raises `MissingPrefetch`, naming the instance and the relation, when nothing was stored; it raises
in production too, since a page with silently missing data is worse than an error page.

Why a helper and not django-seal (a maintained library that turns unprefetched relation access
into warnings): django-seal guards relation descriptors, but the relation this library reads most
is a `Prefetch(..., to_attr="direct_links")` list, which is a plain attribute it cannot see; and it
asks every model to inherit its untyped `SealableModel`, which hides the models from mypy's Django
plugin. Presenters and views read relations through this helper instead of through templates, where
Django swallows a missing attribute.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Model


class MissingPrefetch(LookupError):
    """A relation was read that the selector did not prefetch."""


def prefetched(instance: Model, name: str) -> list[Any]:
    """The rows of relation `name` prefetched on `instance` (with or without `to_attr`)."""
    if name in instance.__dict__:  # Prefetch(..., to_attr=name)
        return list(instance.__dict__[name])
    cache = getattr(instance, "_prefetched_objects_cache", {})
    if name in cache:
        return list(cache[name])
    raise MissingPrefetch(
        f"{type(instance).__name__}.{name} was not prefetched; the selector that fetched this "
        f"{type(instance).__name__} must prefetch it"
    )
