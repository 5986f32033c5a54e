"""tests/scheduling.py: under ``--dist loadscope`` the kubeapi modules go to one process, first,
the browser modules to one process, next, then the modules of a few long tests."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from tests.scheduling import pytest_xdist_make_scheduler

KUBEAPI = [
    "tests/kubeapi/test_kubeapi_healthy.py::test_a",
    "tests/kubeapi/test_kubeapi_healthy.py::test_b",
    "tests/kubeapi/test_kubeapi_broken.py::test_c",
]
BROWSER = [
    "tests/browser/test_library_browser.py::test_d[chromium]",
    "tests/browser/test_graph_browser.py::test_e[chromium]",
]
# More tests than kubeapi has: xdist alone would send this module first.
MANY = [f"tests/audit/test_projection.py::test_p[{i}]" for i in range(10)]
OTHERS = ["tests/test_text.py::test_t", "tests/test_text.py::Words::test_w"]
RATES = ["tests/test_production_rates.py::test_r[sqlite]"]
DEPLOY = ["tests/test_deploy.py::test_d1", "tests/test_deploy.py::test_d2"]


class FakeNode:
    """What the scheduler uses of a pytest-xdist worker: the test indexes it is sent."""

    def __init__(self, name: str) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.batches: list[list[int]] = []
        self.shutting_down = False

    def send_runtest_some(self, indexes: list[int]) -> None:
        self.batches.append(indexes)

    def shutdown(self) -> None:
        self.shutting_down = True


def _config(dist: str) -> Any:
    options = {"dist": dist, "tx": ["2*popen"], "loadscopereorder": True}
    return SimpleNamespace(
        getoption=options.__getitem__,
        getvalue=options.__getitem__,
        option=SimpleNamespace(**options),
    )


def _sent(collection: list[str]) -> tuple[list[list[list[str]]], list[str]]:
    """The node ids each of two workers is sent first, batch by batch, and the scopes left."""
    scheduler = pytest_xdist_make_scheduler(_config("loadscope"), None)
    nodes = [FakeNode("gw0"), FakeNode("gw1")]
    for node in nodes:
        scheduler.add_node(node)
        scheduler.add_node_collection(node, collection)
    scheduler.schedule()
    sent = [[[collection[i] for i in batch] for batch in node.batches] for node in nodes]
    return sent, list(scheduler.workqueue)


def test_every_kubeapi_module_is_one_unit_sent_first() -> None:
    collection = MANY + OTHERS + KUBEAPI
    (first, second), left = _sent(collection)
    assert first == [KUBEAPI]  # both modules in one batch, before the larger module
    # Everything else keeps xdist's scopes: a module (or a class) per unit, largest first.
    assert second == [MANY]
    assert sorted(left) == ["tests/test_text.py", "tests/test_text.py::Words"]


def test_every_browser_module_is_one_unit_sent_after_kubeapi() -> None:
    collection = MANY + BROWSER + OTHERS + KUBEAPI
    (first, second), _ = _sent(collection)
    # One chromium and live server for all browser modules, started before the larger module.
    assert (first[0], second[0]) == (KUBEAPI, BROWSER)


def test_other_modes_keep_xdists_own_scheduler() -> None:
    assert pytest_xdist_make_scheduler(_config("load"), None) is None
    assert pytest_xdist_make_scheduler(_config("no"), None) is None


def test_the_long_modules_are_sent_after_the_groups_longest_first() -> None:
    collection = MANY + DEPLOY + OTHERS + RATES + BROWSER + KUBEAPI
    (first, second), left = _sent(collection)
    # The browser unit has two tests: its process is sent its next unit with it, the longest.
    assert (first, second) == ([KUBEAPI], [BROWSER, RATES])
    # Then test_deploy.py, before the module of more tests that xdist alone would send first.
    assert left[:2] == ["tests/test_deploy.py", "tests/audit/test_projection.py"]
