"""The organisation admin: aliases in both languages, edited under the rights of its name,
and found by in the list and in the case form's organisation picker."""

import pytest
from django.urls import reverse

from cases.models import Case, Organisation
from tests.admin_forms import change_form_data, form_errors
from tests.factories import CaseFactory, OrganisationFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def meta():
    org = OrganisationFactory(slug="meta", name="Meta", aliases_en="Facebook")
    CaseFactory(org=org)  # published: the public sees the name
    return org


def edit_organisation(client, user, org, **changes):
    client.force_login(user)
    url = reverse("admin:cases_organisation_change", args=[org.pk])
    return client.post(url, change_form_data(client.get(url), **changes))


def test_a_reviewer_edits_the_english_and_korean_aliases(client, reviewer, meta):
    client.force_login(reviewer)
    page = client.get(reverse("admin:cases_organisation_change", args=[meta.pk]))
    form = page.context["adminform"].form
    assert {"aliases_en", "aliases_ko"} <= set(form.fields)
    assert "aliases" not in form.fields  # the untranslated column is modeltranslation's

    response = edit_organisation(
        client, reviewer, meta, aliases_en="Facebook\nMeta Platforms", aliases_ko="메타\n페이스북"
    )

    assert response.status_code == 302, form_errors(response)
    meta.refresh_from_db()
    assert meta.alias_list("en") == ["Facebook", "Meta Platforms"]
    assert meta.alias_list("ko") == ["메타", "페이스북"]
    assert meta.name == "Meta"


def test_an_editor_cannot_change_the_aliases_of_an_organisation_the_public_sees(
    client, editor, reviewer, meta
):
    client.force_login(reviewer)
    data = change_form_data(
        client.get(reverse("admin:cases_organisation_change", args=[meta.pk])),
        aliases_ko="페북",
    )
    client.force_login(editor)
    client.post(reverse("admin:cases_organisation_change", args=[meta.pk]), data)
    meta.refresh_from_db()
    assert meta.aliases_ko in ("", None)
    assert meta.alias_list("en") == ["Facebook"]


def test_an_editor_names_an_organisation_only_their_draft_uses(client, editor):
    org = OrganisationFactory(slug="kakao", name="Kakao")
    CaseFactory(org=org, status=Case.Status.DRAFT, published_at=None, created_by=editor)
    response = edit_organisation(client, editor, org, aliases_ko="카카오\n카카오톡")
    assert response.status_code == 302, form_errors(response)
    org.refresh_from_db()
    assert org.alias_list("ko") == ["카카오", "카카오톡"]


@pytest.mark.parametrize("query", ["페이스북", "facebook", "meta"])
def test_the_list_finds_an_organisation_by_an_alias(client, reviewer, meta, query):
    Organisation.objects.filter(pk=meta.pk).update(aliases_ko="메타\n페이스북")
    OrganisationFactory(slug="kakao", name="Kakao", aliases_ko="카카오")
    client.force_login(reviewer)
    response = client.get(reverse("admin:cases_organisation_changelist"), {"q": query})
    assert [org.slug for org in response.context["cl"].result_list] == ["meta"]


def test_the_case_forms_organisation_picker_finds_by_a_korean_alias(client, editor, meta):
    Organisation.objects.filter(pk=meta.pk).update(aliases_ko="메타\n페이스북")
    OrganisationFactory(slug="kakao", name="Kakao", aliases_ko="카카오")
    client.force_login(editor)
    response = client.get(
        reverse("admin:autocomplete"),
        {"term": "페이스북", "app_label": "cases", "model_name": "case", "field_name": "org"},
    )
    assert [row["text"] for row in response.json()["results"]] == ["Meta"]
