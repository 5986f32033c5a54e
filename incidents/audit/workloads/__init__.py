"""One adapter per workload kind: the registry every check and the RBAC manifest read.

Adding a kind means one module here (its :class:`~.base.Adapter`) and one line in
:data:`ADAPTERS`; the kinds list, projection, RBAC, owner resolution and the training-job checks
follow from it.
"""

from __future__ import annotations

from .base import Adapter
from .base import Admission
from .base import Deadline
from .base import PodTemplate
from .base import Restart
from .base import Unreadable
from .batch import DEPLOYMENT
from .batch import JOB
from .batch import STATEFULSET
from .jobset import JOBSET
from .kubeflow import MPIJOB
from .kubeflow import PYTORCHJOB
from .kueue import KUEUE_WORKLOAD
from .lws import LEADERWORKERSET
from .ray import RAYCLUSTER
from .ray import RAYJOB
from .trainer import TRAINJOB
from .volcano import VOLCANO_JOB

__all__ = [
    "ADAPTERS",
    "BY_KEY",
    "Adapter",
    "Admission",
    "Deadline",
    "PodTemplate",
    "Restart",
    "Unreadable",
]

ADAPTERS: tuple[Adapter, ...] = (
    JOB,
    DEPLOYMENT,
    STATEFULSET,
    PYTORCHJOB,
    MPIJOB,
    JOBSET,
    TRAINJOB,
    VOLCANO_JOB,
    RAYJOB,
    RAYCLUSTER,
    LEADERWORKERSET,
    KUEUE_WORKLOAD,
)
BY_KEY: dict[str, Adapter] = {a.key: a for a in ADAPTERS}
