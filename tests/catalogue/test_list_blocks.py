"""A list whose only change is in the texts of cases it shows (a title, a trigger) is
mended: its run of cards is put in again from the card cache, its "Check your own system"
made again, its JSON's changed entries written again, and the rest kept
(cases.catalogue.list_blocks). Anything else that touches the list renders it whole, and
a mended list is always what rendering it afresh makes."""

import datetime
import random
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cases.catalogue.changes import Changes
from cases.catalogue.list_blocks import CardsBlock
from cases.editorial import transitions as workflow
from cases.models import Case, CaseRelation, Vocabulary
from tests.factories import CaseFactory, OrganisationFactory, TermFactory, UserFactory
from tests.page_cache import fresh, walk_through_changes
from tests.workflow import approve_edit

pytestmark = pytest.mark.django_db

LIST = "/en/cases/"


@pytest.fixture
def people():
    return UserFactory(role="editor"), UserFactory(role="reviewer")


@pytest.fixture
def listed():
    """Four public cases of two organisations, two with DNS; none shares a contributing
    factor, so no list asks "Check your own system"."""
    dns = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="dns", label_en="DNS")
    disk = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="disk", label_en="Disk")
    acme = OrganisationFactory(slug="acme", name="Acme")
    other = OrganisationFactory(slug="other", name="Other")
    made = {}
    for day, (name, org, term) in enumerate(
        [
            ("Alpha", acme, dns),
            ("Bravo", acme, disk),
            ("Charlie", other, dns),
            ("Delta", other, disk),
        ],
        start=1,
    ):
        made[name[0].lower()] = CaseFactory(
            public_id=f"IL-070{day}",
            org=org,
            date=datetime.date(2024, 3, day),
            title_en=name,
            with_terms=[term],
        )
    return made


@pytest.mark.parametrize(
    ("url", "corrected", "field", "text"),
    [
        ("/en/cases/", "a", "title_en", "Alpha, corrected"),
        ("/en/cases/?component=dns", "c", "trigger_en", "A trigger, corrected."),
        ("/ko/cases/?org=acme", "a", "title_ko", "알파, 고침"),
        ("/en/organisations/other/", "d", "title_en", "Delta, corrected"),
    ],
)
def test_a_corrected_text_mends_the_lists_that_show_its_card(
    client, listed, people, url, corrected, field, text
):
    assert client.get(url)["X-Cache"] == "miss"
    approve_edit(listed[corrected], *people, confirm_stale_korean=True, **{field: text})
    response = client.get(url)
    # The finding (under load): each correction rendered every list showing the case
    # again, whole (facets, counts, charts and every card), for the one card that changed.
    assert response["X-Cache"] == "mended"
    assert text in response.content.decode()
    assert client.get(url)["X-Cache"] == "hit"
    assert response.content == fresh(client, url)


@pytest.mark.parametrize("url", ["/en/cases.json?org=acme", "/api/v1/cases?org=acme"])
def test_a_corrected_text_mends_the_list_json_it_is_an_entry_of(client, listed, people, url):
    client.get(url)
    approve_edit(listed["a"], *people, confirm_stale_korean=True, title_en="Alpha, corrected")
    response = client.get(url)
    # The finding (under load): the list JSON was written whole again, the slowest miss.
    assert response["X-Cache"] == "mended"
    assert [entry["title"]["en"] for entry in response.json()["results"]] == [
        "Bravo",
        "Alpha, corrected",
    ]
    assert client.get(url)["X-Cache"] == "hit"
    assert response.content == fresh(client, url)


def test_a_list_not_showing_the_corrected_case_is_kept(client, listed, people):
    client.get("/en/cases/?org=other")
    approve_edit(listed["a"], *people, title_en="Alpha, corrected")
    assert client.get("/en/cases/?org=other")["X-Cache"] == "hit"


