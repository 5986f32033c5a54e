"""kubegap pages through large lists on a real API server (limit 500 + continue tokens)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import gpu_objects as g
import pytest
from kubeapi_harness import ApiServer, KubeClient, KubegapIdentity
from kubegap_run import audit, coverage, kubegap_requests

pytestmark = pytest.mark.apiserver

CONFIGMAPS = 1001  # three pages of 500


def test_lists_are_paged_with_continue_tokens(
    apiserver: ApiServer, admin: KubeClient, kubegap_identity: KubegapIdentity, tmp_path: Path
) -> None:
    admin.create(g.namespace("bulk"))
    for i in range(CONFIGMAPS):
        admin.create(g.configmap(f"job-config-{i:04d}", "bulk", {"config.yaml": f"step: {i}\n"}))
    before = len(apiserver.audit_events())

    code, report = audit(kubegap_identity.kubeconfig, tmp_path / "report.json")

    cov = coverage(report)["configmaps"]
    assert (cov["status"], cov["count"], cov["pages"]) == ("listed", CONFIGMAPS, 3)
    lists = [
        parse_qs(urlsplit(ev["requestURI"]).query)
        for ev in kubegap_requests(apiserver.audit_events()[before:], kubegap_identity.username)
        if ev["verb"] == "list" and ev["objectRef"]["resource"] == "configmaps"
    ]
    assert [q["limit"] for q in lists] == [["500"]] * 3
    assert ["continue" in q for q in lists] == [False, True, True]
    assert code == 0  # no GPU nodes, no workloads: nothing fails, and nothing was hidden
    assert report["summary"]["coverage_complete"] is True
