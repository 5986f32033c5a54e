"""How engineers write on call, read by the suggestion engine: compounds closed up inside a longer
phrase ("hammered the apiserver"), a possessive inside a phrase ("that cluster's control plane"),
slang for overloading something ("DDoS'd", "flooded", "on its knees"), "went down" said of a job
(a crash, not an outage), "keeled over", "peaked" for rose, "boxes" for machines, "traced back to"
(no traceback), and a part that only qualifies a scheduler's partition or its time ("the GPU
partition", "GPU time"). The vocabulary's wording read here: nodes knocked offline, a run stalled
on its checkpoint save, conntrack as the kernel's, NVIDIA's GPU tools as the GPU, and log lines
such as etcd's "database space exceeded", Go's "context deadline exceeded" and "no such host",
"no space left on device" and "too many open files"."""

from __future__ import annotations

import pytest

from tests.suggesting import found
from tests.suggesting import symptom_value

pytestmark = pytest.mark.django_db


def test_two_words_of_a_longer_phrase_may_be_written_as_one(small_library: None) -> None:
    symptom_value("api-hammered", phrases=["hammered the api server"])
    symptom_value("loader-leak", phrases=["data loader leaked memory"])
    assert "symptom:api-hammered" in found("the new pods hammered the cluster's apiserver")
    assert "symptom:loader-leak" in found("our dataloader slowly leaked memory all week")


def test_overloading_slang_reads_as_overloaded(small_library: None) -> None:
    symptom_value("api-overloaded", phrases=["overloaded the api server"])
    assert "symptom:api-overloaded" in found("the new pods basically DDoS'd the api server")
    assert "symptom:api-overloaded" in found("a thousand agents ddosed the api server")
    assert "symptom:api-overloaded" in found("the watchers flooded the api server")


def test_a_job_that_went_down_crashed(small_library: None) -> None:
    symptom_value("trainer-died", phrases=["trainer died"])
    assert "symptom:trainer-died" in found("the trainer went down at step 900")


def test_a_job_that_went_down_is_a_crash_not_an_outage(seeded_library: None) -> None:
    named = found("the job went down with CUDA error: unknown error two iterations before the save")
    assert "symptom:job-crash" in named
    assert "symptom:service-disruption" not in named


def test_nodes_knocked_offline_are_not_ready(seeded_library: None) -> None:
    assert "symptom:node-not-ready" in found("each hang knocks a few nodes offline")
    assert "symptom:node-not-ready" in found("half the nodes went offline overnight")


def test_etcd_database_space_exceeded_is_a_quota(seeded_library: None) -> None:
    named = found("etcdserver: mvcc: database space exceeded")
    assert "root_cause:quota-exhaustion" in named


def test_a_scheduler_partition_or_time_of_a_part_names_no_part(seeded_library: None) -> None:
    assert "component:gpu" not in found("Slurm jobs on the GPU partition hit their TIMEOUT")
    assert "component:gpu" not in found("failed jobs used under a tenth of the GPU time")
    assert "component:gpu" in found("the GPU died at step 900")


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("etcdserver: leader changed", "component:etcd"),
        ("rpc error: context deadline exceeded", "symptom:connection-timeout"),
        ("dial tcp: lookup redis.internal: no such host", "symptom:dns-resolution-failure"),
        ("write /ckpt/step_900.pt: no space left on device", "root_cause:capacity-exhaustion"),
        ("the scratch disk filled up overnight", "root_cause:capacity-exhaustion"),
        ("accept4: too many open files", "root_cause:quota-exhaustion"),
        ("two boxes died overnight", "root_cause:host-hardware-fault"),
    ],
)
def test_log_lines_and_shop_talk_name_their_values(
    seeded_library: None, line: str, value: str
) -> None:
    assert value in found(line)


def test_conntrack_is_the_kernel_s_connection_tracking(seeded_library: None) -> None:
    # The Linux kernel's description: "its packet filtering, connection tracking ...".
    assert "component:linux-kernel" in found("stale conntrack entries broke dns")
    named = found("kube-proxy left a stale conntrack entry behind")
    assert {"component:linux-kernel", "component:container-networking"} <= named


def test_a_figure_that_peaked_rose(small_library: None) -> None:
    symptom_value("errors-up", phrases=["errors spiked"])
    assert "symptom:errors-up" in found("chat errors peaked at 63% around noon")


def test_a_run_stalled_on_its_checkpoint_save_checkpoints_slowly(seeded_library: None) -> None:
    named = found("the 60-node runs keep stalling on ckpt save")
    assert "symptom:slow-checkpoint" in named


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("the host keeled over at 3am", "root_cause:host-hardware-fault"),
        ("redis was on its knees all morning", "root_cause:cache-overload"),
        ("the run diverged after step 12k", "symptom:loss-spike"),
        ("the retries had no jitter", "contributing_factor:blind-retries"),
    ],
)
def test_on_call_slang_names_its_value(seeded_library: None, text: str, value: str) -> None:
    assert value in found(text)


def test_traced_back_to_a_cause_is_no_traceback(seeded_library: None) -> None:
    assert "symptom:job-crash" not in found("the failures were traced back to bad links")
    assert "symptom:job-crash" in found("the job printed a traceback and exited")


def test_a_possessive_inside_a_phrase_is_no_gap(small_library: None) -> None:
    symptom_value("cp-overloaded", phrases=["overloaded the control plane"])
    assert "symptom:cp-overloaded" in found("the new pods overwhelmed that cluster's control plane")
    assert "symptom:cp-overloaded" not in found(
        "the pods overwhelmed that old cluster's control plane"
    )


def test_nvidia_s_gpu_tools_name_the_gpu_not_the_company(seeded_library: None) -> None:
    named = found("nvidia-smi shows ERR! on two cards")
    assert {"component:gpu", "symptom:hardware-error"} <= named
    assert "organisation:nvidia" not in named
    assert "component:gpu" in found("dcgm diag failed on node 12")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("the guy who wrote it left the company", "contributing_factor:lost-operational-knowledge"),
        (
            "only one person knew how that proxy worked",
            "contributing_factor:lost-operational-knowledge",
        ),
        ("everything was in one AZ", "contributing_factor:shared-failure-domain"),
        ("half the team was on holiday", "contributing_factor:time-pressure"),
        ("a cron job deleted prod", "contributing_factor:unbounded-automation"),
        ("the timeout was too aggressive", "contributing_factor:timeout-too-short"),
        (
            "it rolled out to every cluster at the same time",
            "contributing_factor:untested-change-fleet-wide",
        ),
    ],
)
def test_causes_told_the_way_postmortems_tell_them(
    seeded_library: None, text: str, value: str
) -> None:
    assert value in found(text)
