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


# --- organisations as entities (#23, point 2) ---------------------------------------


def merge_post(keep, *others):
    return {
        "action": "merge_organisations",
        "_selected_action": [keep.pk, *(o.pk for o in others)],
        "survivor": keep.pk,
    }


def test_a_reviewer_merges_organisations_and_the_old_slug_redirects(client, editor, reviewer, meta):
    from django.contrib.admin.models import LogEntry

    from cases.models import OrganisationRedirect

    facebook = OrganisationFactory(slug="facebook", name="Facebook", aliases_ko="페이스북")
    old_case = CaseFactory(org=facebook)
    url = reverse("admin:cases_organisation_changelist")

    client.force_login(editor)
    client.post(url, merge_post(meta, facebook))
    assert Organisation.objects.filter(slug="facebook").exists()  # editors may not merge

    client.force_login(reviewer)
    page = client.post(url, {**merge_post(meta, facebook), "survivor": ""})
    assert "Keep" in page.content.decode()  # first the choice of the one to keep
    client.post(url, merge_post(meta, facebook))

    assert not Organisation.objects.filter(slug="facebook").exists()
    old_case.refresh_from_db()
    assert old_case.org == meta
    meta.refresh_from_db()
    assert "Facebook" in meta.alias_list("en") and "페이스북" in meta.alias_list("ko")
    assert OrganisationRedirect.objects.get(old_slug="facebook").organisation == meta
    assert LogEntry.objects.filter(object_id=str(meta.pk), change_message__contains="facebook")
    response = client.get("/en/organisations/facebook/")
    assert response.status_code == 301 and response.url == "/en/organisations/meta/"


def test_a_reviewer_gives_an_organisation_a_korean_name_and_links(client, reviewer, meta):
    response = edit_organisation(
        client,
        reviewer,
        meta,
        name_ko="메타",
        links="https://about.meta.com/\n\nhttps://metastatus.com/",
    )

    assert response.status_code == 302, form_errors(response)
    meta.refresh_from_db()
    assert meta.name_ko == "메타"
    assert meta.links == ["https://about.meta.com/", "https://metastatus.com/"]


def test_a_link_that_is_not_http_is_refused_with_a_message(client, reviewer, meta):
    response = edit_organisation(client, reviewer, meta, links="javascript:alert(1)")

    assert response.status_code == 200
    assert "links" in form_errors(response)
    meta.refresh_from_db()
    assert meta.links == []
