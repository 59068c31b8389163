"""A change costs readers what it changes: cached pages that show nothing a change touched
are kept, and every page that does is rendered afresh on the next request, in every
process and with Redis."""

import pytest
from django.core.cache import caches
from django.test import override_settings

from cases.editorial import transitions as workflow
from cases.models import Case
from cases.search.text import refresh_search_text
from tests.factories import CaseFactory, OrganisationFactory, TermFactory, UserFactory
from tests.public.test_caching import memory_of, shared_redis  # noqa: F401 (a fixture)
from tests.workflow import approve_edit

pytestmark = pytest.mark.django_db


@pytest.fixture
def library():
    dns = TermFactory(vocabulary="component", slug="dns", label_en="DNS")
    disk = TermFactory(vocabulary="component", slug="disk", label_en="Disk")
    acme = OrganisationFactory(slug="acme", name="Acme")
    other = OrganisationFactory(slug="other", name="Other")
    made = {
        "dns": dns,
        "disk": disk,
        "a": CaseFactory(public_id="IL-0101", org=acme, title_en="Alpha", with_terms=[dns]),
        "b": CaseFactory(public_id="IL-0102", org=other, title_en="Bravo", with_terms=[disk]),
        "c": CaseFactory(public_id="IL-0103", org=other, title_en="Charlie", with_terms=[disk]),
    }
    refresh_search_text(Case.objects.all())  # as saving through the workflow does
    return made


def cache_of(client, urls):
    """{url: "hit" or "miss"} for one request each."""
    return {url: client.get(url)["X-Cache"] for url in urls}


def assert_kept_and_right(client, *urls):
    """Each page comes from the cache, and is what rendering it afresh makes."""
    from django.core.cache import cache

    assert cache_of(client, urls) == dict.fromkeys(urls, "hit")
    kept = [client.get(url).content for url in urls]
    cache.clear()
    assert [client.get(url).content for url in urls] == kept


def test_a_corrected_text_leaves_the_pages_that_do_not_show_it_cached(client, library, people):
    kept = ["/en/cases/IL-0102/", "/en/cases/IL-0102.json", "/en/cases/?org=other"]
    renewed = ["/en/cases/IL-0101/", "/en/cases/IL-0101.json", "/en/cases/", "/en/cases/?org=acme"]
    cache_of(client, kept + renewed)
    approve_edit(library["a"], *people, title_en="Alpha, corrected")
    # The finding: every change dropped every cached page.
    assert cache_of(client, kept) == dict.fromkeys(kept, "hit")
    # Its own pages rendered again; the lists showing its card have that card put in again
    # (cases.catalogue.list_blocks).
    assert cache_of(client, renewed) == {
        **dict.fromkeys(renewed[:2], "miss"),
        **dict.fromkeys(renewed[2:], "mended"),
    }
    for url in renewed:
        assert "Alpha, corrected" in client.get(url).content.decode(), url
    assert cache_of(client, renewed) == dict.fromkeys(renewed, "hit")


def test_a_published_case_renews_every_list_and_the_pages_it_may_be_similar_to(
    client, library, people
):
    editor, reviewer = people
    urls = {
        "list": "/en/cases/?org=other",  # its counts of organisations change
        "similar": "/en/cases/IL-0101/",  # shares the new case's term
        "unrelated": "/en/cases/IL-0102/",
    }
    cache_of(client, urls.values())
    new = CaseFactory(
        public_id="IL-0104", title_en="Delta", status="in_review", with_terms=[library["dns"]]
    )
    workflow.case_approve(case=new, user=reviewer)
    assert cache_of(client, urls.values()) == {
        urls["list"]: "miss",
        urls["similar"]: "miss",
        urls["unrelated"]: "hit",
    }
    assert "Delta" in client.get(urls["similar"]).content.decode()  # now a similar case
    assert "IL-0104" in client.get("/en/cases/?component=dns").content.decode()


