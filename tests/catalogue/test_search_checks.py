"""After a change, the search pages a process served are checked together, in one query,
by the first request it serves at the new version (cases.catalogue.search_checks): their
readers then get them from the cache without a query of their own, and a search the change
did touch is still rendered afresh."""

import random

import pytest
from django.core.cache import cache

from cases.models import Case
from cases.search.text import refresh_search_text
from tests.factories import CaseFactory, UserFactory
from tests.workflow import approve_edit

pytestmark = pytest.mark.django_db

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
SEARCHES = [f"/en/cases/?q={word}" for word in WORDS[:4]] + ["/ko/cases/?q=echo"]


@pytest.fixture
def people():
    return UserFactory(role="editor"), UserFactory(role="reviewer")


@pytest.fixture
def worded_library():
    made = [
        CaseFactory(
            public_id=f"IL-07{n:02}",
            title_en=f"Outage {n} of the {WORDS[n % 6]} service",
            summary_en=f"It involved {WORDS[(n + 2) % 6]} and {WORDS[(n + 3) % 6]}.",
        )
        for n in range(8)
    ]
    refresh_search_text(Case.objects.all())
    return made


def test_the_searches_a_process_served_are_checked_once_for_all_after_a_change(
    client, worded_library, people, django_assert_num_queries
):
    for url in SEARCHES:
        client.get(url)
    approve_edit(worded_library[0], *people, summary_en="Nothing to find here.")
    client.get("/en/cases/IL-0707/")  # the first request at the new version checks them
    for url in ["/en/cases/?q=bravo", "/ko/cases/?q=echo"]:
        # The finding (under load): each search's first reader after a change ran a
        # query of its own to check it, a few requests in a hundred.
        with django_assert_num_queries(1):  # (the version)
            assert client.get(url)["X-Cache"] == "hit"


def test_a_search_the_change_touched_is_rendered_afresh(client, worded_library, people):
    for url in SEARCHES:
        client.get(url)
    # (IL-0702 did not mention bravo: it comes into the search's matches.)
    approve_edit(worded_library[2], *people, summary_en="Now it mentions bravo.")
    assert client.get("/en/cases/?q=alpha")["X-Cache"] == "hit"  # (it checked them all)
    response = client.get("/en/cases/?q=bravo")
    assert response["X-Cache"] == "miss" and "IL-0702" in response.content.decode()


def test_searches_checked_together_are_what_a_fresh_render_makes(client, worded_library, people):
    rng = random.Random(5)
    for step in range(12):
        for url in SEARCHES:
            client.get(url)
        case = Case.objects.get(pk=rng.choice(worded_library).pk)
        words = " ".join(rng.sample(WORDS, 2))
        field = rng.choice(["title_en", "summary_en"])
        approve_edit(case, *people, confirm_stale_korean=True, **{field: f"About {words}."})
        client.get("/en/cases/IL-0700/")  # checks them together
        cached = {url: client.get(url).content for url in SEARCHES}
        cache.clear()
        for url in SEARCHES:
            assert client.get(url).content == cached[url], (step, url)


# Searches that found nothing as written: no case has both words ("partial"), and one whose
# second word no case has anything like ("zymurgy": the library lacks it, uncorrected).
PARTIAL_SEARCHES = ["/en/cases/?q=bravo+charlie", "/en/cases/?q=bravo+zymurgy"]


def test_searches_that_found_nothing_as_written_are_checked_with_the_others(
    client, worded_library, people, django_assert_num_queries
):
    for url in SEARCHES + PARTIAL_SEARCHES:
        client.get(url)
    approve_edit(worded_library[0], *people, summary_en="Nothing to find here.")
    client.get("/en/cases/IL-0707/")  # the first request at the new version checks them
    for url in PARTIAL_SEARCHES:
        # The finding (make load's hot set): the first reader of "network fabric" after
        # each correction checked it alone, 7 ms of it looking for words like "fabric"
        # among all of the library's.
        with django_assert_num_queries(1):  # (the version)
            assert client.get(url)["X-Cache"] == "hit"


