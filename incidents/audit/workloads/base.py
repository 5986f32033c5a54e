"""What an adapter says about one workload kind, in kind-neutral terms.

An :class:`Adapter` is the one entry per kind: its :class:`~..kindspec.KindSpec` (where it is
served, how it is projected), a walker that lists its pod templates with replica counts, whether
it is a training kind, the pod labels that name it, and its semantics for the training-job checks:
does the whole gang restart when one member fails (:class:`Restart`), what bounds its wall-clock
time (:class:`Deadline`), and may a partial gang be admitted (:class:`Admission`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from typing import Any
from typing import NamedTuple
from typing import Protocol

from ..k8s import Obj
from ..k8s import is_finished
from ..kindspec import KindSpec
from ..model import Evidence

UNREADABLE = "kubegap.io/unreadable"  # set by kinds.project on an object its projector rejected
UNREADABLE_FIELD = "kubegap.io/unreadable-field"  # the field at fault, when it is known


class Unreadable(ValueError):
    """An object whose pod templates cannot be read (a non-numeric replica count, a missing runtime)."""


@dataclass(frozen=True)
class PodTemplate:
    """One pod template of a workload and how many pods it stands for."""

    role: str  # "Worker", "replicatedJobs[workers]", "task worker", "pods"
    path: str  # where the pod spec sits in the object, e.g. "spec.pytorchReplicaSpecs.Worker.template.spec"
    spec: Obj  # projected pod spec
    replicas: int
    labels: dict[str, str] = field(default_factory=dict)
    restart_policy: str | None = None  # the replica-level policy where the kind has one


@dataclass(frozen=True)
class Restart:
    """Whether a failure of one member restarts the whole gang. ``together`` None: the API cannot
    show it (restarts happen inside the framework), so the check does not judge it."""

    together: bool | None
    how: str  # what restarts it, or why nothing does
    evidence: tuple[Evidence, ...] = ()


class Deadline(NamedTuple):
    """The wall-clock bound of a run: where it is set and its value (None: unset)."""

    path: str
    seconds: Any


@dataclass(frozen=True)
class Admission:
    """A gang-admission setting: with ``min_available`` < ``total`` a partial gang can start."""

    path: str
    min_available: int
    total: int


class Lookup(Protocol):
    """Listed objects by kind key, namespace and name (a TrainJob's runtime, for one)."""

    def find(self, key: str, namespace: str | None, name: str) -> Obj | None: ...


def _no_templates(obj: Obj, objects: Lookup) -> list[PodTemplate]:
    return []


@dataclass(frozen=True)
class Adapter:
    """Everything kubegap knows about one workload kind."""

    spec: KindSpec
    templates: Callable[[Obj, Lookup], list[PodTemplate]] = _no_templates
    training: bool = True  # a training kind (checkpointing applies), not a serving one
    gang_labels: tuple[str, ...] = ()  # pod labels whose value is the object's name
    restart: Callable[[Obj, Lookup], Restart] | None = None  # None: not a gang kind
    deadline: Callable[[Obj, Lookup], Deadline] | None = None  # None: the kind has no bound
    admission: Callable[[Obj], Admission | None] | None = None
    finished: Callable[[Obj], bool] = is_finished
    # Kinds the walker also reads, without pods of their own (a TrainJob's runtimes).
    extra_kinds: tuple[KindSpec, ...] = ()

    @property
    def key(self) -> str:
        return self.spec.key

    @property
    def reads(self) -> tuple[str, ...]:
        """Every kind key this adapter needs listed."""
        return (self.spec.key, *(k.key for k in self.extra_kinds))