@pytest.mark.parametrize(
    ("page", "withdrawn", "gone"),
    [
        ("/en/cases/IL-0102/", "c", "Charlie"),  # a page that links to it (related)
        ("/en/cases/?org=other&component=disk", "b", "IL-0102"),  # a list it was on
    ],
)
def test_withdrawing_a_case_renews_the_pages_that_showed_it(
    client, library, people, page, withdrawn, gone
):
    from cases.models import CaseRelation

    _editor, reviewer = people
    CaseRelation.objects.create(from_case=library["b"], to_case=library["c"], position=0)
    assert gone in client.get(page).content.decode()
    workflow.case_withdraw(case=library[withdrawn], user=reviewer, note="Retracted.")
    response = client.get(page)
    assert response["X-Cache"] == "miss" and gone not in response.content.decode()


def test_a_search_is_answered_afresh_after_any_change(client, library, people):
    search = "/en/cases/?q=bravo"
    cache_of(client, [search])
    approve_edit(library["a"], *people, summary_en="Now mentions bravo.")
    response = client.get(search)
    assert response["X-Cache"] == "miss" and "IL-0101" in response.content.decode()


def test_a_kept_page_keeps_its_etag_and_browsers_keep_their_copy(client, library, people):
    page = client.get("/en/cases/IL-0102/")
    approve_edit(library["a"], *people, summary_en="Elsewhere.")
    again = client.get("/en/cases/IL-0102/", headers={"if-none-match": page["ETag"]})
    assert again.status_code == 304 and again["ETag"] == page["ETag"]


def test_each_process_keeps_or_renews_its_own_pages_after_another_process_changes_one(
    client, library, people
):
    try:
        with override_settings(CACHES=memory_of("worker-1")):
            cache_of(client, ["/en/cases/IL-0101/", "/en/cases/IL-0102/"])
        with override_settings(CACHES=memory_of("worker-2")):
            approve_edit(library["a"], *people, title_en="Alpha from worker two")
        with override_settings(CACHES=memory_of("worker-1")):
            assert client.get("/en/cases/IL-0102/")["X-Cache"] == "hit"
            renewed = client.get("/en/cases/IL-0101/")
            assert "Alpha from worker two" in renewed.content.decode()
    finally:
        for process in ("worker-1", "worker-2"):
            with override_settings(CACHES=memory_of(process)):
                caches["default"].clear()


def test_pages_kept_in_redis_outlive_changes_that_do_not_touch_them(
    client,
    library,
    people,
    shared_redis,  # noqa: F811
):
    cache_of(client, ["/en/cases/IL-0101/", "/en/cases/IL-0102/"])
    approve_edit(library["a"], *people, title_en="Alpha in Redis")
    assert client.get("/en/cases/IL-0102/")["X-Cache"] == "hit"
    assert "Alpha in Redis" in client.get("/en/cases/IL-0101/").content.decode()


def test_relabelling_a_term_renews_every_page(client, library):
    from cases.editorial.names import name_save

    urls = ["/en/cases/IL-0102/", "/en/cases/?org=other"]
    cache_of(client, urls)
    term = library["disk"]
    term.label_en = "Storage disk"
    name_save(obj=term, user=UserFactory(role="reviewer"))
    assert cache_of(client, urls) == dict.fromkeys(urls, "miss")
    assert "Storage disk" in client.get(urls[0]).content.decode()


def test_the_lists_facets_name_terms_and_organisations_as_they_are_after_each_change(
    client, library, people
):
    from cases.editorial.names import name_save

    def sidebar(path):
        page = client.get(path).content.decode()
        return page[page.index('<aside class="facets"') :]

    disk = library["disk"]
    assert '<span class="facet-label">Disk</span>' in sidebar("/en/cases/")
    assert f'<span class="facet-label">{disk.label_ko}</span>' in sidebar("/ko/cases/")
    approve_edit(library["a"], *people, title_en="Alpha, again")  # followed, names kept
    assert '<span class="facet-label">Disk</span>' in sidebar("/en/cases/")
    assert f'<span class="facet-label">{disk.label_ko}</span>' in sidebar("/ko/cases/")
    reviewer = UserFactory(role="reviewer")
    disk.label_en = "Storage disk"
    name_save(obj=disk, user=reviewer)
    other = library["b"].org
    other.name = "Other Corp"
    name_save(obj=other, user=reviewer)
    english = sidebar("/en/cases/")
    assert '<span class="facet-label">Storage disk</span>' in english
    assert '<span class="facet-label">Other Corp</span>' in english