def test_a_mended_list_is_a_new_page_to_browsers(client, listed, people):
    before = client.get(LIST)
    approve_edit(listed["b"], *people, title_en="Bravo, corrected")
    asked = client.get(LIST, headers={"if-none-match": before["ETag"]})
    assert asked.status_code == 200 and asked["X-Cache"] == "mended"
    assert asked["ETag"] != before["ETag"]
    assert client.get(LIST, headers={"if-none-match": asked["ETag"]}).status_code == 304


def test_mending_a_list_renders_only_the_changed_card(client, listed, people):
    client.get(LIST)
    approve_edit(listed["d"], *people, confirm_stale_korean=True, title_en="Delta, corrected")
    with CaptureQueriesContext(connection) as mending:
        response = client.get(LIST)
    assert response["X-Cache"] == "mended"
    # Not the list (its facets, counts and charts): the changed case's card alone, read
    # and rendered; the other cards come from the card cache.
    assert "cases/case_list.html" not in {template.name for template in response.templates}
    cards_read = [q["sql"] for q in mending.captured_queries if "cases_organisation" in q["sql"]]
    assert len(cards_read) == 1
    assert f'"cases_case"."id" IN ({listed["d"].pk})' in cards_read[0]


@pytest.mark.parametrize(
    "change",
    [
        {"date": datetime.date(2019, 1, 1)},  # (it moves down the list)
        {"severity": "critical"},  # (counted by the list's facets)
        "terms",
        "withdraw",
    ],
)
def test_a_case_changed_in_what_lists_count_renders_the_list_whole(client, listed, people, change):
    editor, reviewer = people
    client.get(LIST)
    if change == "withdraw":
        workflow.case_withdraw(case=listed["b"], user=reviewer, note="Retracted.")
    elif change == "terms":
        approve_edit(listed["b"], editor, reviewer, terms=[], title_en="Bravo, corrected")
    else:
        approve_edit(listed["b"], editor, reviewer, **change)
    response = client.get(LIST)
    assert response["X-Cache"] == "miss"
    assert response.content == fresh(client, LIST)


@pytest.mark.parametrize(("language", "field"), [("en", "title_en"), ("ko", "title_ko")])
def test_a_corrected_case_named_in_check_your_own_system_mends_it(client, people, language, field):
    """The section names the newest cases of each recurring factor by title, with their
    follow-ups: it is made again from what it asked, not by rendering the list whole."""
    timeouts = TermFactory(
        vocabulary=Vocabulary.CONTRIBUTING, slug="missing-timeouts", label_en="Missing timeouts"
    )
    first = CaseFactory(public_id="IL-0801", title_en="First", with_terms=[timeouts])
    CaseFactory(public_id="IL-0802", title_en="Second", with_terms=[timeouts])
    url = f"/{language}/cases/"
    before = client.get(url).content.decode()
    assert re.search(r'<section class="check".*IL-0801.*</section>', before, flags=re.S)
    approve_edit(first, *people, confirm_stale_korean=True, **{field: "Corrected"})
    response = client.get(url)
    assert response["X-Cache"] == "mended"
    page = response.content.decode()
    # On its card and under the question that names it.
    assert page.count("Corrected") == 2
    assert re.search(r'<section class="check".*Corrected.*</section>', page, flags=re.S)
    assert response.content == fresh(client, url)


def test_a_correction_of_a_case_a_listed_case_links_leaves_the_list_as_it_was(client, people):
    """The listed case is the corrected one's neighbour: its links changed, which neither
    its card nor "Check your own system" shows."""
    timeouts = TermFactory(
        vocabulary=Vocabulary.CONTRIBUTING, slug="missing-timeouts", label_en="Missing timeouts"
    )
    first = CaseFactory(public_id="IL-0801", title_en="First", with_terms=[timeouts])
    CaseFactory(public_id="IL-0802", title_en="Second", with_terms=[timeouts])
    linked = CaseFactory(public_id="IL-0803", title_en="Linked")
    CaseRelation.objects.create(from_case=first, to_case=linked, position=0)
    url = "/en/cases/?contributing=missing-timeouts"
    before = client.get(url).content
    assert b'href="/en/cases/IL-0801/"' in before and b"IL-0803" not in before
    approve_edit(linked, *people, title_en="Linked, corrected")
    response = client.get(url)
    # The finding: the list was rendered whole, for a change it does not show.
    assert response["X-Cache"] == "hit"
    assert response.content == before == fresh(client, url)


