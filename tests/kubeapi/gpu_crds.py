"""CustomResourceDefinitions of the operators a GPU training cluster runs (Kubeflow, Prometheus
Operator, the GPU Operator, Kubeflow Trainer), as plain dicts for :mod:`gpu_cluster`."""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]


def crd(
    group: str, kind: str, plural: str, versions: tuple[str, ...], scope: str = "Namespaced"
) -> Obj:
    """A CustomResourceDefinition (apiextensions.k8s.io/v1) that keeps unknown fields.

    The real CRDs carry long OpenAPI schemas; kubegap only needs the objects to be served and
    listable, so a structural schema that preserves unknown fields stands in for them.
    """
    schema = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "scope": scope,
            "names": {
                "kind": kind,
                "listKind": f"{kind}List",
                "plural": plural,
                "singular": kind.lower(),
            },
            "versions": [
                {
                    "name": v,
                    "served": True,
                    "storage": i == 0,
                    "schema": schema,
                    "subresources": {"status": {}},
                }
                for i, v in enumerate(versions)
            ],
        },
    }


PYTORCHJOB_CRD = crd("kubeflow.org", "PyTorchJob", "pytorchjobs", ("v1",))
PROMETHEUSRULE_CRD = crd("monitoring.coreos.com", "PrometheusRule", "prometheusrules", ("v1",))
SERVICEMONITOR_CRD = crd("monitoring.coreos.com", "ServiceMonitor", "servicemonitors", ("v1",))
PODMONITOR_CRD = crd("monitoring.coreos.com", "PodMonitor", "podmonitors", ("v1",))
CLUSTERPOLICY_CRD = crd("nvidia.com", "ClusterPolicy", "clusterpolicies", ("v1",), "Cluster")
TRAINJOB_CRD = crd("trainer.kubeflow.org", "TrainJob", "trainjobs", ("v1alpha1",))
TRAININGRUNTIME_CRD = crd(
    "trainer.kubeflow.org", "TrainingRuntime", "trainingruntimes", ("v1alpha1",)
)
CLUSTERTRAININGRUNTIME_CRD = crd(
    "trainer.kubeflow.org",
    "ClusterTrainingRuntime",
    "clustertrainingruntimes",
    ("v1alpha1",),
    "Cluster",
)