def test_a_word_the_library_lacks_is_looked_for_in_the_changed_cases_alone(
    client, worded_library, people
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for url in SEARCHES + PARTIAL_SEARCHES:
        client.get(url)
    approve_edit(worded_library[0], *people, summary_en="Nothing to find here.")
    with CaptureQueriesContext(connection) as asked:
        client.get("/en/cases/IL-0707/")
        for url in PARTIAL_SEARCHES:
            assert client.get(url)["X-Cache"] == "hit"
    assert not [q["sql"] for q in asked.captured_queries if "cases_searchword" in q["sql"]]


@pytest.mark.parametrize(
    ("summary", "corrected"),
    [
        ("Brewing, or zymurgey, went wrong.", True),  # alike: the search is corrected
        ("Brewing, or zymurgy itself, went wrong.", True),  # the word itself: found
        ("Brewing went wrong.", False),
    ],
)
def test_a_word_the_library_lacked_that_a_changed_case_now_has_renews_the_search(
    client, worded_library, people, summary, corrected
):
    url = "/en/cases/?q=bravo+zymurgy"
    for each in SEARCHES + [url]:
        client.get(each)
    approve_edit(worded_library[0], *people, summary_en=summary)  # (no "bravo" before or after)
    client.get("/en/cases/IL-0707/")  # checks them together
    response = client.get(url)
    assert (response["X-Cache"] == "miss") is corrected
    cached = response.content
    cache.clear()
    assert client.get(url).content == cached


ODD_WORDS = ["zymurgy", "zymurgey", "zymurgie", "zymurgical", "charlee", "bravissimo", "deltas"]


def test_partial_searches_checked_together_are_what_a_fresh_render_makes(
    client, worded_library, people
):
    searches = [*SEARCHES, *PARTIAL_SEARCHES, "/en/cases/?q=charlie+zymurgie"]
    rng = random.Random(11)
    for step in range(14):
        for url in searches:
            client.get(url)
        case = Case.objects.get(pk=rng.choice(worded_library).pk)
        words = " ".join(rng.sample(WORDS + ODD_WORDS, 2))
        approve_edit(case, *people, confirm_stale_korean=True, summary_en=f"About {words}.")
        client.get("/en/cases/IL-0700/")  # checks them together
        cached = {url: client.get(url).content for url in searches}
        cache.clear()
        for url in searches:
            assert client.get(url).content == cached[url], (step, url)


def served_through_wsgi(path):
    """(status, body, close) of `path` as a WSGI server has it: the body is the answer the
    reader gets; the server calls close() only after sending it (PEP 3333)."""
    from wsgiref.util import setup_testing_defaults

    from django.core.handlers.wsgi import WSGIHandler

    environ = {"PATH_INFO": path, "REQUEST_METHOD": "GET", "HTTP_HOST": "testserver"}
    setup_testing_defaults(environ)
    statuses = []
    body = WSGIHandler()(environ, lambda status, headers, *rest: statuses.append(status))
    return statuses[0], b"".join(body), body.close


def checked_at(url):
    """The version at which the cached page of `url` is known good, as the cache says."""
    from cases.caching import page_key, read_entry

    entry, _token = read_entry(page_key(url)[0])
    return entry[1]


def test_the_first_answer_after_a_change_does_not_wait_for_the_searches_checks(
    client, worded_library, people
):
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    from cases.caching import public_version

    for url in [*SEARCHES, "/en/cases/IL-0707/"]:
        client.get(url)
    approve_edit(worded_library[0], *people, summary_en="Nothing to find here.")
    version = public_version()
    # (as the test client does: a test's transaction must outlive the request)
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    try:
        status, body, close = served_through_wsgi("/en/cases/IL-0707/")
        # The finding (make load's hot set, a probe in gunicorn): the first reader after
        # each change waited for the checks of every search page, up to 80 ms.
        assert status == "200 OK" and b"IL-0707" in body
        assert checked_at("/en/cases/?q=bravo") < version  # the answer is sent first
        close()
    finally:
        for signal in (request_started, request_finished):
            signal.connect(close_old_connections)
    assert checked_at("/en/cases/?q=bravo") == version  # then they are checked


def test_checks_that_fail_after_the_answer_are_logged_and_leave_the_pages_to_their_readers(
    client, worded_library, people, monkeypatch, caplog
):
    from cases.catalogue import search_checks

    for url in [*SEARCHES, "/en/cases/IL-0707/"]:
        client.get(url)
    approve_edit(worded_library[0], *people, summary_en="Nothing to find here.")

    def broken(keys, version):
        raise ConnectionError("the cache went away")

    monkeypatch.setattr(search_checks, "mark_good", broken)
    with caplog.at_level("ERROR", logger="cases.catalogue.search_checks"):
        assert client.get("/en/cases/IL-0707/").status_code == 200
    assert "Checking the cached search pages" in caplog.text
    monkeypatch.undo()
    # Unchecked, a search page is checked by its own reader, and is what a render makes.
    assert client.get("/en/cases/?q=bravo")["X-Cache"] == "hit"
    cached = client.get("/en/cases/?q=alpha").content
    cache.clear()
    assert client.get("/en/cases/?q=alpha").content == cached
