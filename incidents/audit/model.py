"""What a check is and what it finds: plain data, no I/O."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field
from dataclasses import fields
from typing import TYPE_CHECKING
from typing import Any
from typing import Literal

if TYPE_CHECKING:
    from .context import Context

Severity = Literal["critical", "high", "medium", "low", "info"]
Status = Literal["fail", "pass", "not_applicable", "not_evaluated", "exempted"]
Confidence = Literal["definitive", "heuristic"]

SEVERITIES: tuple[Severity, ...] = ("critical", "high", "medium", "low", "info")
# Order of findings in reports, and of a check's status: its worst finding's.
STATUSES: tuple[Status, ...] = ("fail", "not_evaluated", "exempted", "not_applicable", "pass")
SEVERITY_RANK: dict[str, int] = {s: i for i, s in enumerate(SEVERITIES)}  # 0 = most severe


@dataclass(frozen=True)
class Resource:
    """The object a finding is about. ``kind == "Cluster"`` means the cluster as a whole."""

    api_version: str
    kind: str
    name: str
    namespace: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"apiVersion": self.api_version, "kind": self.kind}
        if self.namespace:
            out["namespace"] = self.namespace
        out["name"] = self.name
        return out

    @property
    def logical_name(self) -> str:
        """``<namespace>/<Kind>/<name>`` (``_cluster`` for cluster-scoped objects)."""
        return f"{self.namespace or '_cluster'}/{self.kind}/{self.name}"


CLUSTER = Resource("v1", "Cluster", "cluster")


@dataclass(frozen=True)
class Evidence:
    """One observed value at a field path, and what the check expected there."""

    path: str
    observed: Any
    expected: Any

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "observed": self.observed, "expected": self.expected}


@dataclass(frozen=True)
class Result:
    """What a check function returns for one resource (the engine adds the check's metadata).

    ``members``: what a failing workload is made of (replica types, pods); ``examined``: what a
    pass looked at; ``not_seen``: what the check could not see, so a pass never claims more.
    """

    status: Status
    resource: Resource
    message: str
    evidence: tuple[Evidence, ...] = ()
    members: tuple[str, ...] = ()
    examined: tuple[str, ...] = ()
    not_seen: tuple[str, ...] = ()


def fail(
    resource: Resource, message: str, *evidence: Evidence, members: Iterable[str] = ()
) -> Result:
    return Result("fail", resource, message, tuple(evidence), tuple(members))


def passed(
    message: str,
    *evidence: Evidence,
    resource: Resource = CLUSTER,
    examined: Iterable[str] = (),
    not_seen: Iterable[str] = (),
) -> Result:
    return Result("pass", resource, message, tuple(evidence), (), tuple(examined), tuple(not_seen))


def not_applicable(message: str, *evidence: Evidence) -> Result:
    return Result("not_applicable", CLUSTER, message, tuple(evidence))


def not_evaluated(resource: Resource, message: str, *evidence: Evidence) -> Result:
    return Result("not_evaluated", resource, message, tuple(evidence))


CheckFunc = Callable[["Context"], Iterable[Result]]


@dataclass(frozen=True)
class Reference:
    """A public source behind a check (not a library case)."""

    url: str
    title: str


@dataclass(frozen=True)
class Setting:
    """A threshold of a check that a config file may change (``checks: {ID: {name: value}}``)."""

    name: str
    default: int | float
    help: str


@dataclass(frozen=True)
class Check:
    """A check: metadata (data) plus a small function over a :class:`Context`."""

    id: str
    title: str
    severity: Severity
    category: str
    reads: tuple[str, ...]  # kind keys, see kinds.KINDS
    cases: tuple[str, ...]  # library case slugs
    references: tuple[Reference, ...]
    why: str
    remediation: str
    confidence: Confidence
    func: CheckFunc = field(compare=False, repr=False)
    # True when the check must see every namespace (agents, alert rules, burn-in jobs anywhere):
    # under --namespace it is not evaluated rather than judged on a partial view.
    cluster_wide: bool = False
    settings: tuple[Setting, ...] = ()
    # The title says the gap ("GPU containers without a memory limit"); this says what a pass
    # means ("GPU containers have a memory limit"), so "[PASS] <title>" never reads as a failure.
    pass_title: str = ""

    def title_for(self, status: str) -> str:
        """The pass title for a passing check, else the title (the gap it looks for)."""
        if status != "pass":
            return self.title
        return self.pass_title or f"no gap found: {self.title}"


@dataclass(frozen=True)
class Exemption:
    """Why a failing finding is excused: an annotation on the object, or a config rule."""

    source: Literal["annotation", "config"]
    reason: str
    rule: str  # the annotation, or the config rule that matched (``exemptions[2]``)

    def to_dict(self) -> dict[str, str]:
        return {"source": self.source, "reason": self.reason, "rule": self.rule}


@dataclass(frozen=True)
class Finding(Result):
    """A result with the check's metadata attached (and the exemption that excused it, if one
    did); what reports print."""

    check: Check = field(kw_only=True)
    exemption: Exemption | None = field(default=None, kw_only=True)

    @classmethod
    def of(cls, check: Check, result: Result) -> Finding:
        """The finding of `check` for one of its results."""
        return cls(**{f.name: getattr(result, f.name) for f in fields(Result)}, check=check)

    @property
    def severity(self) -> Severity:
        return self.check.severity

    def sort_key(self) -> tuple[Any, ...]:
        r = self.resource
        return (
            STATUSES.index(self.status),
            SEVERITY_RANK[self.check.severity],
            self.check.id,
            r.namespace or "",
            r.kind,
            r.name,
            self.message,
        )
