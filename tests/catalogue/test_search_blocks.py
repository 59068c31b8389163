"""A search's first page whose only change is in the texts of cases it shows is mended as a
list is (cases.catalogue.list_blocks.SearchCardsBlock): its changed cards rendered again,
their words marked, when every case on it is still found and in the same order. A change
that moves what the search finds or how it ranks it renders the page whole, and a mended
page is always what rendering it afresh makes."""

import datetime
import random

import pytest

from cases.editorial import transitions as workflow
from cases.models import Case
from cases.search.text import refresh_search_text
from tests.factories import CaseFactory, UserFactory
from tests.page_cache import fresh, walk_through_changes
from tests.workflow import approve_edit

pytestmark = pytest.mark.django_db

SEARCH = "/en/cases/?q=outage"


@pytest.fixture
def people():
    return UserFactory(role="editor"), UserFactory(role="reviewer")


@pytest.fixture
def found():
    """Four cases an English search for "outage" finds, in this order: Alpha has the word
    in its title (it ranks first), the others in their summaries, newest first."""
    made = {}
    for name, day, title, summary in [
        ("a", 1, "Alpha outage", "Disks filled."),
        ("b", 4, "Bravo", "An outage of the disks."),
        ("c", 3, "Charlie", "A long outage of the network."),
        ("d", 2, "Delta", "An outage of DNS."),
    ]:
        made[name] = CaseFactory(
            public_id=f"IL-060{day}",
            date=datetime.date(2024, 3, day),
            title_en=title,
            title_ko=f"{title} (한국어)",
            summary_en=summary,
        )
    refresh_search_text(Case.objects.all())
    return made


def titles_in_order(content, cases):
    page = content.decode()
    return sorted(cases, key=lambda case: page.find(f'href="/en/cases/{case.public_id}/"'))


@pytest.mark.parametrize(
    ("field", "text"),
    [
        ("title_en", "Charlie, corrected"),
        ("summary_en", "A long outage of the network, corrected."),
        ("title_ko", "찰리, 고침"),
    ],
)
def test_a_corrected_text_mends_the_search_that_shows_its_card(client, found, people, field, text):
    assert client.get(SEARCH)["X-Cache"] == "miss"
    approve_edit(found["c"], *people, confirm_stale_korean=True, **{field: text})
    response = client.get(SEARCH)
    # The finding (under load, the broad mix): each correction rendered every search
    # showing the case again, whole (facets, counts, charts, twenty cards and their
    # snippets), 57 to 126 ms each, the slowest answers left under corrections.
    assert response["X-Cache"] == "mended"
    assert "cases/case_list.html" not in {template.name for template in response.templates}
    assert ("corrected" in response.content.decode()) == field.endswith("_en")
    assert client.get(SEARCH)["X-Cache"] == "hit"
    assert response.content == fresh(client, SEARCH)


def test_a_mended_search_marks_its_words_in_the_corrected_card(client, found, people):
    client.get(SEARCH)
    approve_edit(found["c"], *people, summary_en="The corrected outage of the network.")
    response = client.get(SEARCH)
    assert response["X-Cache"] == "mended"
    assert "The corrected <mark>outage</mark> of the network." in response.content.decode()


def test_a_korean_search_is_mended_too(client, found, people):
    url = "/ko/cases/?q=outage"
    client.get(url)
    approve_edit(found["b"], *people, confirm_stale_korean=True, title_ko="브라보, 고침")
    response = client.get(url)
    assert response["X-Cache"] == "mended"
    assert "브라보, 고침" in response.content.decode()
    assert response.content == fresh(client, url)


@pytest.mark.parametrize("url", ["/en/cases.json?q=outage", "/api/v1/cases?q=outage"])
def test_a_searchs_json_is_written_whole_again(client, found, people, url):
    client.get(url)
    approve_edit(found["c"], *people, title_en="Charlie outage")  # (it moves up)
    response = client.get(url)
    assert response["X-Cache"] == "miss"
    assert [entry["id"] for entry in response.json()["results"]] == [
        "IL-0603",
        "IL-0601",
        "IL-0604",
        "IL-0602",
    ]
    assert response.content == fresh(client, url)


def test_a_correction_that_moves_the_case_renders_the_search_whole(client, found, people):
    before = client.get(SEARCH).content
    assert titles_in_order(before, found.values()) == [found[n] for n in "abcd"]
    # The word now in its title: Charlie outranks Bravo, and Alpha (it is newer).
    approve_edit(found["c"], *people, title_en="Charlie outage")
    response = client.get(SEARCH)
    assert response["X-Cache"] == "miss"
    assert titles_in_order(response.content, found.values()) == [found[n] for n in "cabd"]
    assert response.content == fresh(client, SEARCH)


