"""LeaderWorkerSet (leaderworkerset.x-k8s.io/v1): groups of a leader and ``size - 1`` workers.

From the LWS API: ``restartPolicy`` ``RecreateGroupOnPodRestart`` (the default) and
``RecreateGroupAfterStart`` recreate every pod of a group when one pod restarts; ``None`` (and
the deprecated ``Default``) restart only the failed pod, as a StatefulSet does.
"""

from __future__ import annotations

from ..k8s import Obj
from ..kindspec import kind_spec
from ..model import Evidence
from ..projection.core import pick
from ..projection.core import shaped
from ..projection.core import template
from .base import Adapter
from .base import Lookup
from .base import PodTemplate
from .base import Restart
from .walk import count
from .walk import pod_template
from .walk import spec_of

NAME_LABEL = "leaderworkerset.sigs.k8s.io/name"
_WHOLE_GROUP = frozenset({"RecreateGroupOnPodRestart", "RecreateGroupAfterStart"})


def project_lws(obj: Obj) -> Obj:
    spec = obj.get("spec") or {}
    lwt = spec.get("leaderWorkerTemplate") or {}
    kept = {
        **pick(lwt, "size", "restartPolicy"),
        "workerTemplate": template(lwt.get("workerTemplate")),
    }
    if lwt.get("leaderTemplate"):
        kept["leaderTemplate"] = template(lwt["leaderTemplate"])
    lws = {**pick(spec, "replicas"), "leaderWorkerTemplate": kept}
    return shaped(obj, lws, pick(obj.get("status"), "readyReplicas"))


def _lwt(obj: Obj) -> Obj:
    return spec_of(obj).get("leaderWorkerTemplate") or {}


def _templates(obj: Obj, objects: Lookup) -> list[PodTemplate]:
    groups = count(spec_of(obj).get("replicas"))
    lwt = _lwt(obj)
    size = count(lwt.get("size"))
    path = "spec.leaderWorkerTemplate"
    if not lwt.get("leaderTemplate"):
        return [
            pod_template(
                "leader and workers",
                f"{path}.workerTemplate",
                lwt.get("workerTemplate"),
                groups * size,
            )
        ]
    return [
        pod_template("leader", f"{path}.leaderTemplate", lwt["leaderTemplate"], groups),
        pod_template(
            "workers", f"{path}.workerTemplate", lwt.get("workerTemplate"), groups * (size - 1)
        ),
    ]


def _restart(obj: Obj, objects: Lookup) -> Restart:
    policy = _lwt(obj).get("restartPolicy") or "RecreateGroupOnPodRestart"
    if policy in _WHOLE_GROUP:
        return Restart(True, f"restartPolicy {policy} recreates the whole group")
    return Restart(
        False,
        "a failed pod restarts alone; the rest of its group keeps running without it",
        (Evidence("spec.leaderWorkerTemplate.restartPolicy", policy, "RecreateGroupOnPodRestart"),),
    )


LEADERWORKERSET = Adapter(
    spec=kind_spec(
        "leaderworkersets.leaderworkerset.x-k8s.io",
        ("v1",),
        "LeaderWorkerSet",
        project_lws,
        crd=True,
    ),
    templates=_templates,
    training=False,
    gang_labels=(NAME_LABEL,),
    restart=lambda obj, objects: (
        _restart(obj, objects)
        if count(_lwt(obj).get("size")) > 1
        else Restart(None, "groups of one pod")
    ),
    finished=lambda obj: False,
)
