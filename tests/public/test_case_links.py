"""A case page whose only change is in the cases it links (a related or similar case's
title) is mended: its block of links is rendered again and the rest kept
(cases.public.case_links). Anything else that touches the page renders it whole, and a
mended page is always what rendering it afresh makes."""

import datetime
import random

import pytest

from cases.editorial import transitions as workflow
from cases.models import Case, CaseRelation
from tests.factories import CaseFactory, OrganisationFactory, TermFactory
from tests.page_cache import fresh, walk_through_changes
from tests.workflow import approve_edit

pytestmark = pytest.mark.django_db

PAGE = "/en/cases/IL-0502/"


@pytest.fixture
def linked_library():
    """IL-0502 links IL-0503 (related) and lists IL-0501 and IL-0504 as similar."""
    disk = TermFactory(vocabulary="component", slug="disk", label_en="Disk")
    dns = TermFactory(vocabulary="component", slug="dns", label_en="DNS")
    acme = OrganisationFactory(slug="acme", name="Acme")
    made = {
        "a": CaseFactory(public_id="IL-0501", org=acme, title_en="Alpha", with_terms=[disk]),
        "b": CaseFactory(public_id="IL-0502", org=acme, title_en="Bravo", with_terms=[disk]),
        "c": CaseFactory(public_id="IL-0503", org=acme, title_en="Charlie", with_terms=[dns]),
        "d": CaseFactory(public_id="IL-0504", org=acme, title_en="Delta", with_terms=[disk]),
        "e": CaseFactory(public_id="IL-0505", org=acme, title_en="Echo", with_terms=[dns]),
    }
    CaseRelation.objects.create(from_case=made["b"], to_case=made["c"], position=0)
    return made


@pytest.mark.parametrize(("corrected", "title"), [("a", "Alpha"), ("c", "Charlie")])
def test_a_corrected_title_mends_the_pages_that_link_it(
    client, linked_library, people, corrected, title
):
    """a: a similar case of the page; c: a case the page relates (its neighbour)."""
    assert title in client.get(PAGE).content.decode()
    approve_edit(linked_library[corrected], *people, title_en=f"{title}, corrected")
    response = client.get(PAGE)
    # The finding (under load): each correction rendered every page that links the case
    # again, whole, for the one line that changed.
    assert response["X-Cache"] == "mended"
    assert f"{title}, corrected" in response.content.decode()
    assert client.get(PAGE)["X-Cache"] == "hit"
    assert response.content == fresh(client, PAGE)


def test_a_linked_title_shown_in_another_language_is_marked_and_escaped_mended_or_fresh(
    client, linked_library, people
):
    """The block is written out in Python (a template took a quarter of a mend): what a
    template did for it, marking a title in another language and escaping it, it does."""
    page = "/ko/cases/IL-0502/"
    client.get(page)
    approve_edit(linked_library["c"], *people, title_en="Charlie <b>&", title_ko="")
    response = client.get(page)
    assert response["X-Cache"] == "mended"
    linked = response.content.decode()
    marked = '<span lang="en">Charlie &lt;b&gt;&amp;</span>'
    assert f'/ko/cases/IL-0503/">IL-0503: {marked}</a>' in linked
    assert '<span class="muted">Acme, ' in linked  # a similar case's organisation and year
    assert response.content == fresh(client, page)


def test_a_mended_page_is_a_new_page_to_browsers(client, linked_library, people):
    before = client.get(PAGE)
    approve_edit(linked_library["c"], *people, title_en="Charlie, corrected")
    asked = client.get(PAGE, headers={"if-none-match": before["ETag"]})
    assert asked.status_code == 200 and asked["X-Cache"] == "mended"
    assert asked["ETag"] != before["ETag"]
    again = client.get(PAGE, headers={"if-none-match": asked["ETag"]})
    assert again.status_code == 304


def test_a_correction_of_the_page_s_own_case_renders_it_whole(client, linked_library, people):
    client.get(PAGE)
    approve_edit(linked_library["b"], *people, title_en="Bravo, corrected")
    response = client.get(PAGE)
    assert response["X-Cache"] == "miss" and "Bravo, corrected" in response.content.decode()


def test_a_case_given_a_link_to_the_page_s_case_renders_the_page_whole(
    client, linked_library, people
):
    editor, reviewer = people
    assert "Echo" not in client.get(PAGE).content.decode()
    copy = workflow.case_start_revision(case=linked_library["e"], user=editor)
    CaseRelation.objects.create(from_case=copy, to_case=linked_library["b"], position=0)
    workflow.case_submit(case=copy, user=editor)
    workflow.case_approve(case=copy, user=reviewer)
    response = client.get(PAGE)
    assert response["X-Cache"] == "miss" and "Echo" in response.content.decode()
    assert response.content == fresh(client, PAGE)


