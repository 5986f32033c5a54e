"""The helpers every projection uses: metadata, containers, volumes, pod templates, job specs."""

from __future__ import annotations

import re
from typing import Any

from ..k8s import GPU_DEVICE_PATH
from ..k8s import Obj

MAX_STR = 512
MAX_ARGS = 64
MAX_EXPR = 4000
MAX_CONFIG_VALUE = 65536
# Environment variables: names kept for these prefixes and words (what a check may name), values
# only for ENV_VALUES_READ, the settings checks compare; a name may hold a secret
# (CKPT_S3_SECRET_ACCESS_KEY), so no other value is kept. Of a checkpoint variable whose value is
# an object-store URL only the scheme is kept ("objectStore": "s3"), which CKPT-002 reads.
_ENV_NAME_PREFIXES = ("NCCL_", "TORCH_", "PYTORCH_", "PET_", "DP_", "DCGM_EXPORTER_")
_ENV_NAME_WORDS = ("CHECKPOINT", "CKPT")
ENV_VALUES_READ = frozenset(
    {
        "TORCH_NCCL_ENABLE_MONITORING",  # JOB-002
        "TORCH_NCCL_ASYNC_ERROR_HANDLING",  # JOB-002
        "NCCL_ASYNC_ERROR_HANDLING",  # JOB-002
        "TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC",  # JOB-002
        "DP_DISABLE_HEALTHCHECKS",  # GPU-004
        "PET_MAX_RESTARTS",  # JOB-003 (elastic torchrun)
    }
)
OBJECT_STORE = re.compile(r"\b(s3|gs|gcs|az|abfss?|hdfs|oss|wasbs?)://")
_DROP_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration",)
_RESOURCE_KEYS = ("cpu", "memory", "ephemeral-storage")


_JSON_TYPES = {
    str: "a string",
    bool: "a boolean",
    int: "a number",
    float: "a number",
    list: "a list",
}


class Malformed(ValueError):
    """A field checks read that is present with the wrong type (``status: "x"``): the object is
    reported as unreadable, naming the field, instead of being read as if the field were empty."""

    def __init__(self, path: str, expected: str, value: Any) -> None:
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:39] + "…"
        kind = _JSON_TYPES.get(type(value), "a mapping" if isinstance(value, dict) else "a value")
        super().__init__(f"{path} is {kind} ({shown}), not {expected}")
        self.path = path


def mapping(value: Any, path: str) -> Obj:
    """``value`` if it is a mapping, ``{}`` if it is absent; :class:`Malformed` otherwise."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise Malformed(path, "a mapping", value)
    return value


def sequence(value: Any, path: str) -> list[Any]:
    """``value`` if it is a list, ``[]`` if it is absent; :class:`Malformed` otherwise."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise Malformed(path, "a list", value)
    return value


def mappings(value: Any, path: str) -> list[Obj]:
    """A list of mappings (conditions, containers, taints), each item checked."""
    return [mapping(item, f"{path}[{i}]") for i, item in enumerate(sequence(value, path))]


def check_shape(obj: Obj) -> None:
    """:class:`Malformed` when a field every kind shares has the wrong type: metadata (its labels,
    annotations and owner references), spec and status must be mappings when present."""
    meta = mapping(obj.get("metadata"), "metadata")
    mapping(meta.get("labels"), "metadata.labels")
    mapping(meta.get("annotations"), "metadata.annotations")
    mappings(meta.get("ownerReferences"), "metadata.ownerReferences")
    mapping(obj.get("spec"), "spec")
    mapping(obj.get("status"), "status")


def _s(value: Any, limit: int = MAX_STR) -> Any:
    if isinstance(value, str) and len(value) > limit:
        return value[:limit]
    return value


def _strs(values: Any) -> list[str] | None:
    if not isinstance(values, list):
        return None
    return [str(_s(v)) for v in values[:MAX_ARGS]]


def pick(source: Any, *keys: str) -> Obj:
    """The named keys of a mapping, those absent or None left out."""
    if not isinstance(source, dict):
        return {}
    return {k: source[k] for k in keys if source.get(k) is not None}


