"""The library's version stamp moves with every committed write and only then: caches, ETags and
the facet index of every process key on it."""

from __future__ import annotations

import pytest
from django.db import transaction

from incidents.models import Case
from incidents.models import FacetValue
from incidents.selectors.library_version import current
from incidents.services import load_library
from incidents.services.case_submission import submit_case
from tests.conftest import SMALL_LIBRARY

pytestmark = pytest.mark.django_db


def test_loading_the_library_bumps_the_version_once_and_a_reload_not_at_all() -> None:
    before = current().number
    load_library([SMALL_LIBRARY])
    loaded = current()
    assert loaded.number == before + 1
    load_library([SMALL_LIBRARY])
    assert current() == loaded


def test_an_edited_case_bumps_the_version_and_its_etag(small_library: None) -> None:
    before = current()
    case = Case.objects.order_by("slug").first()
    assert case is not None
    case.title = case.title + " (edited)"
    case.save()
    after = current()
    assert after.number == before.number + 1
    assert after.etag != before.etag
    assert after.changed_at >= before.changed_at


def test_many_writes_in_one_transaction_bump_once(small_library: None) -> None:
    before = current().number
    with transaction.atomic():
        for case in Case.objects.all():
            case.save()
    assert current().number == before + 1


def test_a_rolled_back_write_leaves_the_version_alone(small_library: None) -> None:
    before = current()
    with transaction.atomic():
        Case.objects.order_by("slug").first().delete()  # type: ignore[union-attr]
        transaction.set_rollback(True)
    assert current() == before
    with transaction.atomic():  # and the next transaction still bumps
        Case.objects.order_by("slug").first().save()  # type: ignore[union-attr]
    assert current().number == before.number + 1


def test_a_submitted_case_bumps_the_version(small_library: None) -> None:
    case = Case.objects.order_by("slug").first()
    assert case is not None
    org = FacetValue.objects.filter(facet="organisation").order_by("slug").first()
    assert org is not None
    before = current().number
    entry = {
        "title": "A new case",
        "summary": "Something failed.",
        "kind": case.kind,
        "setting": case.setting,
        "published": "2024-01-01",
        "organisations": [org.slug],
        "sources": [{"url": "https://example.org/postmortem", "title": "Postmortem"}],
    }
    submit_case(slug="a-new-case", entry=entry)
    assert current().number > before


def test_the_version_reads_the_stamps_time_to_the_microsecond(small_library: None) -> None:
    """`current()` reads the time as seconds since the epoch on PostgreSQL (cheaper to load than
    a timestamptz): it must still be the stored instant exactly, or caches keyed on it would
    disagree with the ORM's reading."""
    from incidents.models import LibraryState

    state = LibraryState.objects.get(pk=LibraryState.SINGLETON_PK)
    for micros in (0, 1, 499_999, 500_000, 999_999, 123_457):
        state.changed_at = state.changed_at.replace(microsecond=micros)
        LibraryState.objects.filter(pk=state.pk).update(changed_at=state.changed_at)
        read = current()
        assert read.changed_at == state.changed_at
        assert read.changed_at.tzinfo is not None
        assert read.number == state.version