@pytest.mark.parametrize(
    "change",
    [
        {"date": datetime.date(2001, 1, 1)},  # its year shows, and it orders the similar
        {"status": "withdrawn"},
    ],
)
def test_a_linked_case_changed_in_what_lists_count_renders_the_page_whole(
    client, linked_library, people, change
):
    _editor, reviewer = people
    client.get(PAGE)
    if change.get("status") == "withdrawn":
        workflow.case_withdraw(case=linked_library["a"], user=reviewer, note="Retracted.")
    else:
        approve_edit(linked_library["a"], *people, **change)
    response = client.get(PAGE)
    assert response["X-Cache"] == "miss"
    assert response.content == fresh(client, PAGE)


def test_the_linked_cases_of_a_correction_are_its_neighbours_and_a_new_link_is_a_change(
    linked_library, people
):
    from cases.models import PublicChange

    editor, reviewer = people
    approve_edit(linked_library["c"], editor, reviewer, title_en="Charlie, corrected")
    rows = {row.case_id: row.neighbour for row in PublicChange.objects.order_by("-version")[:2]}
    assert rows == {linked_library["c"].pk: False, linked_library["b"].pk: True}
    copy = workflow.case_start_revision(case=linked_library["e"], user=editor)
    CaseRelation.objects.create(from_case=copy, to_case=linked_library["b"], position=0)
    workflow.case_submit(case=copy, user=editor)
    workflow.case_approve(case=copy, user=reviewer)
    latest = PublicChange.objects.order_by("-version").first().version
    rows = {row.case_id: row.neighbour for row in PublicChange.objects.filter(version=latest)}
    assert rows == {linked_library["e"].pk: False, linked_library["b"].pk: False}


def test_every_page_mended_or_kept_through_many_changes_is_what_a_fresh_render_makes(
    client, people
):
    """Random corrections, links and withdrawals over a small library; after each pair,
    every case page as the cache answers equals the page rendered afresh, in both
    languages."""
    editor, reviewer = people
    rng = random.Random(21)
    terms = [
        TermFactory(vocabulary="component", slug=f"part-{n}", label_en=f"Part {n}")
        for n in range(3)
    ]
    cases = [
        CaseFactory(
            public_id=f"IL-06{n:02}",
            title_en=f"Case {n}",
            title_ko=f"사례 {n}",
            date=datetime.date(2020, 1, 1) + datetime.timedelta(days=rng.randint(0, 900)),
            with_terms=rng.sample(terms, rng.randint(1, 2)),
        )
        for n in range(10)
    ]
    for n in range(6):
        CaseRelation.objects.create(from_case=cases[n], to_case=cases[n + 3], position=0)
    pages = [f"/{lang}/cases/{case.public_id}/" for case in cases for lang in ("en", "ko")]

    def change(step):
        case = Case.objects.get(pk=rng.choice(cases).pk)
        if case.status != Case.Status.PUBLISHED:
            return
        kind = rng.choice(["title", "title", "title", "korean", "date", "link", "withdraw"])
        if kind == "title":
            approve_edit(
                case,
                editor,
                reviewer,
                confirm_stale_korean=True,
                title_en=f"{case.title_en} +{step}",
            )
        elif kind == "korean":
            approve_edit(
                case,
                editor,
                reviewer,
                confirm_stale_korean=True,
                title_ko=f"{case.title_ko} +{step}",
            )
        elif kind == "date":
            approve_edit(
                case,
                editor,
                reviewer,
                confirm_stale_korean=True,
                date=case.date - datetime.timedelta(days=400),
            )
        elif kind == "link":
            copy = workflow.case_start_revision(case=case, user=editor)
            other = rng.choice([c for c in cases if c.pk != case.pk])
            CaseRelation.objects.get_or_create(
                from_case=copy, to_case_id=other.pk, defaults={"position": 9}
            )
            workflow.case_submit(case=copy, user=editor)
            workflow.case_approve(case=copy, user=reviewer, confirm_stale_korean=True)
        else:
            workflow.case_withdraw(case=case, user=reviewer, note="Retracted.")

    answers = walk_through_changes(client, pages, change, steps=12)
    assert {"hit", "miss", "mended"} <= answers  # (the walk met every way of answering)
