"""A list renewed by a change takes the cards of the cases it showed before from the cache
(cases.catalogue.cards), and is still exactly the page a fresh render gives."""

import datetime

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cases import caching
from cases.editorial import names
from cases.editorial import transitions as workflow
from cases.models import Case
from cases.search.text import refresh_search_text
from tests.factories import (
    CaseFactory,
    CaseStepFactory,
    OrganisationFactory,
    TermFactory,
    UserFactory,
)
from tests.workflow import approve_edit

pytestmark = pytest.mark.django_db

URLS = [
    "/en/cases/",
    "/ko/cases/",
    "/en/cases/?component=dns",
    "/en/cases/?q=alpha",
    "/ko/cases/?q=alpha",
    "/en/cases/?page=2",
]


@pytest.fixture
def people():
    return UserFactory(role="editor"), UserFactory(role="reviewer")


@pytest.fixture
def library():
    """Two pages of cases, one of them with steps, terms and a word to search for."""
    dns = TermFactory(vocabulary="component", slug="dns", label_en="DNS", label_ko="DNS 서버")
    acme = OrganisationFactory(slug="acme", name="Acme")
    cases = CaseFactory.create_batch(23, org=acme, with_terms=[dns])
    alpha = cases[-1]
    Case.objects.filter(pk=alpha.pk).update(title_en="Alpha resolver outage")
    CaseStepFactory(case=alpha, text_en="Flushed the **alpha** resolver cache.")
    refresh_search_text(Case.objects.all())  # as saving through the workflow does
    return {"dns": dns, "acme": acme, "alpha": Case.objects.get(pk=alpha.pk), "cases": cases}


def rendered_afresh(client, url):
    """The page as a server that has kept nothing renders it."""
    cache.clear()
    caching._known_good.clear()
    return client.get(url).content


def queries_of(client, url):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response["X-Cache"] == "miss"
    return len(queries)


def test_a_list_renewed_by_a_new_case_reads_no_card_it_showed_before(client, library, people):
    cold = queries_of(client, "/en/cases/")
    old_news = CaseFactory(
        status="in_review", org=library["acme"], date=datetime.date(1990, 1, 1)
    )  # listed far down: the first page's cards stay as they were
    workflow.case_approve(case=old_news, user=people[1])
    # The finding: each new case rendered every list it is counted in from nothing.
    assert queries_of(client, "/en/cases/") < cold
    assert "24 cases" in client.get("/en/cases/").content.decode()


def test_every_list_renewed_by_changes_is_the_page_a_fresh_render_gives(client, library, people):
    editor, reviewer = people

    def publish_a_new_case():
        new = CaseFactory(status="in_review", org=library["acme"], title_en="Alpha again")
        workflow.case_approve(case=new, user=reviewer)

    def correct_a_card():
        approve_edit(library["alpha"], editor, reviewer, title_en="Alpha resolver, corrected")

    def withdraw_a_listed_case():
        workflow.case_withdraw(case=library["cases"][-2], user=reviewer, note="Retracted.")

    def relabel_the_term():
        dns = library["dns"]
        dns.label_en, dns.label_ko = "Name service", "이름 서비스"
        names.name_save(obj=dns, user=reviewer)

    def rename_the_organisation():
        acme = library["acme"]
        acme.name = "Acme Corporation"
        names.name_save(obj=acme, user=reviewer)

    changes = [
        publish_a_new_case,
        correct_a_card,
        withdraw_a_listed_case,
        relabel_the_term,
        rename_the_organisation,
    ]
    for change in changes:
        for url in URLS:
            client.get(url)  # every page and its cards kept
        change()
        renewed = {url: client.get(url).content for url in URLS}
        for url in URLS:
            assert renewed[url] == rendered_afresh(client, url), (change.__name__, url)
    final = client.get("/en/cases/").content.decode()
    assert "Alpha resolver, corrected" in final and "Acme Corporation" in final
    assert "Name service" in final and "DNS" not in final


def test_a_card_marks_the_search_words_only_on_the_search_that_found_them(client, library):
    searched = client.get("/en/cases/?q=alpha").content.decode()
    plain = client.get("/en/cases/").content.decode()
    assert "<mark>Alpha</mark> resolver outage" in searched
    assert "Alpha resolver outage" in plain and "<mark>" not in plain


def test_a_card_is_in_the_language_of_the_list_it_is_on(client, library):
    english = client.get("/en/cases/").content.decode()
    korean = client.get("/ko/cases/").content.decode()
    assert "DNS 서버" in korean and "DNS 서버" not in english
    assert 'href="/ko/cases/?component=dns"' in korean
