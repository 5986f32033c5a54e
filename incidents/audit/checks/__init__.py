"""The check registry: every check kubegap runs, in a stable order."""

from __future__ import annotations

from ..errors import UsageError
from ..model import Check
from . import alerts
from . import checkpointing
from . import events
from . import gpu_devices
from . import gpu_health
from . import memory
from . import monitoring
from . import platform
from . import preflight
from . import scheduling
from . import serving
from . import training_jobs

_MODULES = (
    gpu_health,
    gpu_devices,
    events,
    monitoring,
    alerts,
    training_jobs,
    checkpointing,
    memory,
    scheduling,
    preflight,
    platform,
    serving,
)
REGISTRY: dict[str, Check] = {c.id: c for m in _MODULES for c in m.CHECKS}
ALL_CHECKS: list[Check] = sorted(REGISTRY.values(), key=lambda c: c.id)


def select(ids: str | None) -> list[Check]:
    """Checks named in a comma-separated list (all when empty); unknown ids are an error."""
    if not ids:
        return list(ALL_CHECKS)
    wanted = [i.strip().upper() for i in ids.split(",") if i.strip()]
    unknown = [i for i in wanted if i not in REGISTRY]
    if unknown:
        raise UsageError(f"unknown check id(s): {', '.join(unknown)} (see kubegap list-checks)")
    return [REGISTRY[i] for i in sorted(set(wanted))]
