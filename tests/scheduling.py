"""How the suite is shared among pytest-xdist processes (``--dist loadscope``, see the Makefile).

xdist's loadscope sends each test module to one process as a whole, so its module fixtures are
made once. Some packages share something dearer across their modules: every module under
``tests/kubeapi/`` uses one etcd + kube-apiserver per process (4-11 s to start), so those modules
must land on the same process for the server to start once per run, and every module under
``tests/browser/`` one chromium (its package fixture), which was started by every process that
ran one. :data:`GROUPS` maps a node-id prefix to one scope (one unit of work) for all its
modules; another package joins by adding a line. Everything else stays one scope per module.

The groups are also sent first, in the order listed: a long unit started last would finish
alone after the other processes ran out of work. For the same reason the modules of
:data:`LONG` (a few tests that take seconds: servers, subprocesses, whole-library comparisons)
come next, longest first; xdist orders the remaining scopes by their number of tests (largest
first, unless ``--loadscope-reorder`` is turned off), which put some of these last (one run
ended with test_production_rates.py's 6 s on one process while the other had nothing to do).

tests/conftest.py registers :func:`pytest_xdist_make_scheduler`.
"""

from __future__ import annotations

from typing import Any

import pytest

# node-id prefix -> the scope all its tests share; sent to the processes first, in this order
GROUPS: dict[str, str] = {
    "tests/kubeapi/": "tests/kubeapi",  # one API server per run (tests/kubeapi/conftest.py)
    "tests/browser/": "tests/browser",  # one chromium and live server per run (its conftest.py)
}

# modules of a few long tests (seconds each, measured in a run of the whole suite), sent after
# the groups in this order; a module missing from the run is passed over
LONG: tuple[str, ...] = (
    "tests/test_production_rates.py",  # gunicorn with two workers, ~6 s
    "tests/test_facet_index.py",
    "tests/test_deploy.py",  # manage.py check --deploy in subprocesses
    "tests/audit/test_mcp.py",
    "tests/test_malformed.py",
    "tests/test_search_candidates.py",
    "tests/test_api_schemathesis.py",
    "tests/test_retrieval_quality.py",
    "tests/test_graph_page.py",
    "tests/test_startup_imports.py",
    "tests/test_similar_cases.py",
    "tests/test_layering.py",
    "tests/test_fixtures.py",
    "tests/test_manage_pipe.py",
)


def group_scope(nodeid: str) -> str | None:
    """The scope of the group ``nodeid`` belongs to, if any."""
    for prefix, scope in GROUPS.items():
        if nodeid.startswith(prefix):
            return scope
    return None


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Loadscope with :data:`GROUPS` as single scopes sent first, then :data:`LONG`; other
    modes as xdist has them."""
    if config.getoption("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupedScopeScheduling(LoadScopeScheduling):
        _groups_first = False

        def _split_scope(self, nodeid: str) -> str:
            return group_scope(nodeid) or super()._split_scope(nodeid)

        def _assign_work_unit(self, node: Any) -> None:
            # The first assignment comes right after the work queue is built.
            if not self._groups_first:
                for scope in reversed([*GROUPS.values(), *LONG]):
                    if scope in self.workqueue:
                        self.workqueue.move_to_end(scope, last=False)
                self._groups_first = True
            super()._assign_work_unit(node)

    return GroupedScopeScheduling(config, log)
