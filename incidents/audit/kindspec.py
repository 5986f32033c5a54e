"""What kubegap knows about one kind it may list: where it is served and how it is kept."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field

from .k8s import Obj


@dataclass(frozen=True)
class KindSpec:
    """One resource kubegap can list (read-only), named the way ``kubectl`` does (resource.group).

    ``versions`` are the API versions kubegap reads, preferred first (discovery picks the first one
    the server serves); ``project`` keeps the fields checks read (see :mod:`.projection`).
    """

    key: str  # "pods", "daemonsets.apps", "pytorchjobs.kubeflow.org"
    group: str  # "" for the core group
    versions: tuple[str, ...]
    resource: str  # plural, as in the URL
    kind: str  # singular Kind, as in objects
    project: Callable[[Obj], Obj] = field(compare=False, repr=False)
    namespaced: bool = True
    crd: bool = False  # installed by a CRD (absence is normal), not built in
    # A server-side filter for the list (``type=Warning`` for events) and a cap on how many
    # objects are read, for kinds that can be huge and where the newest few thousand suffice.
    field_selector: str | None = None
    max_items: int | None = None

    def api_version(self, version: str) -> str:
        return f"{self.group}/{version}" if self.group else version

    def list_path(self, version: str, namespace: str | None = None) -> str:
        base = f"/apis/{self.group}/{version}" if self.group else f"/api/{version}"
        if namespace and self.namespaced:
            return f"{base}/namespaces/{namespace}/{self.resource}"
        return f"{base}/{self.resource}"


def kind_spec(
    key: str,
    versions: tuple[str, ...],
    kind: str,
    project: Callable[[Obj], Obj],
    *,
    namespaced: bool = True,
    crd: bool = False,
    field_selector: str | None = None,
    max_items: int | None = None,
) -> KindSpec:
    """A spec from its ``resource.group`` key (the group is what follows the first dot)."""
    resource, _, group = key.partition(".")
    return KindSpec(
        key, group, versions, resource, kind, project, namespaced, crd, field_selector, max_items
    )
