"""Similar cases never list a case the page already links as related or as a recurrence."""

import pytest
from django.core.cache import cache

from cases import caching
from tests.factories import CaseFactory

pytestmark = pytest.mark.django_db


def similar_on(client, public_id):
    cache.clear()  # rendered afresh, so that its context is there to read
    caching._known_good.clear()
    return [case.public_id for case in client.get(f"/en/cases/{public_id}/").context["similar"]]


def test_similar_cases_leave_out_the_cases_the_page_links(client, terms):
    shared = [terms["dns"], terms["overlap"]]
    case = CaseFactory(public_id="IL-0001", with_terms=shared)
    related = CaseFactory(public_id="IL-0002", with_terms=shared)
    relating = CaseFactory(public_id="IL-0003", with_terms=shared)
    recurrence = CaseFactory(public_id="IL-0004", with_terms=shared, recurrence_of=case)
    unlinked = CaseFactory(public_id="IL-0005", with_terms=[terms["dns"]])
    case.related.add(related, through_defaults={"position": 0})
    relating.related.add(case, through_defaults={"position": 0})
    assert similar_on(client, "IL-0001") == [unlinked.public_id]
    # From the other side too: a page linked from the case, or a recurrence of it.
    assert "IL-0001" not in similar_on(client, "IL-0002")
    assert "IL-0001" not in similar_on(client, "IL-0004")
    assert recurrence.public_id not in similar_on(client, "IL-0001")


def test_a_full_list_of_similar_cases_is_filled_past_the_linked_ones(client, terms):
    shared = [terms["dns"], terms["overlap"]]
    case = CaseFactory(public_id="IL-0001", with_terms=shared)
    for n in range(2, 22):  # twenty related cases sharing both terms
        linked = CaseFactory(public_id=f"IL-{n:04d}", with_terms=shared)
        case.related.add(linked, through_defaults={"position": n})
    others = [CaseFactory(public_id=f"IL-{n:04d}", with_terms=[terms["dns"]]) for n in (30, 31)]
    assert sorted(similar_on(client, "IL-0001")) == sorted(o.public_id for o in others)
