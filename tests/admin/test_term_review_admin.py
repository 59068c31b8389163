"""Editors see the terms an import holds for review, label them, and a reviewer accepts or
merges them, which makes them public at once (#23, point 1)."""

import pytest
from django.urls import reverse

from cases.models import Term, Vocabulary
from tests.admin_forms import change_form_data, form_errors
from tests.factories import CaseFactory, TermFactory
from tests.pages import text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def held():
    """A published case with an unreviewed component, as an import leaves it."""
    aws = TermFactory(
        vocabulary=Vocabulary.COMPONENT, slug="aws", label_en="Aws", label_ko="", reviewed=False
    )
    dns = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="dns", label_en="DNS")
    CaseFactory(public_id="IL-0001", with_terms=[aws, dns])
    return aws


def changelist(client, user, **params):
    client.force_login(user)
    return client.get(reverse("admin:cases_term_changelist"), params)


def accept(client, user, *terms):
    client.force_login(user)
    return client.post(
        reverse("admin:cases_term_changelist"),
        {"action": "accept_terms", "_selected_action": [t.pk for t in terms]},
    )


def test_the_term_list_filters_the_unreviewed_and_counts_them(client, editor, held):
    response = changelist(client, editor, reviewed__exact="0")
    assert [t.slug for t in response.context["cl"].result_list] == ["aws"]
    assert "1 new term waits for review" in text_of(changelist(client, editor))


def test_the_dashboard_counts_the_terms_waiting(client, editor, held):
    client.force_login(editor)
    html = client.get(reverse("admin:index")).content.decode()
    assert 'data-queue="terms"' in html
    assert "New terms to review" in html


def test_accepting_a_term_makes_it_public_and_renews_the_pages(client, reviewer, held):
    assert "Aws" not in text_of(client.get("/en/cases/"))  # cached without it
    response = accept(client, reviewer, held)
    assert response.status_code == 302
    held.refresh_from_db()
    assert held.reviewed is True
    client.logout()
    page = client.get("/en/cases/")
    facet = next(f for f in page.context["listing"].facets if f.name == "component")
    assert {v.slug for v in facet.values} == {"aws", "dns"}
    assert client.get("/en/cases/?component=aws").context["page"].object_list


def test_an_editor_may_label_but_not_accept(client, editor, held):
    client.force_login(editor)
    url = reverse("admin:cases_term_change", args=[held.pk])
    response = client.post(
        url, change_form_data(client.get(url), label_en="Amazon Web Services", label_ko="AWS")
    )
    assert response.status_code == 302, form_errors(response)
    held.refresh_from_db()
    assert held.label_en == "Amazon Web Services" and held.reviewed is False
    accept(client, editor, held)
    held.refresh_from_db()
    assert held.reviewed is False


def test_a_reviewer_accepts_on_the_change_form_by_ticking_reviewed(client, reviewer, held):
    client.force_login(reviewer)
    url = reverse("admin:cases_term_change", args=[held.pk])
    response = client.post(
        url, change_form_data(client.get(url), label_en="Amazon Web Services", reviewed="on")
    )
    assert response.status_code == 302, form_errors(response)
    held.refresh_from_db()
    assert held.reviewed is True
    assert "Amazon Web Services" in text_of(client.get("/en/cases/"))


def test_merging_an_unreviewed_term_into_a_reviewed_one_moves_its_cases(client, reviewer, held):
    dns = Term.objects.get(slug="dns")
    storage = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="object-storage")
    s3 = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="s3", reviewed=False)
    CaseFactory(public_id="IL-0002", with_terms=[s3, dns])
    client.force_login(reviewer)
    client.post(
        reverse("admin:cases_term_changelist"),
        {"action": "merge_terms", "_selected_action": [storage.pk, s3.pk], "survivor": storage.pk},
    )
    assert not Term.objects.filter(slug="s3").exists()
    page = client.get("/en/cases/?component=object-storage")
    assert [c.public_id for c in page.context["page"].object_list] == ["IL-0002"]
