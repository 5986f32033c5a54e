"""Helpers shared by check modules: the per-workload and per-node loops, and small readers.

Most checks judge each GPU workload (or GPU node) on its own. :func:`per_workload` and
:func:`per_node` run a judge over each one and turn its verdict into results: a failure on the
object (with its replica types and pods listed), a not_evaluated result for an object the judge
could not read, and one pass that names how many were examined when nothing failed.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeVar

from ..context import Context
from ..k8s import Obj
from ..k8s import pod_ready
from ..k8s import stack_down
from ..model import CLUSTER
from ..model import Evidence
from ..model import Resource
from ..model import Result
from ..model import fail
from ..model import not_applicable
from ..model import not_evaluated
from ..model import passed
from ..workloads import ADAPTERS
from ..workloads.index import Workload

T = TypeVar("T")
# Every kind a check over all workloads reads: pods, and each adapter's kinds.
WORKLOAD_KINDS: tuple[str, ...] = ("pods", *(k for a in ADAPTERS for k in a.reads))
READ_ERRORS = (KeyError, TypeError, ValueError, AttributeError)
EXAMINED_SHOWN = 50  # names listed under a pass; reports cut further and say how many more


@dataclass(frozen=True)
class Gap:
    """What a judge found wrong with one object."""

    message: str
    evidence: tuple[Evidence, ...]


@dataclass(frozen=True)
class Skip:
    """An object the check looked at but cannot judge from the API; the pass names it."""

    reason: str


def gap(message: str, *evidence: Evidence) -> Gap:
    return Gap(message, tuple(evidence))


def per_object(
    items: Iterable[tuple[Resource, T]],
    judge: Callable[[T], Gap | Skip | None],
    *,
    ok: str,
    none: str,
    members: Callable[[T], Iterable[str]] = lambda item: (),
    not_seen: Iterable[str] = (),
) -> Iterator[Result]:
    """Judge each item; ``ok`` is the pass message, the count follows ("<ok> (3 examined)").

    A :class:`Skip` verdict is not counted as examined; the pass lists it under ``not_seen``.
    """
    examined: list[str] = []
    skipped: list[str] = []
    failed = 0
    for resource, item in items:
        try:
            found = judge(item)
        except READ_ERRORS as exc:
            failed += 1
            yield not_evaluated(
                resource, f"could not read this object: {type(exc).__name__}: {exc}"
            )
            continue
        if isinstance(found, Skip):
            skipped.append(f"{resource.logical_name}: {found.reason}")
            continue
        examined.append(resource.logical_name)
        if found is not None:
            failed += 1
            yield fail(resource, found.message, *found.evidence, members=members(item))
    if not examined and not failed:
        yield not_applicable(none + (f" ({_not_judged(skipped)})" if skipped else ""))
    elif not failed:
        yield passed(
            f"{ok} ({len(examined)} examined)",
            examined=examined[:EXAMINED_SHOWN],
            not_seen=[*skipped, *not_seen],
        )


def _not_judged(skipped: list[str]) -> str:
    """ "2 not judged: ns/Kind/a: why; ns/Kind/b: why": each object the check skipped, and why."""
    return f"{len(skipped)} not judged: " + "; ".join(shown(skipped, 5))


def per_workload(
    ctx: Context,
    judge: Callable[[Workload], Gap | Skip | None],
    *,
    ok: str,
    none: str = "no active GPU workload",
    training: bool = False,
    where: Callable[[Workload], bool] = lambda w: True,
) -> Iterator[Result]:
    """:func:`per_object` over the active GPU workloads (the training ones when ``training``)."""
    workloads = ctx.training_workloads() if training else ctx.workloads()
    yield from per_object(
        ((w.resource, w) for w in workloads if where(w)),
        judge,
        ok=ok,
        none=none,
        members=lambda w: w.members,
    )


def per_node(
    ctx: Context,
    judge: Callable[[Obj], Gap | Skip | None],
    *,
    ok: str,
    none: str = "no GPU nodes",
    nodes: Iterable[Obj] | None = None,
    not_seen: Iterable[str] = (),
) -> Iterator[Result]:
    """:func:`per_object` over nodes (the GPU nodes by default)."""
    chosen = ctx.gpu_nodes if nodes is None else nodes
    yield from per_object(
        ((ctx.ref("nodes", n), n) for n in chosen), judge, ok=ok, none=none, not_seen=not_seen
    )


# Replicas of these kinds serve on their own; their pods do not run collectives with each other.
REPLICATED_KINDS = frozenset({"deployments.apps", "statefulsets.apps"})


def runs_across_pods(w: Workload) -> bool:
    """Whether a workload's GPU pods may run collectives (NCCL) with each other: more than one
    pod of a training job or of a gang kind (an LWS group), not replicas serving alone."""
    if w.key in REPLICATED_KINDS or (w.key == "pods" and not w.training):
        return False
    return sum(t.replicas for t in w.templates) > 1


def name_of(obj: Obj) -> str:
    return str((obj.get("metadata") or {}).get("name"))


def image_pods_on_nodes(ctx: Context, image_words: tuple[str, ...]) -> set[str]:
    """Names of nodes that run a Ready pod with a container image containing one of the words.

    On a NotReady node such a pod counts even when it is not Ready: it cannot be while its node
    is down, which NODE-001 judges (as PRE-002 leaves out stack pods of NotReady nodes); so it
    does on a cordoned node whose driver the GPU Operator's upgrade controller is reloading, and
    on one whose MIG geometry its MIG manager is applying (``k8s.stack_down``)."""
    nodes: set[str] = set()
    matches: dict[int, bool] = {}  # by containers list: replicas share one (see compact.py)
    for pod in ctx.items("pods"):
        spec = pod.get("spec") or {}
        node_name = spec.get("nodeName")
        if not node_name:
            continue
        containers = spec.get("containers") or []
        found = matches.get(id(containers))
        if found is None:
            images = [str(c.get("image", "")) for c in containers]
            found = matches[id(containers)] = any(w in i for i in images for w in image_words)
        if found and (pod_ready(pod) or _node_down(ctx, str(node_name))):
            nodes.add(str(node_name))
    return nodes


def _node_down(ctx: Context, name: str) -> bool:
    node = ctx.nodes_by_name.get(name)
    return node is not None and stack_down(node) is not None


def node_coverage(
    ctx: Context, covered: set[str], what: str, path: str, expected: str
) -> Iterator[Result]:
    """Per-GPU-node fail for nodes not in ``covered``; one cluster fail if none is covered."""
    if ctx.gpu_nodes and not any(name_of(n) in covered for n in ctx.gpu_nodes):
        total = len(ctx.gpu_nodes)
        yield fail(
            CLUSTER, f"no GPU node runs {what}", Evidence(path, f"0 of {total} GPU nodes", expected)
        )
        return

    def judge(node: Obj) -> Gap | None:
        if name_of(node) in covered:
            return None
        return gap(
            f"GPU node does not run {what}",
            Evidence(f"{path}[spec.nodeName={name_of(node)}]", "none Ready", expected),
        )

    yield from per_node(ctx, judge, ok=f"GPU nodes run {what}")


def env_value(env: list[Obj], name: str) -> str | None:
    for item in env:
        if item.get("name") == name:
            return str(item.get("value", ""))
    return None


def shown(values: list[str], limit: int = 10) -> list[str]:
    """At most ``limit`` values, the last one saying how many more there are."""
    if len(values) <= limit:
        return values
    return [*values[:limit], f"and {len(values) - limit} more"]
