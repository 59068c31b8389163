"""A search's matches kept in order for its version of the content (cases.catalogue.
ranking): pages from the kept head, pages past it from the database, the same either way."""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cases.catalogue import ranking
from cases.catalogue.facet_index import CaseSet
from cases.catalogue.ranking import Ranked, RankedCache
from cases.models import Case, Vocabulary
from cases.search.text import refresh_search_text
from tests.catalogue.test_query import catalogue
from tests.factories import CaseFactory, OrganisationFactory, TermFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def library():
    """45 published cases that say "outage", a day apart; every third has DNS."""
    dns = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="dns", label_en="DNS")
    org = OrganisationFactory(slug="acme", name="Acme")
    for n in range(45):
        CaseFactory(
            public_id=f"IL-{n + 1:04d}",
            org=org,
            date=datetime.date(2020, 1, 1) + datetime.timedelta(days=n),
            title_en="Outage at the edge" if n % 4 == 0 else "Slow writes",
            summary_en="The outage lasted an hour.",
            with_terms=[dns] if n % 3 == 0 else [],
        )
    refresh_search_text(Case.objects.all())


def expected(query_string, size=20):
    """Each page of a search as the database ranks it, with nothing kept."""
    ranking.forget()
    query = catalogue(query_string)
    with ranking_head(100_000):
        counts = query.facet_counts()
    return counts.page.object_list


class ranking_head:
    def __init__(self, size):
        self.size = size

    def __enter__(self):
        self.old, ranking.HEAD = ranking.HEAD, self.size

    def __exit__(self, *exc):
        ranking.HEAD = self.old


def searches_in(query_string):
    query = catalogue(query_string)
    query.index  # noqa: B018
    with CaptureQueriesContext(connection) as queries:
        counts = query.facet_counts()
    runs = [q["sql"] for q in queries if "cases_searchentry" in q["sql"]]
    return counts.page.object_list, len(runs)


@pytest.mark.parametrize(
    "query_string",
    ["q=outage", "q=outage&page=2", "q=outage&page=3", "q=outage&component=dns",
     "q=outage&component=dns&page=2", "q=outage&sort=oldest&page=2"],
)  # fmt: skip
def test_pages_past_the_kept_head_are_asked_for_and_come_out_the_same(library, query_string):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite keeps every match in order")
    wanted = expected(query_string)
    ranking.forget()
    with ranking_head(5):
        catalogue("q=outage").facet_counts()  # the search, kept with a head of five
        page, runs = searches_in(query_string)
    assert page == wanted


def test_a_first_page_within_the_head_is_taken_from_memory(library):
    first, runs = searches_in("q=outage")
    assert runs == 1 and len(first) == 20
    again, runs = searches_in("q=outage")
    assert runs == 0 and again == first
    faceted, runs = searches_in("q=outage&component=dns")
    assert runs == 0 and faceted == expected("q=outage&component=dns")


def test_what_is_kept_is_bounded_by_the_keys_held():
    kept = RankedCache(limit=100)
    for n in range(5):
        kept.put(n, Ranked(CaseSet(), ranking.array("q", range(40)), True))
    assert kept.get(0) is None and kept.get(1) is None and kept.get(4) is not None
    kept.put("huge", Ranked(CaseSet(), ranking.array("q", range(500)), True))
    assert kept.get("huge") is None  # larger than all there is room for: not kept


# --- following a change ------------------------------------------------------------------

FOLLOWED = [
    "q=outage", "q=outage&page=2", "q=outage&page=3", "q=outage&sort=oldest",
    "q=outage&sort=newest&page=2", "q=outage&component=dns", "q=slow+writes",
]  # fmt: skip


def ranked_again(monkeypatch):
    """A list of the searches ranked afresh from here on (not followed)."""
    made = []
    afresh = ranking.ranked_afresh

    def counting(rows, ordering, index):
        made.append(tuple(ordering))
        return afresh(rows, ordering, index)

    monkeypatch.setattr(ranking, "ranked_afresh", counting)
    return made


def pages_as_followed(head):
    """Each search's first page and count as this process, following changes, lists it."""
    with ranking_head(head):
        return {
            qs: (counts.page.object_list, counts.page.paginator.count)
            for qs in FOLLOWED
            for counts in [catalogue(qs).facet_counts()]
        }


def pages_afresh():
    found = {}
    for qs in FOLLOWED:
        ranking.forget()
        counts = catalogue(qs).facet_counts()
        found[qs] = (counts.page.object_list, counts.page.paginator.count)
    ranking.forget()  # what follows the next change is ranked with its own head
    return found


def test_a_search_after_a_change_of_one_case_follows_it_rather_than_rank_again(
    library, monkeypatch
):
    from tests.factories import UserFactory
    from tests.workflow import approve_edit

    assert catalogue("q=slow").facet_counts().page.paginator.count == 33
    made = ranked_again(monkeypatch)
    case = Case.objects.get(public_id="IL-0001")  # "Outage at the edge": now slow too
    approve_edit(case, UserFactory(role="editor"), UserFactory(role="reviewer"),
                 title_en="Slow outage at the edge")  # fmt: skip
    counts = catalogue("q=slow").facet_counts()
    # The finding: every change ranked every search again, one query over all its matches.
    assert made == []
    assert counts.page.paginator.count == 34
    assert counts.page.object_list == expected("q=slow")


@pytest.mark.parametrize("head", [30, 1000])
def test_searches_followed_through_changes_list_what_ranking_them_afresh_lists(library, head):
    """With a head shorter than the matches (PostgreSQL keeps the first HEAD in order), a
    case ranking past it stays out of it, and the pages past it are asked for."""
    from cases.editorial import transitions as workflow
    from tests.factories import UserFactory
    from tests.workflow import approve_edit

    editor, reviewer = UserFactory(role="editor"), UserFactory(role="reviewer")
    org = Case.objects.first().org

    def newest_outage():
        new = CaseFactory(status="in_review", org=org, date=datetime.date(2030, 1, 1),
                          title_en="Outage, newest of all")  # fmt: skip
        refresh_search_text(Case.objects.filter(pk=new.pk))
        workflow.case_approve(case=new, user=reviewer)

    def oldest_outage():
        new = CaseFactory(status="in_review", org=org, date=datetime.date(1999, 1, 1),
                          title_en="Outage, oldest of all")  # fmt: skip
        refresh_search_text(Case.objects.filter(pk=new.pk))
        workflow.case_approve(case=new, user=reviewer)

    def withdraw_the_first_outage():
        first = Case.objects.get(public_id="IL-0041")
        workflow.case_withdraw(case=first, user=reviewer, note="Retracted.")

    def an_outage_no_longer():
        approve_edit(Case.objects.get(public_id="IL-0045"), editor, reviewer,
                     title_en="Slow writes after all")  # fmt: skip

    def moved_in_time():
        approve_edit(Case.objects.get(public_id="IL-0005"), editor, reviewer,
                     date=datetime.date(2025, 6, 1))  # fmt: skip

    pages_as_followed(head)
    for change in (newest_outage, oldest_outage, withdraw_the_first_outage,
                   an_outage_no_longer, moved_in_time):  # fmt: skip
        change()
        followed = pages_as_followed(head)
        assert followed == pages_afresh(), change.__name__
        pages_as_followed(head)  # kept at this version again, to follow the next change
