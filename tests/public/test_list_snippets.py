"""A searched list's cards: the title with the query's words marked, and a snippet of where
they occur, in the page's language; nothing of it without a search, and no query more."""

import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cases.catalogue.checklist import CHECK_QUERIES
from cases.catalogue.ranking import forget as forget_searches
from cases.models import Case
from cases.search.text import refresh_search_text
from tests.factories import CaseFactory, CaseStepFactory

pytestmark = pytest.mark.django_db


def card_of(response, public_id):
    html = response.content.decode()
    match = re.search(
        rf'<li class="case-card" id="{public_id}">.*?</li>\s*(?=<li class="case-card"|</ol>)',
        html,
        re.S,
    )
    assert match, f"no card {public_id}"
    return match.group()


def snippet_of(card):
    match = re.search(r'<p class="search-snippet">.*?</p>', card, re.S)
    return match.group() if match else None


def test_an_english_search_marks_the_title_and_shows_a_snippet(client, library):
    CaseFactory(
        public_id="IL-0010",
        title_en="NFS mount hung",
        summary_en="Clients of the **NFS** server stalled. " + "Nothing else. " * 30,
        trigger_en="A [kernel update](https://example.com/nfs-patch) changed timeouts.",
    )
    refresh_search_text(Case.objects.all())
    card = card_of(client.get("/en/cases/?q=nfs"), "IL-0010")
    assert '<a href="/en/cases/IL-0010/"><mark>NFS</mark> mount hung</a>' in card
    snippet = snippet_of(card)
    assert "Clients of the <mark>NFS</mark> server stalled." in snippet
    assert "**" not in snippet and "https://" not in snippet
    assert snippet.count("…") == 1  # cut at the end only


def test_a_korean_search_marks_the_noun_on_the_korean_page(client, library):
    card = card_of(client.get("/ko/cases/?q=체크포인트"), "IL-0001")
    snippet = snippet_of(card)
    assert "<mark>체크포인트</mark>를 만들지 못했다." in snippet
    assert 'lang="en"' not in snippet


def test_an_english_text_shown_on_a_korean_page_says_its_language(client, library):
    CaseFactory(public_id="IL-0010", summary_en="The quorum was lost.", summary_ko="")
    refresh_search_text(Case.objects.all())
    snippet = snippet_of(card_of(client.get("/ko/cases/?q=quorum"), "IL-0010"))
    assert '<span lang="en">The <mark>quorum</mark> was lost.</span>' in snippet


def test_a_query_word_marks_the_whole_english_word_it_begins(client, library):
    CaseFactory(public_id="IL-0010", summary_en="The deletion of old snapshots ran late.")
    refresh_search_text(Case.objects.all())
    snippet = snippet_of(card_of(client.get("/en/cases/?q=delet"), "IL-0010"))
    assert "The <mark>deletion</mark> of old snapshots ran late." in snippet


def test_a_hostile_title_and_text_are_escaped(client, library):
    CaseFactory(
        public_id="IL-0010",
        title_en='<script>alert("x")</script> disk',
        summary_en="<img src=x onerror=alert(1)> the disk & more",
    )
    refresh_search_text(Case.objects.all())
    response = client.get("/en/cases/?q=disk")
    card = card_of(response, "IL-0010")
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; <mark>disk</mark>" in card
    assert "&lt;img src=x onerror=alert(1)&gt; the <mark>disk</mark> &amp; more" in card
    assert "<script>alert" not in response.content.decode()
    assert "<img" not in response.content.decode()


def test_without_a_search_a_card_has_no_marks_and_no_snippet(client, library):
    card = card_of(client.get("/en/cases/?component=shared-filesystem"), "IL-0004")
    assert "<mark>" not in card
    assert snippet_of(card) is None
    assert '<a href="/en/cases/IL-0004/">Checkpoint writes failed</a>' in card


def test_snippets_cost_no_query(client, library):
    """A searched page costs what the same page costs unsearched (but for the search's own
    planner settings on PostgreSQL), however many cards, steps and texts it has."""

    def queries(url):
        client.get(url)
        cache.clear()
        forget_searches()  # a search ranked afresh, as after a change of everything
        with CaptureQueriesContext(connection) as captured:
            response = client.get(url)
        assert response.status_code == 200
        return len(captured)

    searched = 2 if connection.vendor == "postgresql" else 0
    # The library's cases share a contributing factor, the searched ones none: only the
    # unsearched list ends with "Check your own system", for CHECK_QUERIES.
    searched -= CHECK_QUERIES
    for n in range(10, 35):
        case = CaseFactory(public_id=f"IL-{n:04d}", summary_en=f"The cluster {n} failed.")
        CaseStepFactory(case=case, text_en="Restarted the cluster.")
    refresh_search_text(Case.objects.all())
    searched_page = client.get("/en/cases/?q=cluster")
    assert searched_page.content.decode().count('<p class="search-snippet">') == 20
    assert queries("/en/cases/?q=cluster") == queries("/en/cases/") + searched
    assert queries("/ko/cases/?q=cluster") == queries("/ko/cases/") + searched
