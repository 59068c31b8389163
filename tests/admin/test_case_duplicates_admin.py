"""Duplicates in the admin: the import's dry run and confirmation list them, a case's page
says which cases it looks like and offers to merge, the merge page keeps the case chosen,
and the changelist filters the cases citing another's source."""

import datetime

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from cases.models import Case, CaseMerge, PendingImport
from tests.admin.test_import_export import confirm_url, json_lines, upload
from tests.factories import CaseFactory, OrganisationFactory, SourceFactory, UserFactory

pytestmark = pytest.mark.django_db

SOURCE = "https://engineering.fb.com/2021/10/05/outage/"


@pytest.fixture
def reviewer(client):
    user = UserFactory(username="rita", role="reviewer")
    client.force_login(user)
    return user


@pytest.fixture
def pair():
    meta = OrganisationFactory(name="Meta", slug="meta")
    kept = CaseFactory(public_id="IL-1010", org=meta, date=datetime.date(2021, 10, 4))
    other = CaseFactory(public_id="IL-5001", date=datetime.date(2021, 10, 4))
    SourceFactory(case=kept, url=SOURCE)
    SourceFactory(case=other, url="http://engineering.fb.com/2021/10/05/outage")
    return kept, other


def change_page(client, case):
    return client.get(reverse("admin:cases_case_change", args=[case.pk])).content.decode()


def combine_url(case):
    return reverse("admin:cases_case_combine", args=[case.pk])


def test_a_case_page_names_its_possible_duplicates_and_offers_to_merge(client, reviewer, pair):
    kept, other = pair
    html = change_page(client, other)
    assert "This case may be a duplicate" in html
    assert f"IL-1010</a> — same source {SOURCE}" in html
    assert f'href="{combine_url(other)}?with={kept.pk}"' in html


def test_an_editor_sees_the_notice_but_no_merge(client, pair):
    kept, other = pair
    client.force_login(UserFactory(username="eddie", role="editor"))
    html = change_page(client, other)
    assert "This case may be a duplicate" in html and "Merge…" not in html
    response = client.post(combine_url(other), {"with": kept.pk, "survivor": kept.pk})
    assert response.status_code == 403
    assert not CaseMerge.objects.exists()


def test_the_merge_page_keeps_the_chosen_case(client, reviewer, pair):
    kept, other = pair
    page = client.get(combine_url(other), {"with": "IL-1010"})
    assert page.status_code == 200
    html = page.content.decode()
    assert "IL-1010" in html and "IL-5001" in html and SOURCE in html
    response = client.post(
        combine_url(other), {"with": kept.pk, "survivor": kept.pk, "note": "one incident"}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:cases_case_change", args=[kept.pk])
    merge = CaseMerge.objects.get()
    assert (merge.absorbed, merge.survivor, merge.note) == (other, kept, "one incident")
    said = [str(m) for m in get_messages(response.wsgi_request)]
    assert any("IL-5001 was merged into IL-1010" in m for m in said)
    assert "This case was merged into IL-1010" in change_page(client, other)
    assert "IL-5001</a>" in change_page(client, kept)  # "merged into this case"


@pytest.mark.parametrize("named", ["", "IL-9999", "banana", "9" * 40, "<script>"])
def test_a_bad_case_to_merge_with_is_said_plainly(client, reviewer, pair, named):
    _kept, other = pair
    response = client.get(combine_url(other), {"with": named}, follow=True)
    assert response.status_code == 200
    assert [m.level_tag for m in response.context["messages"]] == ["error"]
    assert not CaseMerge.objects.exists()


def test_a_refused_merge_says_why_on_the_page(client, reviewer, pair):
    kept, other = pair
    draft = CaseFactory(public_id="IL-0200", status=Case.Status.DRAFT, published_at=None)
    response = client.post(combine_url(other), {"with": draft.pk, "survivor": draft.pk})
    assert response.status_code == 200
    assert "its readers must land on a published case" in response.content.decode()
    response = client.post(combine_url(other), {"with": kept.pk, "survivor": "nonsense"})
    assert "Choose the case to keep." in response.content.decode()
    assert not CaseMerge.objects.exists()


def test_the_changelist_filters_the_cases_citing_another_cases_source(
    client, reviewer, pair, django_assert_max_num_queries
):
    CaseFactory(public_id="IL-0300")
    SourceFactory(case=CaseFactory(public_id="IL-0301"), url="https://elsewhere.example/")
    with django_assert_max_num_queries(25):
        response = client.get(reverse("admin:cases_case_changelist"), {"duplicates": "source"})
    listed = {case.public_id for case in response.context["cl"].result_list}
    assert listed == {"IL-1010", "IL-5001"}


def test_the_import_dry_run_and_its_confirmation_list_possible_duplicates(
    client, reviewer, pair, seed_case
):
    incoming = {
        **seed_case,
        "id": "IL-6000",
        "related": [],
        "recurrence_of": None,
        "sources": [{"url": SOURCE + "?utm_source=x", "kind": "postmortem", "archived": None}],
    }
    report = upload(client, json_lines(incoming)).content.decode()
    assert "Possible duplicates" in report
    assert f"IL-6000 looks like IL-1010 (same source {SOURCE})" in report
    assert "IL-6000 looks like IL-5001" in report
    response = client.post(confirm_url(PendingImport.objects.get().token))
    said = [str(m) for m in get_messages(response.wsgi_request)]
    assert any("IL-6000 looks like IL-1010" in m for m in said)
