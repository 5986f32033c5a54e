"""Alerting: is anybody paged for hot GPUs, hardware errors and stalled training?"""

from __future__ import annotations

import re
from collections.abc import Callable
from collections.abc import Iterator

from ..context import Context
from ..k8s import Obj
from ..k8s import gpu_vendors
from ..kinds import KINDS
from ..model import Check
from ..model import Evidence
from ..model import Reference
from ..model import Result
from .common import CLUSTER
from .common import WORKLOAD_KINDS
from .common import fail
from .common import name_of
from .common import not_applicable
from .common import passed
from .common import shown
from .serving import SERVING

RULES = "prometheusrules.monitoring.coreos.com"
# Google Cloud Managed Service for Prometheus rule objects (their spec.groups are Prometheus's).
GMP_RULES = (
    "rules.monitoring.googleapis.com",
    "clusterrules.monitoring.googleapis.com",
    "globalrules.monitoring.googleapis.com",
)
# VictoriaMetrics operator rules (vmalert reads them; spec.groups as in a PrometheusRule).
VM_RULES = "vmrules.operator.victoriametrics.com"
RULE_KINDS = (RULES, *GMP_RULES, VM_RULES)
# Temperature and thermal-throttling metrics, by the GPU vendor whose exporter serves them:
# dcgm-exporter's DCGM fields, and AMD's device-metrics-exporter (gpu_edge/junction/memory/hbm
# temperature, thermal violation residency; exported with an optional prefix such as amd_).
THERMAL = {
    "nvidia": re.compile(
        r"DCGM_FI_DEV_(GPU_TEMP|MEMORY_TEMP|THERMAL_VIOLATION|CLOCK_THROTTLE_REASONS|"
        r"CLOCKS_EVENT_REASONS)"
    ),
    "amd": re.compile(
        r"gpu_(edge|junction|memory|hbm)_temperature|amdgpu_\w*temp|"
        r"gpu_violation_\w*(thermal|hot)\w*",
        re.IGNORECASE,
    ),
}
VENDOR_NAMES = {"nvidia": "NVIDIA", "amd": "AMD"}
XID = re.compile(r"DCGM_FI_DEV_XID_ERRORS|DCGM_EXP_XID_ERRORS_COUNT")
ECC = re.compile(r"DCGM_FI_DEV_ECC_DBE|DCGM_FI_DEV_ROW_REMAP_FAILURE|DCGM_FI_DEV_RETIRED_DBE")
NVLINK = re.compile(r"DCGM_FI_DEV_NVLINK_\w*(ERROR|CRC)")
# The XIDs an uncorrectable ECC error raises: 48 (double-bit error), 94 and 95 (contained and
# uncontained errors, A100 and later). An XID alert that does not single out other codes pages on them.
ECC_XIDS = frozenset({48, 94, 95})
_XID_LABEL = re.compile(r'\bxid\s*(=~|=)\s*"([^"]*)"')
_XID_VALUE = re.compile(
    r"(?:DCGM_FI_DEV_XID_ERRORS|DCGM_EXP_XID_ERRORS_COUNT)(?:\{[^}]*\})?\s*==\s*(\d+)"
)
GPU_ACTIVITY = re.compile(
    r"DCGM_FI_(DEV_GPU_UTIL|PROF_GR_ENGINE_ACTIVE|PROF_SM_ACTIVE|PROF_PIPE_TENSOR_ACTIVE|"
    r"PROF_NVLINK_[RT]X_BYTES)"
)
PROGRESS = re.compile(
    r"(changes|absent_over_time|increase|rate|deriv|delta|time\(\)\s*-)\s*\(?\s*[\w:]*"
    r"(step|iteration|iter|progress|heartbeat|samples|tokens)",
    re.IGNORECASE,
)

AlertRule = tuple[str, str, str]  # (namespace/name, alert, expr)


def xid_codes(expr: str) -> set[int] | None:
    """The XID codes an XID alert is limited to (``xid="79"``, ``== 79``); None when it is not."""
    codes: set[int] | None = None
    for _, values in _XID_LABEL.findall(expr):
        codes = (codes or set()) | {int(v) for v in re.findall(r"\d+", values)}
    for value in _XID_VALUE.findall(expr):
        codes = (codes or set()) | {int(value)}
    return codes


def pages_on_ecc(expr: str) -> bool:
    """An alert on an uncorrectable-ECC counter, or on XIDs including 48/94/95."""
    if ECC.search(expr):
        return True
    if not XID.search(expr):
        return False
    codes = xid_codes(expr)
    return codes is None or bool(codes & ECC_XIDS)


def rule_objects(ctx: Context) -> list[tuple[str, Obj]]:
    """Every rule object by name: ``ns/name`` for a PrometheusRule, ``Rules ns/name`` (or
    ``ClusterRules name``, ``GlobalRules name``) for Managed Prometheus ones, ``VMRule ns/name``
    for VictoriaMetrics ones."""
    out = []
    for key in RULE_KINDS:
        for obj in ctx.items(key):
            ns = obj["metadata"].get("namespace")
            where = f"{ns}/{name_of(obj)}" if ns else name_of(obj)
            out.append((where if key == RULES else f"{KINDS[key].kind} {where}", obj))
    return sorted(out, key=lambda item: item[0])


