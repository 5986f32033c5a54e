"""Where the API's request counts live: a cache every worker and replica shares (API_RATE_CACHE).

A rate limit counted in each process's memory lets a client through once per worker (2 workers
x 2 replicas: four times the rate), so production counts in a shared cache:

- `db` (the default with DEBUG off): Django's database cache, in the table `api_rate_counts` of
  the library's own database (`manage.py createcachetable` makes it; `make serve` runs it). No
  new service; two queries per API request (a read and a compare-and-set update, whose commit
  on PostgreSQL does not wait for the disk).
- `redis://host:6379/0` (or `rediss://`): Django's Redis cache; needs the `redis` package.
- `locmem` (the default with DEBUG on): this process's memory, for `make run`'s one process.
"""

from __future__ import annotations

import base64
import importlib.util
import pickle
from typing import Any

from django.core.cache.backends.db import DatabaseCache
from django.core.exceptions import ImproperlyConfigured
from django.db import connections
from django.db import router
from django.db import transaction
from django.utils.timezone import now as tz_now

RATE_CACHE_ALIAS = "api_rates"
RATE_CACHE_TABLE = "api_rate_counts"
# Compare-and-set attempts before a count gives up (each lost race means another writer won).
CAS_ATTEMPTS = 20


def rate_cache(url: str, debug: bool) -> dict[str, Any]:
    """The CACHES entry for API_RATE_CACHE (empty: `locmem` under DEBUG, else `db`)."""
    url = url.strip() or ("locmem" if debug else "db")
    scheme, _, rest = url.partition("://")
    if scheme == "db":
        return {
            "BACKEND": "incidents.config.caches.CountingDatabaseCache",
            "LOCATION": rest.strip("/") or RATE_CACHE_TABLE,
            # Culling drops live counts (a client's count starts again): allow many clients.
            "OPTIONS": {"MAX_ENTRIES": 1_000_000},
        }
    if scheme in ("redis", "rediss"):
        if importlib.util.find_spec("redis") is None:
            raise ImproperlyConfigured(
                f"API_RATE_CACHE={url!r} needs the redis package, which is not installed"
            )
        return {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}
    if scheme == "locmem":
        return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "rates"}
    raise ImproperlyConfigured(
        f"API_RATE_CACHE={url!r} is not db, db://<table>, redis://host:port/db or locmem"
    )


class CountingDatabaseCache(DatabaseCache):
    """Django's database cache with an atomic `incr`: a compare-and-set UPDATE, retried when
    another worker changed the count between the read and the write (Django's own `incr` is a
    read then a plain write, so two workers counting at once would count one request)."""

    _table: str  # DatabaseCache's own, from LOCATION

    def incr(self, key: Any, delta: int = 1, version: int | None = None) -> int:
        key = self.make_and_validate_key(key, version=version)
        connection = connections[router.db_for_write(self.cache_model_class)]
        quote = connection.ops.quote_name
        table = quote(self._table)
        now = connection.ops.adapt_datetimefield_value(tz_now().replace(microsecond=0))
        select = (
            f"SELECT {quote('value')} FROM {table} "
            f"WHERE {quote('cache_key')} = %s AND {quote('expires')} > %s"
        )
        update = (
            f"UPDATE {table} SET {quote('value')} = %s "
            f"WHERE {quote('cache_key')} = %s AND {quote('value')} = %s"
        )
        for _ in range(CAS_ATTEMPTS):
            with connection.cursor() as cursor:
                cursor.execute(select, [key, now])
                row = cursor.fetchone()
                if row is None:
                    raise ValueError(f"Key '{key}' not found")
                old = connection.ops.process_clob(row[0])
                value = pickle.loads(base64.b64decode(old.encode())) + delta
                new = base64.b64encode(pickle.dumps(value, self.pickle_protocol)).decode("latin1")
                if self._set_if(connection, cursor, update, [new, key, old]):
                    return int(value)
        raise RuntimeError(f"could not count {key!r}: {CAS_ATTEMPTS} concurrent updates won")

    @staticmethod
    def _set_if(connection: Any, cursor: Any, update: str, params: list[str]) -> bool:
        """Run the compare-and-set UPDATE; whether it changed the row. On PostgreSQL, outside a
        transaction, its commit does not wait for the disk (`synchronous_commit` off for it
        alone): a crash may lose the last counts, and a request does not wait for a flush."""
        if connection.vendor != "postgresql" or connection.in_atomic_block:
            cursor.execute(update, params)
            return bool(cursor.rowcount == 1)
        with transaction.atomic(using=connection.alias):
            cursor.execute("SET LOCAL synchronous_commit TO OFF")
            cursor.execute(update, params)
            return bool(cursor.rowcount == 1)
