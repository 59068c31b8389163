"""The table of vocabularies is what every other part says about them."""

from django.utils import translation

from cases.catalogue.filters import FACETS, CaseFilter
from cases.catalogue.vocabularies import BY_VALUE, VOCABULARIES, facet_of
from cases.models import LIST_VOCABULARIES, Case, Vocabulary


def test_the_choices_are_the_tables_in_its_order():
    # The migrations hold these choices: the values, labels and order may not change.
    with translation.override("en"):
        choices = [(value, str(label)) for value, label in Vocabulary.choices]
    assert choices == [
        ("root_cause", "Cause"),
        ("component", "Component"),
        ("symptom", "Symptom"),
        ("contributing", "Contributing factor"),
        ("domain", "Domain"),
    ]
    assert (
        Vocabulary.ROOT_CAUSE == "root_cause"
        and Vocabulary.ROOT_CAUSE.label is BY_VALUE["root_cause"].label
    )
    with translation.override("ko"):
        assert str(Vocabulary.CONTRIBUTING.label) == str(BY_VALUE["contributing"].label)


def test_the_exchange_lists_keep_their_order_and_vocabularies():
    assert list(LIST_VOCABULARIES.items()) == [
        ("domain", Vocabulary.DOMAIN),
        ("symptoms", Vocabulary.SYMPTOM),
        ("components", Vocabulary.COMPONENT),
        ("contributing", Vocabulary.CONTRIBUTING),
    ]
    assert all(isinstance(value, Vocabulary) for value in LIST_VOCABULARIES.values())


def test_the_facets_and_their_filters_follow_the_table():
    assert list(FACETS) == [row.facet for row in VOCABULARIES] + ["org", "severity"]
    filters = CaseFilter(queryset=Case.objects.none()).filters
    for row in VOCABULARIES:
        assert filters[row.facet].vocabulary == row.value
        assert filters[row.facet].label == row.label
        assert facet_of(row.value) == row.facet
    assert list(filters)[-2:] == ["from", "to"]