RULE_FAMILIES = (
    ((RULES,), "PrometheusRules"),
    (GMP_RULES, "Managed Prometheus rule objects"),
    ((VM_RULES,), "VMRules"),
)


def _counted(ctx: Context) -> str:
    """The rule objects examined, by family: those with objects, else the first one served."""
    counts = [
        (name, sum(len(ctx.items(k)) for k in keys))
        for keys, name in RULE_FAMILIES
        if not all(ctx.absent(k) for k in keys)
    ]
    kept = [(name, n) for name, n in counts if n] or counts[:1]
    return " and ".join(f"{n} {name}" for name, n in kept)


def alert_rules(ctx: Context) -> list[AlertRule]:
    out: list[AlertRule] = []
    for where, pr in rule_objects(ctx):
        for group in (pr.get("spec") or {}).get("groups") or []:
            for rule in group.get("rules") or []:
                if rule.get("alert"):
                    out.append((where, str(rule["alert"]), str(rule.get("expr", ""))))
    return out


def _alert_check(
    ctx: Context,
    wanted: dict[str, Callable[[str], bool]],
    required: tuple[str, ...],
    what: str,
    not_seen: tuple[str, ...] = (),
) -> Iterator[Result]:
    if not ctx.gpu_nodes:
        yield not_applicable("no GPU nodes")
        return
    if all(ctx.absent(k) for k in RULE_KINDS):
        yield fail(
            CLUSTER,
            f"no {what}: the PrometheusRule CRD is not installed (nor Managed Prometheus Rules, "
            "nor VictoriaMetrics VMRules)",
            Evidence("prometheusrules", "CRD absent", f"a PrometheusRule alerting on {what}"),
        )
        return
    rules = alert_rules(ctx)
    objects = [where for where, _ in rule_objects(ctx)]
    found = {
        label: sorted(f"{where}:{alert}" for where, alert, expr in rules if match(expr))
        for label, match in wanted.items()
    }
    missing = [label for label in required if not found[label]]
    observed = {label: shown(found[label], 3) or "none" for label in wanted}
    evidence = (
        Evidence(
            "prometheusrules[*].spec.groups[*].rules[*].expr",
            observed,
            "an alert for " + ", ".join(required),
        ),
        Evidence("prometheusrules", shown(objects) or "none", "a PrometheusRule with these alerts"),
    )
    if missing:
        yield fail(
            CLUSTER,
            f"no alert rule for {', '.join(missing)} ({len(rules)} alert rules in "
            f"{_counted(ctx)} examined)",
            *evidence,
        )
    else:
        yield passed(
            f"{what} alerts found ({len(rules)} alert rules in {_counted(ctx)})",
            *evidence,
            examined=objects,
            not_seen=[
                "whether Prometheus loads these rules and routes the alerts to anyone",
                *not_seen,
            ],
        )


def _matcher(pattern: re.Pattern[str]) -> Callable[[str], bool]:
    return lambda expr: bool(pattern.search(expr))


def thermal_alert(ctx: Context) -> Iterator[Result]:
    """A temperature alert for every GPU vendor present: DCGM fields say nothing of AMD GPUs."""
    vendors = sorted({v for n in ctx.gpu_nodes for v in gpu_vendors(n)})
    label = "GPU temperature" if vendors in ([], ["nvidia"]) else "{} GPU temperature"
    wanted = {label.format(VENDOR_NAMES[v]): _matcher(THERMAL[v]) for v in vendors or ["nvidia"]}
    yield from _alert_check(ctx, wanted, tuple(wanted), "GPU thermal")


def hardware_alert(ctx: Context) -> Iterator[Result]:
    wanted: dict[str, Callable[[str], bool]] = {
        "XID errors": lambda e: bool(XID.search(e)),
        "uncorrectable ECC errors": pages_on_ecc,
        "NVLink errors": lambda e: bool(NVLINK.search(e)),
    }
    yield from _alert_check(
        ctx,
        wanted,
        ("XID errors", "uncorrectable ECC errors"),
        "GPU hardware error",
        not_seen=(
            "corrected (single-bit) ECC error rates: an uncorrectable error raises XID 48 (94/95 "
            "on A100 and later), so an XID alert pages on it; a rising corrected count is not judged",
        ),
    )


# Kinds whose GPU pods serve (replicas kept running, not a run that finishes): SERVE-001's serving
# kinds, and the owners of serving pods kubegap does not list (a ReplicaSet, KServe's
# InferenceService, Knative's Revision). A pod of any other owner (an Argo Workflow step, a bare
# pod) may be training.
SERVING_KINDS = frozenset(
    {adapter.spec.kind for adapter in SERVING} | {"ReplicaSet", "InferenceService", "Revision"}
)