def shaped(obj: Obj, spec: Obj, status: Obj | None = None) -> Obj:
    """The projected form every kind shares: its metadata, the spec and status fields kept."""
    return {"metadata": metadata(obj), "spec": spec, "status": status or {}}


def prune(obj: Obj) -> Obj:
    """Drop keys whose value is None, so absent fields stay absent."""
    return {k: v for k, v in obj.items() if v is not None}


def _resources(res: Any) -> Obj | None:
    if not isinstance(res, dict):
        return None
    out: Obj = {}
    for part in ("limits", "requests"):
        values = res.get(part)
        if isinstance(values, dict):
            kept = {k: str(v) for k, v in values.items() if k in _RESOURCE_KEYS or "/" in k}
            if kept:
                out[part] = kept
    claims = res.get("claims")  # DRA: which of the pod's resourceClaims the container uses
    if isinstance(claims, list):
        kept_claims = [pick(c, "name", "request") for c in claims if isinstance(c, dict)]
        if kept_claims:
            out["claims"] = kept_claims
    return out or None


def metadata(obj: Obj) -> Obj:
    meta = obj.get("metadata") or {}
    annotations = {
        k: _s(v, 256)
        for k, v in (meta.get("annotations") or {}).items()
        if k not in _DROP_ANNOTATIONS and isinstance(v, str) and len(v) <= 1024
    }
    owners = [
        prune(
            {
                "apiVersion": o.get("apiVersion"),
                "kind": o.get("kind"),
                "name": o.get("name"),
            }
        )
        for o in meta.get("ownerReferences") or []
    ]
    return prune(
        {
            "name": meta.get("name"),
            "namespace": meta.get("namespace"),
            "deletionTimestamp": meta.get("deletionTimestamp"),
            "labels": dict(meta.get("labels") or {}) or None,
            "annotations": annotations or None,
            "ownerReferences": owners or None,
        }
    )


def _env(env: Any) -> list[Obj] | None:
    """The variables checks may name; values only of :data:`ENV_VALUES_READ` (see above)."""
    if not isinstance(env, list):
        return None
    out: list[Obj] = []
    for item in env:
        if not isinstance(item, dict):
            continue
        name = str(item.get("name", ""))
        upper = name.upper()
        if not upper.startswith(_ENV_NAME_PREFIXES) and not any(
            w in upper for w in _ENV_NAME_WORDS
        ):
            continue
        entry: Obj = {"name": name}
        value = item.get("value")
        if name in ENV_VALUES_READ and "value" in item:
            entry["value"] = _s(value)
        elif any(w in upper for w in _ENV_NAME_WORDS):
            store = item.get("objectStore")  # already projected
            match = OBJECT_STORE.search(value) if isinstance(value, str) else None
            if match or isinstance(store, str):
                entry["objectStore"] = match.group(1) if match else store
        if item.get("valueFrom"):
            entry["valueFrom"] = True
        out.append(entry)
    return out or None


def container(c: Obj, path: str = "containers[]") -> Obj:
    lifecycle = c.get("lifecycle") or {}
    return prune(
        {
            "name": c.get("name"),
            "image": c.get("image"),
            "command": _strs(c.get("command")),
            "args": _strs(c.get("args")),
            "env": _env(c.get("env")),
            "resources": _resources(mapping(c.get("resources"), f"{path}.resources")),
            # Only the /dev/shm mount (MEM-002) and GPU device nodes (k8s.device_gpus) are read.
            "volumeMounts": [
                {"name": m.get("name"), "mountPath": m.get("mountPath")}
                for m in c.get("volumeMounts") or []
                if m.get("mountPath") == "/dev/shm"
                or GPU_DEVICE_PATH.match(str(m.get("mountPath")))
            ]
            or None,
            "lifecycle": {"preStop": lifecycle["preStop"]} if lifecycle.get("preStop") else None,
            "livenessProbe": True if c.get("livenessProbe") else None,
        }
    )