def test_a_search_the_change_does_not_touch_stays_cached(client, library, people):
    searches = ["/en/cases/?q=charlie", "/en/cases.json?q=charlie"]
    cache_of(client, searches)
    approve_edit(library["a"], *people, summary_en="A correction about something else.")
    # The finding (under load): every search was rendered afresh after every correction.
    assert cache_of(client, searches) == dict.fromkeys(searches, "hit")


def test_a_search_a_changed_case_leaves_is_answered_afresh(client, library, people):
    search = "/en/cases/?q=alpha"
    assert "IL-0101" in client.get(search).content.decode()
    approve_edit(library["a"], *people, title_en="Zulu", summary_en="Renamed.")
    response = client.get(search)
    assert response["X-Cache"] == "miss" and "IL-0101" not in response.content.decode()


def test_a_new_case_a_search_does_not_find_leaves_the_search_cached(client, library, people):
    searches = ["/en/cases/?q=charlie", "/en/cases/?q=charlie&org=other"]
    cache_of(client, searches)
    new = CaseFactory(
        public_id="IL-0107", org=library["b"].org, title_en="Delta", status="in_review"
    )
    workflow.case_approve(case=new, user=people[1])
    # The finding (under load): every new case renewed every search, though no search's
    # counts are over cases it does not find.
    assert_kept_and_right(client, *searches)


def test_a_new_case_a_search_finds_renews_the_search(client, library, people):
    search = "/en/cases/?q=charlie"
    client.get(search)
    new = CaseFactory(public_id="IL-0108", title_en="Charlie again", status="in_review")
    refresh_search_text(Case.objects.filter(pk=new.pk))
    workflow.case_approve(case=new, user=people[1])
    response = client.get(search)
    assert response["X-Cache"] == "miss" and "IL-0108" in response.content.decode()


def test_a_match_whose_facets_change_renews_the_search_it_is_counted_in(client, library, people):
    search = "/en/cases/?q=charlie"
    assert "org=acme" not in client.get(search).content.decode()  # no match of Acme's
    approve_edit(library["c"], *people, org=library["a"].org)  # Other -> Acme
    response = client.get(search)
    assert response["X-Cache"] == "miss"
    assert "org=acme" in response.content.decode()


def test_a_corrected_search_is_answered_afresh_after_any_change(client, library, people):
    search = "/en/cases/?q=charlee"  # answered as "charlie"
    assert "IL-0103" in client.get(search).content.decode()
    approve_edit(library["a"], *people, summary_en="Unrelated.")
    assert client.get(search)["X-Cache"] == "miss"


@pytest.mark.parametrize(
    "search",
    [
        # No case has both words, each of which the library has: the cases with one of them.
        "/en/cases/?q=bravo+charlie",
        # Nothing in the library is like "zymurgy": no correction, the cases with "bravo".
        "/en/cases/?q=bravo+zymurgy",
    ],
)
def test_a_partial_search_the_change_does_not_touch_stays_cached(client, library, people, search):
    assert "IL-0102" in client.get(search).content.decode()
    approve_edit(library["a"], *people, summary_en="A correction about something else.")
    # The finding (under load): such a search was rendered afresh after every correction.
    assert client.get(search)["X-Cache"] == "hit"


@pytest.mark.parametrize(
    ("search", "case", "summary", "shown", "gone"),
    [
        # A case now has every word: the search is answered as written.
        ("/en/cases/?q=bravo+charlie", "a", "Bravo and Charlie both failed.", "IL-0101", "IL-0102"),
        # A case gains one of the words: it joins the partial matches.
        ("/en/cases/?q=bravo+charlie", "a", "Much like Bravo.", "IL-0101", None),
        # A case has a word like the one the library lacked: the search is corrected.
        ("/en/cases/?q=bravo+zymurgy", "c", "Brewing, or zymurgie, went wrong.", "IL-0103", None),
    ],
)
def test_a_partial_search_is_answered_afresh_when_a_change_touches_its_words(
    client, library, people, search, case, summary, shown, gone
):
    client.get(search)
    approve_edit(library[case], *people, summary_en=summary)
    response = client.get(search)
    assert response["X-Cache"] == "miss"
    page = response.content.decode()
    assert shown in page and (gone is None or gone not in page)


