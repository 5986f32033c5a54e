"""Live collection: list every kind the checks need through the read-only client, into a Snapshot."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterable

from .client import ApiError
from .client import Forbidden
from .client import ReadOnlyClient
from .compact import Sharer
from .errors import ConfigError
from .kinds import KINDS
from .snapshot import Coverage
from .snapshot import Snapshot
from .snapshot import now_iso


def collect(
    client: ReadOnlyClient,
    kind_keys: Iterable[str],
    namespace: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> Snapshot:
    """List every kind in ``kind_keys`` (paged, projected); record coverage for each."""
    keys = sorted(set(kind_keys))
    specs = [KINDS[k] for k in keys]
    snap = Snapshot(context=client.context, namespace=namespace, collected_at=now_iso())
    snap.server_version = client.server_version()
    disc = client.discover(specs)
    share = Sharer()  # replicas' equal containers, labels, owners: one copy (see compact.py)
    for spec in specs:
        version = disc.version_for(spec)
        if version is None:
            failed = [msg for (g, _v), msg in disc.failed.items() if g == spec.group]
            if spec.key in disc.unsupported:
                served = ", ".join(spec.api_version(v) for v in disc.unsupported[spec.key])
                wanted = ", ".join(spec.api_version(v) for v in spec.versions)
                note = f"served only as {served}; kubegap reads {wanted}"
                snap.coverage[spec.key] = Coverage("error", message=note)
            elif failed:
                snap.coverage[spec.key] = Coverage("error", message=failed[0])
            else:
                snap.coverage[spec.key] = Coverage("absent", message="not served by this server")
            continue
        api_version = spec.api_version(version)

        def on_page(pages: int, count: int, key: str = spec.key) -> None:
            if progress is not None:
                progress(f"{key}: {count} objects, {pages} pages")

        try:
            result = client.list_kind(spec, version, namespace, on_page)
        except Forbidden as exc:
            snap.coverage[spec.key] = Coverage("forbidden", api_version, message=str(exc))
            continue
        except ConfigError:
            raise
        except ApiError as exc:
            snap.coverage[spec.key] = Coverage("error", api_version, message=str(exc))
            continue
        snap.objects[spec.key] = [share(o) for o in result.items]
        notes = ["restarted after 410 Gone"] if result.restarted else []
        if result.truncated:
            notes.append(f"stopped after {len(result.items)} objects (the first {spec.max_items})")
        snap.coverage[spec.key] = Coverage(
            "listed",
            api_version,
            len(result.items),
            result.pages,
            "; ".join(notes) or None,
            result.truncated,
        )
    return snap