def test_a_correction_the_search_no_longer_finds_renders_it_whole(client, found, people):
    client.get(SEARCH)
    approve_edit(found["c"], *people, summary_en="A long stall of the network.")
    response = client.get(SEARCH)
    assert response["X-Cache"] == "miss"
    assert "IL-0603" not in response.content.decode()
    assert response.content == fresh(client, SEARCH)


def test_a_case_past_the_first_page_that_now_ranks_before_its_last_renders_it_whole(client, people):
    """Twenty cases with the word in their titles fill the first page; a twenty-first has
    it in its summary. When the last of the twenty loses it from its title, it ranks below
    the twenty-first, which is newer: the page shows that one in its place."""
    for n in range(20):
        CaseFactory(
            public_id=f"IL-07{n:02}",
            date=datetime.date(2024, 1, 1) + datetime.timedelta(days=n + 10),
            title_en=f"Outage {n}",
            summary_en="Disks filled.",
        )
    last = Case.objects.get(public_id="IL-0700")  # (the oldest of them)
    past = CaseFactory(
        public_id="IL-0799",
        date=datetime.date(2024, 3, 1),
        title_en="Past the page",
        summary_en="An outage of the disks.",
    )
    refresh_search_text(Case.objects.all())
    first = client.get(SEARCH).content.decode()
    assert "IL-0700" in first and "IL-0799" not in first
    approve_edit(last, *people, title_en="Zero")
    response = client.get(SEARCH)
    page = response.content.decode()
    assert f'href="/en/cases/{past.public_id}/"' in page
    assert 'href="/en/cases/IL-0700/"' not in page
    assert response.content == fresh(client, SEARCH)


def test_a_partial_search_a_corrected_case_now_answers_in_full_renders_it_whole(
    client, found, people
):
    """No case has both words: the page shows those with one. Charlie, given the other,
    now answers the search as written."""
    url = "/en/cases/?q=outage+zebra"
    before = client.get(url).content.decode()
    assert "IL-0603" in before
    approve_edit(found["c"], *people, summary_en="A long outage of the zebra network.")
    response = client.get(url)
    assert response["X-Cache"] == "miss"
    assert response.content == fresh(client, url)


def test_every_search_mended_or_kept_through_many_changes_is_what_a_fresh_render_makes(
    client, people
):
    """Random corrections of titles and summaries (some adding or dropping the searched
    words), date changes and withdrawals; after each pair, every search as the cache
    answers (plain, filtered, partial, in both languages) equals the search rendered
    afresh."""
    editor, reviewer = people
    rng = random.Random(11)
    words = ["outage", "disk", "network", "dns"]
    cases = [
        CaseFactory(
            public_id=f"IL-08{n:02}",
            title_en=f"Case {n} {rng.choice(words)}",
            title_ko=f"사례 {n}",
            summary_en=" ".join(rng.sample(words, 2)) + ".",
            date=datetime.date(2020, 1, 1) + datetime.timedelta(days=rng.randint(0, 900)),
            severity=rng.choice(["low", "high"]),
        )
        for n in range(30)
    ]
    refresh_search_text(Case.objects.all())
    queries = ["?q=outage", "?q=disk+network", "?q=outage&severity=high", "?q=dns+zebra"]
    urls = [f"/{lang}/cases/{query}" for query in queries for lang in ("en", "ko")]

    def change(step):
        case = Case.objects.get(pk=rng.choice(cases).pk)
        if case.status != Case.Status.PUBLISHED:
            return
        kind = rng.choice(["title", "title", "summary", "summary", "korean", "date", "withdraw"])
        edits = {
            "title": {"title_en": f"Case {step} {rng.choice(words)}"},
            "summary": {"summary_en": " ".join(rng.sample(words, rng.randint(1, 3))) + "."},
            "korean": {"title_ko": f"{case.title_ko} +{step}"},
            "date": {"date": case.date - datetime.timedelta(days=300)},
        }
        if kind == "withdraw":
            workflow.case_withdraw(case=case, user=reviewer, note="Retracted.")
        else:
            approve_edit(case, editor, reviewer, confirm_stale_korean=True, **edits[kind])

    answers = walk_through_changes(client, urls, change, steps=12)
    assert {"hit", "miss", "mended"} <= answers  # (the walk met every way of answering)