def test_reindexing_the_search_renews_every_cached_search(client, library):
    from django.core.management import call_command

    search = "/en/cases/?q=charlie"
    client.get(search)
    call_command("reindex_search", stdout=__import__("io").StringIO())
    assert client.get(search)["X-Cache"] == "miss"


@pytest.fixture
def many_matches():
    """25 cases a search for "outage disk" finds alike, newest first: the first page shows
    20 of them."""
    import datetime

    made = [
        CaseFactory(
            public_id=f"IL-{2000 + n}",
            title_en=f"Outage number {n}",
            summary_en="A disk filled up.",
            date=datetime.date(2000 + n, 1, 1),
        )
        for n in range(25)
    ]
    refresh_search_text(Case.objects.all())
    return made


def test_a_search_keeps_its_first_page_while_a_match_below_it_changes_in_place(
    client, many_matches, people
):
    search = "/en/cases/?q=outage+disk"
    page = client.get(search).content.decode()
    oldest = many_matches[0]
    assert "IL-2024" in page and oldest.public_id not in page  # below the first page
    approve_edit(oldest, *people, summary_en="A disk filled up, and the alerts were late.")
    assert client.get(search)["X-Cache"] == "hit"


def test_a_search_is_answered_afresh_when_a_changed_match_climbs_onto_its_page(
    client, many_matches, people
):
    search = "/en/cases/?q=outage+disk"
    client.get(search)
    oldest = many_matches[0]
    approve_edit(oldest, *people, title_en="Outage of a full disk")  # both words in its title
    response = client.get(search)
    assert response["X-Cache"] == "miss" and oldest.public_id in response.content.decode()


def test_a_new_case_renews_only_the_lists_it_is_on_or_counted_in(client, library, people):
    _editor, reviewer = people
    acme = library["a"].org
    kept = [
        "/en/cases/?org=other&component=disk",  # misses both facets: neither on it nor counted
        "/en/cases.json?org=other",  # no counts: only what it lists
    ]
    renewed = [
        "/en/cases/",  # on it
        "/en/cases/?org=other",  # counted among the organisations' values
        "/en/cases.json?org=acme",  # on it
    ]
    cache_of(client, kept + renewed)
    new = CaseFactory(
        public_id="IL-0105", org=acme, status="in_review", with_terms=[library["dns"]]
    )
    workflow.case_approve(case=new, user=reviewer)
    # The finding (under load): every new case renewed every list.
    assert cache_of(client, kept) == dict.fromkeys(kept, "hit")
    assert cache_of(client, renewed) == dict.fromkeys(renewed, "miss")
    assert "IL-0105" in client.get("/en/cases.json?org=acme").content.decode()


def test_a_list_of_dates_is_renewed_by_any_new_case(client, library, people):
    _editor, reviewer = people
    page = "/en/cases/?org=other&component=disk&from=2000-01-01"
    client.get(page)
    new = CaseFactory(public_id="IL-0106", status="in_review", with_terms=[library["dns"]])
    workflow.case_approve(case=new, user=reviewer)
    assert client.get(page)["X-Cache"] == "miss"


def test_a_page_stays_right_through_many_changes_each_process_checks_in_its_own_memory(
    client, library, people, monkeypatch
):
    from cases import caching

    monkeypatch.setattr(caching, "SHARE_GOOD_AFTER", 2)
    page = "/en/cases/IL-0101/"  # shows none of the cases changed in the loop
    client.get(page)
    for n in range(5):
        approve_edit(library["c"], *people, confirm_stale_korean=True, summary_en=f"Fix {n}.")
        assert client.get(page)["X-Cache"] == "hit"
        if n == 2:
            caching._known_good.clear()  # as another process, which knows only the cache
    approve_edit(library["a"], *people, title_en="Alpha, at last")
    response = client.get(page)
    assert response["X-Cache"] == "miss" and "Alpha, at last" in response.content.decode()
