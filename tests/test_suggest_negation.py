"""What a text rules out names nothing: "it was not a hardware problem", "we ruled out the
network", "no sign of memory pressure", "it wasn't the GPUs", "the network was ruled out", "the GPUs
weren't the problem", and what is joined to such a thing
("ruled out the fabric and the GPUs"). But a value named through a negative phrase of its own
("no alert fired", "without a canary", "not re-tested") is still named, and an auxiliary's "n't"
before its subject asks rather than denies ("wasn't that calico?")."""

from __future__ import annotations

import pytest

from tests.suggesting import found

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("text", "ruled_out", "named"),
    [
        (
            "the training job crashed but it was not a hardware problem",
            "root_cause:hardware-fault",
            "symptom:job-crash",
        ),
        (
            "we ruled out the network and found a memory leak",
            "component:network",
            "root_cause:memory-leak",
        ),
        (
            "no sign of memory pressure when the job hung",
            "root_cause:memory-exhaustion",
            "symptom:job-hang",
        ),
        ("the job hung, it was not the GPUs", "component:gpu", "symptom:job-hang"),
        ("it wasn't the network, the job hung", "component:network", "symptom:job-hang"),
        (
            "the pods got OOMKilled rather than the disk filling up",
            "root_cause:capacity-exhaustion",
            "symptom:out-of-memory",
        ),
        # A verdict after the thing clears it; a comma ends what "ruled out" governs.
        ("the network was ruled out, the job hung", "component:network", "symptom:job-hang"),
        ("the GPUs weren't the problem, the job hung", "component:gpu", "symptom:job-hang"),
        (
            "the job hung at the allreduce, instead of the NCCL timeout we expected",
            "symptom:nccl-timeout",
            "symptom:job-hang",
        ),
    ],
)
def test_a_value_the_text_rules_out_is_not_suggested(
    seeded_library: None, text: str, ruled_out: str, named: str
) -> None:
    values = found(text)
    assert ruled_out not in values
    assert named in values


def test_what_is_joined_to_a_ruled_out_thing_is_ruled_out_too(seeded_library: None) -> None:
    values = found(
        "training kept crashing with NCCL errors; we ruled out the InfiniBand fabric and the "
        "GPUs, it was a bug in the data loader"
    )
    # Neither the GPUs nor InfiniBand's NICs (whose word no longer raises like cases).
    assert not {"component:gpu", "component:rdma-nic", "component:network-fabric"} & values
    assert {"symptom:nccl-error", "root_cause:software-bug"} <= values
    # A comma alone joins nothing: the data loader after it is named.
    values = found("it was not the network or the storage, the dataloader leaked")
    assert not {"component:network", "component:storage"} & values
    assert "component:training-data-loader" in values


@pytest.mark.parametrize(
    ("text", "named"),
    [
        (
            "the job didn't restart and no alert fired",
            "contributing_factor:no-automated-fault-detection",
        ),
        ("we shipped it without a canary", "contributing_factor:untested-change-fleet-wide"),
        (
            "the branch was rebased and not re-tested before it went back in",
            "contributing_factor:change-not-retested",
        ),
        (
            "the dataloader hung and nothing timed out for hours",
            "contributing_factor:hangs-do-not-fail-fast",
        ),
        ("reddit's pi day thing, wasn't that calico?", "component:container-networking"),
    ],
)
def test_a_value_named_through_a_negative_phrase_is_still_named(
    seeded_library: None, text: str, named: str
) -> None:
    assert named in found(text)
