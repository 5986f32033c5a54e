"""Small helpers shared by check modules."""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..k8s import Obj, pod_ready
from ..model import CLUSTER, Evidence, Result, fail, not_applicable, passed


def name_of(obj: Obj) -> str:
    return str((obj.get("metadata") or {}).get("name"))


def image_pods_on_nodes(ctx: Context, image_words: tuple[str, ...]) -> set[str]:
    """Names of nodes that run a Ready pod with a container image containing one of the words."""
    nodes: set[str] = set()
    for pod in ctx.items("pods"):
        spec = pod.get("spec") or {}
        node_name = spec.get("nodeName")
        if not node_name:
            continue
        images = [str(c.get("image", "")) for c in spec.get("containers") or []]
        if any(w in img for img in images for w in image_words) and pod_ready(pod):
            nodes.add(str(node_name))
    return nodes


def node_coverage(
    ctx: Context,
    covered: set[str],
    what: str,
    path: str,
    expected: str,
) -> Iterator[Result]:
    """Per-GPU-node fail for nodes not in ``covered``; one cluster fail if none is covered."""
    if not ctx.gpu_nodes:
        yield not_applicable("no GPU nodes")
        return
    missing = [n for n in ctx.gpu_nodes if name_of(n) not in covered]
    total = len(ctx.gpu_nodes)
    if not missing:
        yield passed(f"{what} on all {total} GPU nodes")
        return
    if len(missing) == total:
        yield fail(
            CLUSTER,
            f"no GPU node runs {what}",
            Evidence(path, f"0 of {total} GPU nodes", expected),
        )
        return
    for node in missing:
        yield fail(
            ctx.ref("nodes", node),
            f"GPU node does not run {what}",
            Evidence(f"{path}[spec.nodeName={name_of(node)}]", "none Ready", expected),
        )


def env_value(env: list[Obj], name: str) -> str | None:
    for item in env:
        if item.get("name") == name:
            return str(item.get("value", ""))
    return None
