"""A new or changed case renews a case page only if it can change the page's similar cases:
by sharing more terms than the last shown, as many and being more recent, or pushing a
shown case out of those compared (cases.catalogue.changes.SimilarShown)."""

import pytest

from cases.editorial import transitions as workflow
from tests.factories import CaseFactory, TermFactory
from tests.public.test_caching_after_changes import assert_kept_and_right

pytestmark = pytest.mark.django_db


@pytest.fixture
def similar_library():
    """IL-0300 shares two terms with each of five cases (a full list of similar cases)."""
    terms = [
        TermFactory(vocabulary="component", slug=f"part-{n}", label_en=f"Part {n}")
        for n in range(3)
    ]
    made = {"terms": terms}
    made["page"] = CaseFactory(public_id="IL-0300", with_terms=terms[:2])
    for n in range(5):
        CaseFactory(public_id=f"IL-031{n}", with_terms=terms[:2])
    return made


def publish_new(reviewer, public_id, terms, **fields):
    """A new case approved through the workflow."""
    new = CaseFactory(public_id=public_id, status="in_review", with_terms=terms, **fields)
    workflow.case_approve(case=new, user=reviewer)


def test_a_new_case_with_fewer_shared_terms_than_the_last_similar_leaves_a_case_page_cached(
    client, similar_library, people
):
    _editor, reviewer = people
    page = "/en/cases/IL-0300/"
    client.get(page)
    publish_new(reviewer, "IL-0320", similar_library["terms"][:1])
    # The finding (under load): every new case renewed every case page sharing a term.
    assert client.get(page)["X-Cache"] == "hit"
    from django.core.cache import cache

    cache.clear()
    assert "IL-0320" not in client.get(page).content.decode()  # a fresh page agrees


def test_a_new_case_sharing_as_many_terms_as_the_last_similar_renews_the_case_page(
    client, similar_library, people
):
    _editor, reviewer = people
    page = "/en/cases/IL-0300/"
    client.get(page)
    publish_new(reviewer, "IL-0321", similar_library["terms"][:2], title_en="Newest twin")
    response = client.get(page)
    assert response["X-Cache"] == "miss" and "Newest twin" in response.content.decode()


def test_a_new_case_sharing_as_many_terms_as_the_last_similar_but_older_leaves_the_page_cached(
    client, similar_library, people
):
    import datetime

    page = "/en/cases/IL-0300/"
    client.get(page)
    publish_new(people[1], "IL-0323", similar_library["terms"][:2], date=datetime.date(1990, 1, 1))
    # The finding (under load): a new case with as many shared terms renewed the page,
    # though the similar cases of one count are the most recent, and it is older than all.
    assert_kept_and_right(client, page)


def test_an_older_new_case_renews_the_page_when_the_similar_candidates_are_full(
    client, similar_library, people
):
    import datetime

    # Twenty candidates share both terms: a newer id at that count may push one of them
    # out of those compared, so the page is weighed afresh.
    for n in range(15):
        CaseFactory(public_id=f"IL-04{n:02d}", with_terms=similar_library["terms"][:2])
    page = "/en/cases/IL-0300/"
    client.get(page)
    publish_new(people[1], "IL-0324", similar_library["terms"][:2], date=datetime.date(1990, 1, 1))
    assert client.get(page)["X-Cache"] == "miss"


def test_older_new_cases_renew_the_page_once_they_push_a_shown_case_out_of_the_compared(
    client, people
):
    import datetime

    # Twenty cases are compared, by shared terms and then newest key first; eighteen share
    # both terms with IL-0300, and IL-0301, the first made, is the most recent of them.
    terms = [TermFactory(vocabulary="component", slug=f"part-{n}") for n in range(2)]
    CaseFactory(public_id="IL-0300", with_terms=terms)
    CaseFactory(public_id="IL-0301", with_terms=terms, date=datetime.date(2030, 1, 1))
    for n in range(17):
        CaseFactory(public_id=f"IL-04{n:02d}", with_terms=terms)
    page = "/en/cases/IL-0300/"
    assert "IL-0301" in client.get(page).content.decode()
    older = datetime.date(1990, 1, 1)
    publish_new(people[1], "IL-0501", terms, date=older)
    assert client.get(page)["X-Cache"] == "hit"  # nineteen compared
    publish_new(people[1], "IL-0502", terms, date=older)
    assert client.get(page)["X-Cache"] == "hit"  # twenty
    publish_new(people[1], "IL-0503", terms, date=older)
    # The third since the page was rendered pushes IL-0301, the oldest key, out.
    response = client.get(page)
    assert response["X-Cache"] == "miss"
    assert "IL-0301" not in response.content.decode()


def test_a_case_with_a_term_whose_recent_cases_alone_are_compared_renews_the_case_page(
    client, similar_library, people, monkeypatch
):
    # With a window of three recent cases a term, a new case with one of the terms pushes
    # an older case out of it: who is similar may change, whatever it shares.
    monkeypatch.setattr("cases.public.views.SIMILAR_CANDIDATES", 3)
    _editor, reviewer = people
    page = "/en/cases/IL-0300/"
    client.get(page)
    publish_new(reviewer, "IL-0322", similar_library["terms"][:1])
    assert client.get(page)["X-Cache"] == "miss"


def page_with_five_similar_after(*, older):
    """IL-0300 and its five similar cases, each with both of two terms, made after `older`
    cases with the first term alone; the terms."""
    terms = [TermFactory(vocabulary="component", slug=f"part-{n}") for n in range(2)]
    for n in range(older):
        CaseFactory(public_id=f"IL-02{n:02d}", with_terms=terms[:1])
    CaseFactory(public_id="IL-0300", with_terms=terms)
    for n in range(5):
        CaseFactory(public_id=f"IL-031{n}", with_terms=terms)
    return terms


def test_a_new_case_sharing_a_common_term_leaves_a_page_whose_similar_cases_are_recent(
    client, people, monkeypatch
):
    # Windows of six recent cases a term: the page's five similar cases are its first
    # term's newest, and a new case with that term pushes an older case out of the window,
    # none of them.
    monkeypatch.setattr("cases.public.views.SIMILAR_CANDIDATES", 6)
    terms = page_with_five_similar_after(older=12)
    page = "/en/cases/IL-0300/"
    client.get(page)
    publish_new(people[1], "IL-0320", terms[:1])
    # The finding (under load): a term this common renewed every page that has it.
    assert_kept_and_right(client, page)


def test_a_new_case_sharing_a_common_term_renews_a_page_whose_similar_cases_are_near_its_edge(
    client, people, monkeypatch
):
    # Windows of five: the new case pushes the oldest of the five similar cases out of its
    # first term's window, and it shares one term less.
    monkeypatch.setattr("cases.public.views.SIMILAR_CANDIDATES", 5)
    terms = page_with_five_similar_after(older=2)
    page = "/en/cases/IL-0300/"
    before = client.get(page).content.decode()
    publish_new(people[1], "IL-0320", terms[:1])
    response = client.get(page)
    assert response["X-Cache"] == "miss"
    assert response.content.decode() != before