_VOLUME_TYPES = ("emptyDir", "persistentVolumeClaim", "hostPath", "configMap", "ephemeral")


def volume(v: Obj) -> Obj:
    out: Obj = {"name": v.get("name")}
    for key, value in v.items():
        if key == "name":
            continue
        if key == "emptyDir":
            out[key] = prune(
                {"medium": (value or {}).get("medium"), "sizeLimit": (value or {}).get("sizeLimit")}
            )
        elif key == "persistentVolumeClaim":
            out[key] = {"claimName": (value or {}).get("claimName")}
        elif key == "hostPath":
            out[key] = {"path": (value or {}).get("path")}
        elif key == "configMap":
            out[key] = {"name": (value or {}).get("name")}
        elif key in _VOLUME_TYPES or isinstance(value, dict):
            out[key] = {}
    return out


def pod_spec(spec: Any, path: str = "spec.template.spec") -> Obj:
    spec = mapping(spec, path)
    if not spec:
        return {}
    affinity = spec.get("affinity") or {}
    return prune(
        {
            "nodeName": spec.get("nodeName"),
            "nodeSelector": spec.get("nodeSelector"),
            "affinity": {"nodeAffinity": affinity["nodeAffinity"]}
            if affinity.get("nodeAffinity")
            else None,
            "tolerations": spec.get("tolerations"),
            "terminationGracePeriodSeconds": spec.get("terminationGracePeriodSeconds"),
            "activeDeadlineSeconds": spec.get("activeDeadlineSeconds"),
            "restartPolicy": spec.get("restartPolicy"),
            "volumes": [volume(v) for v in spec.get("volumes") or []] or None,
            "resourceClaims": [
                pick(rc, "name", "resourceClaimName", "resourceClaimTemplateName")
                for rc in spec.get("resourceClaims") or []
                if isinstance(rc, dict)
            ]
            or None,
            "containers": [
                container(c, f"{path}.containers[{i}]")
                for i, c in enumerate(mappings(spec.get("containers"), f"{path}.containers"))
            ],
        }
    )


def template(tpl: Any, path: str = "spec.template") -> Obj:
    tpl = mapping(tpl, path)
    if not tpl:
        return {}
    meta = mapping(tpl.get("metadata"), f"{path}.metadata")
    return prune(
        {
            "metadata": pick(meta, "labels", "annotations") or None,
            "spec": pod_spec(tpl.get("spec"), f"{path}.spec"),
        }
    )


def conditions(conds: Any, path: str = "status.conditions") -> list[Obj] | None:
    if conds is None:
        return None
    return [
        prune(
            {
                "type": c.get("type"),
                "status": c.get("status"),
                "reason": c.get("reason"),
                "message": _s(c.get("message"), 200),
                "lastTransitionTime": c.get("lastTransitionTime"),
            }
        )
        for c in mappings(conds, path)
    ]


def status_conditions(obj: Obj) -> Obj:
    """``{"conditions": [...]}`` of an object's status, or nothing."""
    conds = conditions((obj.get("status") or {}).get("conditions"))
    return {"conditions": conds} if conds is not None else {}


def job_spec(spec: Any) -> Obj:
    """A batch/v1 JobSpec (also inside CronJobs, JobSets and training runtimes)."""
    spec = spec if isinstance(spec, dict) else {}
    return prune(
        {
            "activeDeadlineSeconds": spec.get("activeDeadlineSeconds"),
            "backoffLimit": spec.get("backoffLimit"),
            "parallelism": spec.get("parallelism"),
            "completions": spec.get("completions"),
            "completionMode": spec.get("completionMode"),
            "podFailurePolicy": spec.get("podFailurePolicy"),
            "template": template(spec.get("template")),
        }
    )


def job_status(status: Any) -> Obj:
    status = status if isinstance(status, dict) else {}
    return prune(
        {
            "conditions": conditions(status.get("conditions")),
            "startTime": status.get("startTime"),
            "completionTime": status.get("completionTime"),
            "active": status.get("active"),
            "succeeded": status.get("succeeded"),
            "failed": status.get("failed"),
        }
    )