def test_only_changes_to_the_texts_of_cases_on_cards_alone_are_set_aside():
    block = CardsBlock(cases=(1, 2, 3), elsewhere=frozenset({3, 4}), language="en", start=0, end=9)

    def changes(cases, listed=(), neighbours=()):
        return Changes(
            cases=frozenset(cases),
            listed=frozenset(listed),
            listed_as=(),
            neighbours=frozenset(neighbours),
        )

    assert block.set_aside(changes({2, 9})) == {2}
    assert block.set_aside(changes({3})) is None  # (its title is shown elsewhere too)
    assert block.set_aside(changes({4})) is None
    assert block.set_aside(changes({2}, listed={2})) is None
    assert block.set_aside(changes({9})) is None  # (none the page shows: nothing to mend)
    # Changed as the neighbours of a corrected case: their links, which lists do not show.
    assert block.set_aside(changes({1, 3, 4, 9}, neighbours={3, 4})) == {1, 3, 4}


def test_every_list_mended_or_kept_through_many_changes_is_what_a_fresh_render_makes(
    client, people
):
    """Random corrections, date changes, term changes and withdrawals over a small
    library; after each pair, every list as the cache answers (plain, filtered, paged, in
    both languages, an organisation's, and the lists' JSON) equals the list rendered
    afresh."""
    editor, reviewer = people
    rng = random.Random(7)
    parts = [
        TermFactory(vocabulary=Vocabulary.COMPONENT, slug=f"part-{n}", label_en=f"Part {n}")
        for n in range(3)
    ]
    factor = TermFactory(vocabulary=Vocabulary.CONTRIBUTING, slug="drift", label_en="Drift")
    orgs = [OrganisationFactory(slug="north"), OrganisationFactory(slug="south")]
    cases = [
        CaseFactory(
            public_id=f"IL-09{n:02}",
            org=orgs[n % 2],
            title_en=f"Case {n}",
            title_ko=f"사례 {n}",
            date=datetime.date(2020, 1, 1) + datetime.timedelta(days=rng.randint(0, 900)),
            with_terms=[*rng.sample(parts, rng.randint(1, 2)), *([factor] if n < 8 else [])],
        )
        for n in range(30)
    ]
    queries = ["", "?component=part-0", "?component=part-1&component=part-2", "?page=2"]
    urls = [f"/{lang}/cases/{query}" for query in queries for lang in ("en", "ko")]
    urls += ["/en/organisations/north/", "/ko/organisations/south/"]
    urls += ["/en/cases.json", "/ko/cases.json?component=part-0", "/api/v1/cases?page=2"]

    def change(step):
        case = Case.objects.get(pk=rng.choice(cases).pk)
        if case.status != Case.Status.PUBLISHED:
            return
        kind = rng.choice(
            ["title", "title", "title", "trigger", "korean", "date", "terms", "withdraw"]
        )
        edits = {
            "title": {"title_en": f"{case.title_en} +{step}"},
            "trigger": {"trigger_en": f"Trigger {step}."},
            "korean": {"title_ko": f"{case.title_ko} +{step}"},
            "date": {"date": case.date - datetime.timedelta(days=300)},
            "terms": {"terms": rng.sample(parts, 1)},
        }
        if kind == "withdraw":
            workflow.case_withdraw(case=case, user=reviewer, note="Retracted.")
        else:
            approve_edit(case, editor, reviewer, confirm_stale_korean=True, **edits[kind])

    answers = walk_through_changes(client, urls, change, steps=10)
    assert {"hit", "miss", "mended"} <= answers  # (the walk met every way of answering)
