"""How far a term's words may spread in a text and how they may be written: no term spans the
end of a clause; a phrase of two words has them together; a phrase may be written joined; a
component's one-word name written as a verb names no part."""

from __future__ import annotations

import pytest

from incidents.models import FacetValue
from incidents.suggest import suggest_filters

pytestmark = pytest.mark.django_db


def _found(text: str) -> set[str]:
    return {f"{s.facet}:{s.value.slug}" for s in suggest_filters(text)}


def _value(**fields: object) -> FacetValue:
    value, _created = FacetValue.objects.update_or_create(
        facet="symptom", slug="capacity-gone", defaults={"name": "capacity gone", **fields}
    )
    return value


def test_a_phrase_as_written_never_spans_the_end_of_a_sentence(small_library: None) -> None:
    """In order with a small gap, "deleted the logs. the cluster" would hold "deleted the
    cluster"; the full stop ends it."""
    _value(phrases=["deleted the cluster"])
    assert "symptom:capacity-gone" in _found("we deleted the whole cluster")
    assert "symptom:capacity-gone" not in _found("we deleted the logs. the cluster kept going")


def test_a_name_never_spans_the_end_of_a_sentence(small_library: None) -> None:
    _value(name="capacity loss")
    assert "symptom:capacity-gone" in _found("a capacity (planned) loss")
    assert "symptom:capacity-gone" not in _found("we added capacity. loss curves look fine")


def test_a_part_written_as_a_verb_names_no_part(small_library: None) -> None:
    """ "switched off" is no network switch, though "switched" and "switch" share a stem."""
    FacetValue.objects.create(facet="component", slug="net-switch", name="switch")
    assert "component:net-switch" in _found("the top-of-rack switch died")
    assert "component:net-switch" not in _found("failover was switched off")


def test_a_phrase_is_found_written_joined_or_apart(small_library: None) -> None:
    """A phrase, like a name, may be written as one word ("autoupdate" for "auto-update")."""
    _value(phrases=["auto-update", "rack power"])
    assert "symptom:capacity-gone" in _found("the autoupdate restarted networking")
    assert "symptom:capacity-gone" in _found("the rackpower dropped")


def test_a_two_word_phrase_is_found_only_with_its_words_together(small_library: None) -> None:
    """ "step time" is not "a step at a time"; a longer phrase keeps its small gaps."""
    _value(phrases=["step time", "deleted the cluster"])
    assert "symptom:capacity-gone" in _found("the step time doubled")
    assert "symptom:capacity-gone" not in _found("capacity came back a step at a time")
    assert "symptom:capacity-gone" in _found("someone deleted our whole cluster")


def test_a_paraphrase_that_repeats_a_word_is_no_paraphrase(small_library: None) -> None:
    """ "card" is a synonym of "gpu" (incidents.suggest.synonyms): "gpu card" read that way is
    "card card", which a payment form may spell."""
    _value(phrases=["gpu card"])
    assert "symptom:capacity-gone" in _found("the gpu card overheated")
    assert "symptom:capacity-gone" not in _found("type the card, card number and expiry date")