def stall_alert(ctx: Context) -> Iterator[Result]:
    workloads = ctx.workloads()
    serving = [w for w in workloads if not w.training and w.resource.kind in SERVING_KINDS]
    if ctx.gpu_nodes and workloads and len(serving) == len(workloads):
        # An idle cluster is judged (training may start any time); one that only serves has no
        # training run to stall.
        yield not_applicable(
            f"the {len(workloads)} active GPU workloads all serve; no training run to stall"
        )
        return
    wanted: dict[str, Callable[[str], bool]] = {
        "stalled training": lambda e: bool(GPU_ACTIVITY.search(e) or PROGRESS.search(e)),
    }
    yield from _alert_check(ctx, wanted, ("stalled training",), "training stall")


_PROM = Reference(
    "https://prometheus-operator.dev/docs/api-reference/api/#monitoring.coreos.com/v1.PrometheusRule",
    "Prometheus Operator: PrometheusRule",
)

CHECKS = [
    Check(
        id="ALERT-001",
        title="No alert on GPU temperature or thermal throttling",
        pass_title="An alert rule watches GPU temperature or thermal throttling",
        severity="high",
        category="alerting",
        reads=("nodes", *RULE_KINDS),
        cases=(
            "acme-kalos-overheating-jul2023",
            "meta-llama3-power-thermal-effects",
            "acme-seren-kalos-pretraining-failures",
        ),
        references=(
            _PROM,
            Reference(
                "https://github.com/tensorflow/tensorflow/issues/40042",
                "Overheated GPU slows training",
            ),
            Reference(
                "https://github.com/NVIDIA/NVSentinel/pull/1371", "NVSentinel: thermal margin watch"
            ),
        ),
        why=(
            "Overheating GPUs produced NVLink and ECC errors in the Acme Kalos cluster during a "
            "hot month. Neither the GPU Operator nor the dcgm-exporter chart ships a temperature "
            "alert, so unless someone wrote one, heat is noticed only through failed jobs."
        ),
        remediation=(
            "Add a PrometheusRule alerting on DCGM_FI_DEV_GPU_TEMP / DCGM_FI_DEV_MEMORY_TEMP "
            "above the GPU's slowdown threshold and on thermal-violation or clock-event reasons; "
            "for AMD GPUs, on the device-metrics-exporter's gpu_junction_temperature / "
            "gpu_memory_temperature (or gpu_edge_temperature on MI200)."
        ),
        confidence="heuristic",
        func=thermal_alert,
        cluster_wide=True,
    ),
    Check(
        id="ALERT-002",
        title="No alert on GPU hardware errors (XID, ECC)",
        pass_title="Alert rules watch GPU hardware errors (XID, ECC)",
        severity="high",
        category="alerting",
        reads=("nodes", *RULE_KINDS),
        cases=(
            "meta-llama3-405b-interruptions",
            "acme-llm-dev-infra-failures",
            "meta-opt175b-hardware-restarts",
            "meta-rsc-reliability-study",
        ),
        references=(
            _PROM,
            Reference(
                "https://arxiv.org/abs/2503.11901", "GPU resilience on the Delta supercomputer"
            ),
        ),
        why=(
            "XID and uncorrectable ECC errors precede most GPU-caused interruptions. If they are "
            "collected but no rule pages anybody, the bad node keeps failing jobs until a person "
            "reads the logs."
        ),
        remediation=(
            "Add PrometheusRule alerts on DCGM_FI_DEV_XID_ERRORS (or DCGM_EXP_XID_ERRORS_COUNT), "
            "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL / DCGM_FI_DEV_ROW_REMAP_FAILURE and NVLink error counters."
        ),
        confidence="heuristic",
        func=hardware_alert,
        cluster_wide=True,
    ),
    Check(
        id="ALERT-003",
        title="No alert for training that stalls without an error",
        pass_title="An alert rule catches training that stalls without an error",
        severity="high",
        category="alerting",
        reads=("nodes", *RULE_KINDS, *WORKLOAD_KINDS),
        cases=(
            "bigscience-bloom176b-eval-dataloader-deadlock",
            "bigscience-bloom176b-gpu-crash-hang",
            "acme-seren-kalos-pretraining-failures",
            "bytedance-byterobust-failure-characterization",
        ),
        references=(
            _PROM,
            Reference(
                "https://github.com/pytorch/pytorch/issues/97191",
                "NCCL watchdog failed to crash a hung job",
            ),
            Reference("https://arxiv.org/abs/2509.16293", "ByteRobust: hang detection"),
        ),
        why=(
            "Hung jobs do not fail: GPUs sit at 100% or idle, no error is logged, and the job "
            "burns its allocation for hours until someone looks. Only an alert on GPU activity or "
            "on a training-progress metric catches it."
        ),
        remediation=(
            "Alert when GPU activity (DCGM_FI_PROF_GR_ENGINE_ACTIVE, DCGM_FI_DEV_GPU_UTIL) of a "
            "running job stays flat or at zero for N minutes, or when a step/heartbeat metric "
            "stops changing (changes(...[15m]) == 0)."
        ),
        confidence="heuristic",
        func=stall_alert,
        cluster_wide=True,
    ),
]
