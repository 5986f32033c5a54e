"""Loading the library: strict, atomic, idempotent, with errors that name file, case and field."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError
from django.core.management import call_command

from incidents.models import Case
from incidents.models import CaseFacetLink
from incidents.models import FacetAlias
from incidents.models import FacetValue
from incidents.models import KeyFigure
from incidents.services import LibraryError
from incidents.services import load_library

pytestmark = pytest.mark.django_db


def _load_command(*paths: Path) -> str:
    out = StringIO()
    call_command("load_cases", *[str(p) for p in paths], stdout=out)
    return out.getvalue()


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new))


def test_loads_cases_with_all_their_parts(library_copy: Path) -> None:
    _load_command(library_copy)

    case = Case.objects.get(slug="leaky-loader")
    assert case.title == "A leaking data loader stalls pretraining"
    assert case.period_label == "Mar 2023 – Aug 2023"
    assert [f.measures for f in KeyFigure.objects.filter(case=case)] == [
        "A100 GPUs in the two clusters"
    ]
    assert [(c.kind, c.value, c.bound) for c in case.costs.order_by("position")] == [  # type: ignore[attr-defined]
        ("interruptions", 12, ""),
        ("training_downtime_hours", 5.5, "about"),
    ]
    [table] = case.breakdowns.all()  # type: ignore[attr-defined]
    rows = list(table.rows.order_by("position"))
    assert [(r.label, r.count, r.count_share) for r in rows] == [
        ("Loader leak", 9, 75),
        ("Unknown", 3, 25),
    ]
    assert [v.slug for v in rows[0].facet_values.all()] == ["training-data-loader"]
    assert [link.text for link in case.remediation_links.all()] == [  # type: ignore[attr-defined]
        "Restarted by hand from the last checkpoint."
    ]
    assert [link.text for link in case.lesson_links.all()] == [  # type: ignore[attr-defined]
        "Weigh failures by the GPU time they cost, not by how often they happen."
    ]


def test_loading_twice_changes_nothing(library_copy: Path) -> None:
    _load_command(library_copy)
    before = list(Case.objects.values_list("id", "updated_at").order_by("id"))
    links_before = list(CaseFacetLink.objects.values_list("id", flat=True).order_by("id"))

    output = _load_command(library_copy)

    assert "Library already up to date." in output
    assert "cases: 0 created, 0 updated, 3 unchanged" in output
    assert list(Case.objects.values_list("id", "updated_at").order_by("id")) == before
    assert list(CaseFacetLink.objects.values_list("id", flat=True).order_by("id")) == links_before


def test_an_edit_updates_only_that_case(library_copy: Path) -> None:
    _load_command(library_copy)
    _replace(library_copy / "cases" / "hbm-failures.yaml", "many times", "419 times")

    output = _load_command(library_copy)

    assert "cases: 0 created, 1 updated, 2 unchanged" in output
    assert "419 times" in Case.objects.get(slug="hbm-failures").summary


def test_parent_value_implies_links_for_filtering(library_copy: Path) -> None:
    _load_command(library_copy)
    hbm = Case.objects.get(slug="hbm-failures")
    links = {(link.value.slug, link.direct) for link in CaseFacetLink.objects.filter(case=hbm)}
    assert ("gpu-memory", True) in links
    assert ("gpu-hardware", False) in links  # implied by its child gpu-memory
    assert ("job-crash", False) in links  # ecc-error's parent


@pytest.mark.parametrize(
    ("file", "old", "new", "expected"),
    [
        (
            "cases/leaky-loader.yaml",
            'url: "https://example.org/paper", kind',
            'url: "htp:/broken", kind',
            "cases/leaky-loader.yaml: case 'leaky-loader': field 'sources[0].url': "
            "'htp:/broken' is not a valid http(s) URL",
        ),
        (
            "cases/leaky-loader.yaml",
            "symptoms: [nccl-timeout]",
            "symptoms: [nccl-timeouts-typo]",
            "cases/leaky-loader.yaml: case 'leaky-loader': field 'symptoms[0]': "
            "'nccl-timeouts-typo' is not a known symptom value",
        ),
        (
            "cases/hbm-failures.yaml",
            "title: HBM failures interrupt a large run\n",
            "",
            "cases/hbm-failures.yaml: case 'hbm-failures': field 'title': is required",
        ),
        (
            "cases/hbm-failures.yaml",
            "period: {start: 2024}",
            "period: {start: 2024-13}",
            "cases/hbm-failures.yaml: case 'hbm-failures': field 'period.start': '2024-13' is not a real date",
        ),
        (
            "cases/hbm-failures.yaml",
            "period: {start: 2024}",
            "period: {start: 2204}",
            "cases/hbm-failures.yaml: case 'hbm-failures': field 'period.start': '2204' is in the"
            " future",
        ),
        (
            "cases/flaky-network.yaml",
            "period: {start: 2022-05-02}",
            "period: {start: 2202-05-02}",
            "field 'period.start': '2202-05-02' is in the future",
        ),
        (
            "cases/flaky-network.yaml",
            "kind: incident",
            "kind: outage",
            "cases/flaky-network.yaml: case 'flaky-network': field 'kind': 'outage' is not one of",
        ),
        (
            "cases/flaky-network.yaml",
            "summary:",
            "sumary:",
            "cases/flaky-network.yaml: case 'flaky-network': field 'sumary': is not a known field",
        ),
        (
            "cases/leaky-loader.yaml",
            "lessons: [weight-failures-by-gpu-time]",
            "lessons: [unknown-lesson]",
            "field 'lessons[0].ref': 'unknown-lesson' is not a known entry of shared/lessons*.yaml",
        ),
        (
            "cases/leaky-loader.yaml",
            'measures: A100 GPUs in the two clusters, source: "https://example.org/paper"',
            'measures: A100 GPUs in the two clusters, source: "https://example.org/other"',
            "field 'key_figures[0].source': 'https://example.org/other' is not one of the case's sources",
        ),
        (
            "cases/leaky-loader.yaml",
            "measures: A100 GPUs in the two clusters, source",
            "source",
            "field 'key_figures[0].measures': is required",
        ),
        (
            "cases/leaky-loader.yaml",
            "{kind: interruptions, value: 12,",
            "{kind: interruptions, value: many,",
            "field 'costs[0].value': 'many' is not a number",
        ),
        (
            "cases/leaky-loader.yaml",
            "{kind: interruptions, value: 12,",
            "{kind: downtime_hours, value: 12,",
            "field 'costs[0].kind': 'downtime_hours' is not one of gpu_hours_lost, gpu_time_share",
        ),
        (
            "cases/leaky-loader.yaml",
            "{kind: interruptions, value: 12,",
            "{value: 12,",
            "field 'costs[0].kind': is required: one of gpu_hours_lost, gpu_time_share",
        ),
        (
            "cases/leaky-loader.yaml",
            "costs:\n",
            'cost:\n  interruptions: {value: 12, source: "https://example.org/paper"}\ncosts:\n',
            "field 'cost': the `cost:` mapping was replaced by a `costs:` list of typed figures",
        ),
        (
            "cases/leaky-loader.yaml",
            "locator: Section 4, source",
            "locator: Section 4, derived: true, source",
            "field 'costs[1].formula': is required",
        ),
        (
            "cases/leaky-loader.yaml",
            "count: 9, count_share: 75}",
            "count: 9, count_share: 95}",
            "field 'breakdowns[0].rows': the rows' count_share values sum to 120, more than 100 "
            "(a tolerance of 0.5 points allows for rounding)",
        ),
        (
            "cases/leaky-loader.yaml",
            "count: 9, count_share: 75}",
            "count: 19, count_share: 75}",
            "field 'breakdowns[0].rows[0].count': 19 is more than the table's count_total",
        ),
        (
            "cases/leaky-loader.yaml",
            "count: 9, count_share: 75}",
            "count: 9, cost_share: 75}",
            "field 'breakdowns[0].rows[0].cost': the table has no `cost_unit`, so its rows give no costs",
        ),
        (
            "cases/leaky-loader.yaml",
            "{label: Unknown, count: 3, count_share: 25}",
            "{label: Unknown}",
            "field 'breakdowns[0].rows[1]': needs at least one number",
        ),
        (
            "cases/leaky-loader.yaml",
            "maps_to: {components: [training-data-loader]}",
            "maps_to: {components: [warp-drive]}",
            "field 'breakdowns[0].rows[0].maps_to.components[0]': 'warp-drive' is not a known component value",
        ),
        (
            "cases/leaky-loader.yaml",
            "    counted: interruptions\n",
            "    counted: tickets\n",
            "field 'breakdowns[0].counted': 'tickets' is not one of failed_jobs, gpu_jobs",
        ),
        (
            "cases/leaky-loader.yaml",
            "    locator: Table 2\n",
            "    locator: Table 2\n    source: https://example.org/elsewhere\n",
            "field 'breakdowns[0].source': 'https://example.org/elsewhere' is not one of the case's sources",
        ),
        (
            "vocabulary/component.yaml",
            "  name: Network\n",
            "  name: GPUs\n",
            "vocabulary/component.yaml: value 'network': field 'name': 'GPUs' is the same spelling as 'GPU'",
        ),
        (
            "vocabulary/component.yaml",
            "  parent: gpu-hardware\n",
            "  parent: gpu-hardwares\n",
            "vocabulary/component.yaml: value 'gpu-memory': field 'parent': 'gpu-hardwares' is not a "
            "component value",
        ),
        (
            "cases/flaky-network.yaml",
            "title: Flapping links slow a job\n",
            "title: [Flapping\n",
            "cases/flaky-network.yaml: is not valid YAML (line",
        ),
    ],
)
def test_a_broken_field_is_named_and_nothing_is_written(
    library_copy: Path, file: str, old: str, new: str, expected: str
) -> None:
    _replace(library_copy / file, old, new)

    with pytest.raises(CommandError) as info:
        _load_command(library_copy)

    assert expected in str(info.value)
    assert "nothing was loaded" in str(info.value)
    assert Case.objects.count() == 0
    assert FacetValue.objects.count() == 0


def test_a_broken_update_leaves_the_previous_library_intact(library_copy: Path) -> None:
    _load_command(library_copy)
    _replace(library_copy / "cases" / "hbm-failures.yaml", "many times", "419 times")
    _replace(library_copy / "cases" / "leaky-loader.yaml", "kind: incident", "kind: wrong")

    with pytest.raises(LibraryError):
        load_library([library_copy])

    assert "many times" in Case.objects.get(slug="hbm-failures").summary
    assert Case.objects.count() == 3


def test_software_bug_and_software_bugs_cannot_both_exist(library_copy: Path) -> None:
    (library_copy / "vocabulary" / "root_cause-extra.yaml").write_text(
        "- slug: software-bugs\n  name: Software Bugs\n  description: dup\n"
    )
    with pytest.raises(LibraryError) as info:
        load_library([library_copy])
    message = str(info.value)
    assert "is the same spelling as" in message
    assert "'Software Bugs'" in message and "'Software bug'" in message


def test_every_problem_is_reported_at_once(library_copy: Path) -> None:
    _replace(library_copy / "cases" / "hbm-failures.yaml", "kind: study", "kind: nope")
    _replace(library_copy / "cases" / "flaky-network.yaml", "setting: training", "setting: nope")
    with pytest.raises(LibraryError) as info:
        load_library([library_copy])
    files = {p.file.split("/")[-1] for p in info.value.problems}
    assert files == {"hbm-failures.yaml", "flaky-network.yaml"}


def test_parent_cycle_is_refused(library_copy: Path) -> None:
    _replace(
        library_copy / "vocabulary" / "component.yaml",
        "  description: The accelerators themselves.\n",
        "  description: The accelerators themselves.\n  parent: gpu-memory\n",
    )
    with pytest.raises(LibraryError) as info:
        load_library([library_copy])
    assert "the parents form a cycle" in str(info.value)
    assert FacetValue.objects.count() == 0


def test_aliases_are_loaded_and_one_alias_cannot_name_two_values(library_copy: Path) -> None:
    load_library([library_copy])
    assert set(
        FacetAlias.objects.filter(value__slug="nccl-timeout").values_list("text", flat=True)
    ) == {
        "NCCL watchdog timeout",
        "collective timeout",
    }
    _replace(
        library_copy / "vocabulary" / "symptom.yaml",
        "description: The job stopped with an error.",
        "description: The job stopped with an error.\n  aliases: [NCCL watchdog timeouts]",
    )
    with pytest.raises(LibraryError) as info:
        load_library([library_copy])
    assert "'NCCL watchdog timeouts' is the same spelling as 'NCCL watchdog timeout'" in str(
        info.value
    )


@pytest.mark.parametrize(
    ("alias", "message"),
    [
        # another value's name, in the same facet
        ("Job crashes", "'Job crashes' is the same spelling as 'Job crash' of value 'job-crash'"),
        # another value's alias, in another facet ("power swing" on a cause and a symptom)
        ("HBM", "'HBM' is the same spelling as 'HBM' of component value 'gpu-memory'"),
        # another value's name, in another facet ("VAST" on a component and an organisation)
        ("Meta", "'Meta' is the same spelling as 'Meta' of organisation value 'meta'"),
    ],
)
def test_a_name_or_alias_names_one_value_across_all_facets(
    library_copy: Path, alias: str, message: str
) -> None:
    _replace(
        library_copy / "vocabulary" / "symptom.yaml",
        "  description: A memory error the GPU detected.",
        f"  description: A memory error the GPU detected.\n  aliases: [{alias}]",
    )
    with pytest.raises(LibraryError) as info:
        load_library([library_copy])
    [problem] = info.value.problems
    assert problem.file.endswith("vocabulary/symptom.yaml")
    assert (problem.entry, problem.field) == ("value 'ecc-error'", "aliases")
    assert message in problem.message
    assert FacetValue.objects.count() == 0


def test_missing_path_is_reported(tmp_path: Path) -> None:
    with pytest.raises(CommandError) as info:
        _load_command(tmp_path / "nope")
    assert "nope: does not exist" in str(info.value)


def test_a_case_without_a_period_sorts_by_its_publication_date(library_copy: Path) -> None:
    case_file = library_copy / "cases" / "hbm-failures.yaml"
    _replace(case_file, "period: {start: 2024}", "published: 2021-10")
    load_library([library_copy])
    case = Case.objects.get(slug="hbm-failures")
    assert case.period_start is None
    assert case.period_label == "published Oct 2021"
    # leaky-loader happened in 2023; flaky-network in 2022; hbm-failures was published in 2021.
    assert list(Case.objects.values_list("slug", flat=True)) == [
        "leaky-loader",
        "flaky-network",
        "hbm-failures",
    ]


def test_a_case_with_neither_period_nor_published_is_refused(library_copy: Path) -> None:
    """A publication year is not a period, and a case that gives neither cannot be placed in time."""
    _replace(library_copy / "cases" / "hbm-failures.yaml", "period: {start: 2024}\n", "")
    with pytest.raises(LibraryError) as info:
        load_library([library_copy])
    [problem] = info.value.problems
    assert problem.file.endswith("cases/hbm-failures.yaml")
    assert (problem.entry, problem.field) == ("case 'hbm-failures'", "period")
    assert "or `published` is required" in problem.message
    assert Case.objects.count() == 0


def test_a_period_without_a_start_is_refused(library_copy: Path) -> None:
    _replace(
        library_copy / "cases" / "hbm-failures.yaml", "period: {start: 2024}", "period: {end: 2024}"
    )
    with pytest.raises(LibraryError) as info:
        load_library([library_copy])
    assert "field 'period.start': is required" in str(info.value)


def test_a_vocabulary_file_that_is_not_a_list_of_mappings_is_named(library_copy: Path) -> None:
    (library_copy / "vocabulary" / "symptom.yaml").write_text(
        "slug: nccl-timeout\nname: NCCL timeout\n"
    )
    (library_copy / "shared" / "lessons.yaml").write_text("- just a sentence\n")
    with pytest.raises(LibraryError) as info:
        load_library([library_copy])
    message = str(info.value)
    assert "vocabulary/symptom.yaml: must be a YAML list of value entries" in message
    assert "shared/lessons.yaml: entry #1: must be a mapping with slug, text" in message
    assert Case.objects.count() == 0
