"""site/k8s/ and the Dockerfile, offline: every manifest valid against current Kubernetes schemas
(kubernetes-validate, strict), and the pieces agree with each other and with the app (probes on
/healthz and /readyz, the Service's port, one image, non-root, the settings the app reads).
tests/kubeapi/test_kubeapi_manifests.py applies them to a real API server with a dry run."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.server import env_example

REPO_ROOT = Path(__file__).resolve().parent.parent
K8S = REPO_ROOT / "site" / "k8s"
MANIFESTS = sorted(K8S.rglob("*.yaml"))
DOCKERFILE = REPO_ROOT / "Dockerfile"
IMAGE = "incident-library:0.1.0"


def _docs(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc]


def _all() -> list[dict[str, Any]]:
    return [doc for path in MANIFESTS for doc in _docs(path)]


def _one(kind: str, name: str) -> dict[str, Any]:
    (found,) = [d for d in _all() if d["kind"] == kind and d["metadata"]["name"] == name]
    return found


def _pod_spec(doc: dict[str, Any]) -> dict[str, Any]:
    if doc["kind"] == "CronJob":
        return doc["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    return doc["spec"]["template"]["spec"]


def _validate(doc: dict[str, Any]) -> None:
    import kubernetes_validate  # here, not when every pytest-xdist worker collects this module

    kubernetes_validate.validate(doc, kubernetes_validate.latest_version(), strict=True)


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: str(p.relative_to(K8S)))
def test_each_manifest_is_valid_against_current_kubernetes_schemas(path: Path) -> None:
    docs = _docs(path)
    assert docs
    for doc in docs:
        _validate(doc)


def test_the_validator_refuses_a_broken_manifest() -> None:
    broken = _one("Deployment", "incident-library")
    broken["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"] = "http"
    from kubernetes_validate import ValidationError

    with pytest.raises(ValidationError):
        _validate(broken)


def test_the_deployment_probes_the_health_endpoints_and_sets_resources() -> None:
    (container,) = _pod_spec(_one("Deployment", "incident-library"))["containers"]
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert set(container["resources"]) == {"requests", "limits"}
    service = _one("Service", "incident-library")
    assert service["spec"]["ports"][0]["targetPort"] == container["ports"][0]["name"]
    assert service["spec"]["selector"].items() <= (
        _one("Deployment", "incident-library")["spec"]["template"]["metadata"]["labels"].items()
    )
    pdb = _one("PodDisruptionBudget", "incident-library")
    assert pdb["spec"]["selector"]["matchLabels"] == service["spec"]["selector"]


def test_every_workload_runs_the_one_image_as_non_root() -> None:
    workloads = [d for d in _all() if d["kind"] in {"Deployment", "Job", "CronJob"}]
    assert {d["kind"] for d in workloads} == {"Deployment", "Job", "CronJob"}
    for doc in workloads:
        spec = _pod_spec(doc)
        assert spec["securityContext"]["runAsNonRoot"] is True
        for container in spec["containers"]:
            assert container["image"] == IMAGE
            assert container["securityContext"]["allowPrivilegeEscalation"] is False


def test_the_configmap_and_secret_hold_the_production_settings() -> None:
    config = _one("ConfigMap", "incident-library")["data"]
    secret = _one("Secret", "incident-library")["stringData"]
    documented = set(env_example())
    assert set(config) | set(secret) <= documented
    assert {"SECRET_KEY", "DATABASE_URL"} == set(secret)
    assert {"ALLOWED_HOSTS", "SECURE_SSL_REDIRECT", "CSRF_TRUSTED_ORIGINS"} <= set(config)
    for doc in _all():
        if doc["kind"] in {"Deployment", "Job"}:
            (container,) = _pod_spec(doc)["containers"]
            refs = {next(iter(ref.values()))["name"] for ref in container["envFrom"]}
            assert refs == {"incident-library"}


def test_the_kubegap_cronjob_runs_as_the_account_bound_to_the_shipped_role() -> None:
    cronjob = _one("CronJob", "kubegap")
    account = _pod_spec(cronjob)["serviceAccountName"]
    namespace = cronjob["metadata"]["namespace"]
    rbac = _docs(K8S / "kubegap-rbac.yaml")
    (role,) = [d for d in rbac if d["kind"] == "ClusterRole"]
    bindings = [
        d
        for d in rbac
        if d["kind"] == "ClusterRoleBinding"
        and d["roleRef"]["name"] == role["metadata"]["name"]
        and {"kind": "ServiceAccount", "name": account, "namespace": namespace} in d["subjects"]
    ]
    assert bindings
    assert any(d["kind"] == "ServiceAccount" and d["metadata"]["name"] == account for d in rbac)
    assert _pod_spec(cronjob)["containers"][0]["command"][:2] == ["kubegap", "audit"]


def test_the_dockerfile_is_multi_stage_and_non_root() -> None:
    text = DOCKERFILE.read_text()
    stages = re.findall(r"^FROM \S+ AS (\S+)$", text, flags=re.M)
    assert len(stages) >= 2
    final = text.split(f"AS {stages[-1]}", 1)[1]
    assert "COPY --from=build /opt/venv /opt/venv" in final
    (user,) = re.findall(r"^USER (\S+)$", final, flags=re.M)
    assert not user.startswith(("0", "root"))
    assert "collectstatic" in final
    assert 'CMD ["gunicorn", "--config", "python:incidents.config.gunicorn"]' in final
    assert f"incident-library:{IMAGE.split(':')[1]}" in text.splitlines()[0]
