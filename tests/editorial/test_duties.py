"""Separation of duties, computed from the history; public names only by reviewers; stale
Korean published only when a reviewer says so, and then the public page says so too."""

import pytest
from django.urls import reverse

from cases.editorial import transitions as workflow
from cases.editorial.transitions import WorkflowError
from cases.models import Case, CaseTransition, Organisation, Term, Vocabulary
from tests.admin_forms import change_form_data, edit_in_admin
from tests.factories import CaseFactory, OrganisationFactory, TermFactory, UserFactory

pytestmark = pytest.mark.django_db
Status = Case.Status


@pytest.fixture
def people():
    return {
        "editor": UserFactory(username="eddie", role="editor"),
        "rita": UserFactory(username="rita", role="reviewer"),
        "ravi": UserFactory(username="ravi", role="reviewer"),
        "sora": UserFactory(username="sora", role="reviewer"),
    }


def test_nobody_approves_a_revision_they_wrote_any_version_of(people):
    live = CaseFactory(public_id="IL-0300", summary_en="Approved text.")
    copy = workflow.case_start_revision(case=live, user=people["rita"])
    edit_in_admin(copy, people["rita"], summary_en="Rita's own text.")
    # Someone else makes a small edit and submits: Rita neither saved last nor submitted.
    edit_in_admin(copy, people["ravi"], title_en="A typo fixed")
    workflow.case_submit(case=copy, user=people["ravi"])
    with pytest.raises(WorkflowError, match="another reviewer must approve"):
        workflow.case_approve(case=copy, user=people["rita"])
    # A reviewer who wrote none of it may.
    approved = workflow.case_approve(case=copy, user=people["sora"], confirm_stale_korean=True)
    assert approved.pk == live.pk


def test_authorship_counts_only_since_the_last_approval(people):
    case = CaseFactory(public_id="IL-0301", status=Status.DRAFT, published_at=None)
    edit_in_admin(case, people["rita"], summary_en="First text by Rita.")
    workflow.case_submit(case=case, user=people["rita"])
    workflow.case_approve(case=case, user=people["ravi"], confirm_stale_korean=True)
    # A later revision Rita did not write: she may approve it.
    copy = workflow.case_start_revision(case=case, user=people["editor"])
    edit_in_admin(copy, people["editor"], summary_en="Second text by Eddie.")
    workflow.case_submit(case=copy, user=people["editor"])
    approved = workflow.case_approve(case=copy, user=people["rita"], confirm_stale_korean=True)
    assert approved.status == Status.PUBLISHED


def test_the_submitter_cannot_approve_either(people):
    case = CaseFactory(
        public_id="IL-0302", status=Status.DRAFT, published_at=None, created_by=people["editor"]
    )
    edit_in_admin(case, people["editor"], summary_en="Eddie's text.")
    workflow.case_submit(case=case, user=people["rita"])
    with pytest.raises(WorkflowError, match="another reviewer must approve"):
        workflow.case_approve(case=case, user=people["rita"])


def test_the_approve_button_is_not_offered_to_an_author(client, people):
    live = CaseFactory(public_id="IL-0303")
    copy = workflow.case_start_revision(case=live, user=people["rita"])
    edit_in_admin(copy, people["rita"], summary_en="Rita wrote this.")
    edit_in_admin(copy, people["ravi"], title_en="Ravi fixed a word")
    workflow.case_submit(case=copy, user=people["ravi"])
    client.force_login(people["rita"])
    page = client.get(reverse("admin:cases_case_change", args=[copy.pk])).content.decode()
    assert f"/admin/cases/case/{copy.pk}/transition/approve/" not in page


# --- public names -----------------------------------------------------------------------


def test_editors_cannot_rename_an_organisation_the_public_sees(client, people):
    org = OrganisationFactory(name="Hugging Face", slug="hugging-face")
    CaseFactory(org=org)
    client.force_login(people["editor"])
    url = reverse("admin:cases_organisation_change", args=[org.pk])
    page = client.get(url)
    assert b'name="_save"' not in page.content  # read only for editors
    client.post(url, {"name": "Hugged Face", "slug": "hugging-face", "_save": "Save"})
    org.refresh_from_db()
    assert org.name == "Hugging Face"
    assert "Hugged Face" not in client.get("/en/cases/").content.decode()


def test_editors_cannot_relabel_a_term_the_public_sees(client, people):
    term = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="dns", label_en="DNS")
    CaseFactory(with_terms=[term])
    client.force_login(people["editor"])
    url = reverse("admin:cases_term_change", args=[term.pk])
    data = change_form_data(client.get(url), label_en="Domain names")
    client.post(url, data)
    term.refresh_from_db()
    assert term.label_en == "DNS"


def test_editors_may_still_name_what_only_their_drafts_use(client, people):
    org = OrganisationFactory(name="Acme Corp", slug="acme")
    CaseFactory(org=org, status=Status.DRAFT, published_at=None, created_by=people["editor"])
    client.force_login(people["editor"])
    url = reverse("admin:cases_organisation_change", args=[org.pk])
    client.post(url, {"name": "Acme Corporation", "slug": "acme", "_save": "Save"})
    org.refresh_from_db()
    assert org.name == "Acme Corporation"


def test_a_reviewer_relabels_and_the_search_follows(client, people):
    term = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="dns", label_en="DNS")
    CaseFactory(public_id="IL-0310", with_terms=[term])
    client.force_login(people["rita"])
    url = reverse("admin:cases_term_change", args=[term.pk])
    response = client.post(url, change_form_data(client.get(url), label_en="Name resolution"))
    assert response.status_code == 302
    assert Term.objects.get(pk=term.pk).label_en == "Name resolution"
    client.logout()
    assert "IL-0310" in client.get("/en/cases/?q=resolution").content.decode()
    assert Organisation.objects.count() >= 1


# --- stale Korean ---------------------------------------------------------------------


@pytest.fixture
def stale(people):
    case = CaseFactory(
        public_id="IL-0320",
        status=Status.DRAFT,
        published_at=None,
        created_by=people["editor"],
        summary_en="Old English.",
        summary_ko="옛 한국어.",
    )
    edit_in_admin(
        case, people["editor"], summary_ko="한국어 요약."
    )  # written against "Old English."
    edit_in_admin(case, people["editor"], summary_en="New English.")
    case.refresh_from_db()
    assert case.ko_stale
    workflow.case_submit(case=case, user=people["editor"])
    return case


def test_approving_stale_korean_needs_a_confirmation(stale, people):
    with pytest.raises(WorkflowError, match="Korean"):
        workflow.case_approve(case=stale, user=people["rita"])
    stale.refresh_from_db()
    assert stale.status == Status.IN_REVIEW
    published = workflow.case_approve(case=stale, user=people["rita"], confirm_stale_korean=True)
    assert published.status == Status.PUBLISHED
    step = CaseTransition.objects.filter(case=stale).latest("at")
    assert "Korean" in step.note


def test_the_admin_asks_before_approving_stale_korean(client, stale, people):
    client.force_login(people["rita"])
    url = reverse("admin:cases_case_transition", args=[stale.pk, "approve"])
    client.post(url, {"note": ""})
    stale.refresh_from_db()
    assert stale.status == Status.IN_REVIEW
    page = client.get(reverse("admin:cases_case_change", args=[stale.pk])).content.decode()
    assert 'name="confirm_stale_korean"' in page
    client.post(url, {"note": "", "confirm_stale_korean": "on"})
    stale.refresh_from_db()
    assert stale.status == Status.PUBLISHED


def test_readers_are_told_the_korean_may_lag(client, stale, people):
    workflow.case_approve(case=stale, user=people["rita"], confirm_stale_korean=True)
    korean = client.get("/ko/cases/IL-0320/").content.decode()
    assert "한국어 번역이 영어 원문보다 늦을 수 있습니다" in korean
    assert "may lag" not in client.get("/en/cases/IL-0320/").content.decode()


def test_the_review_queue_leaves_out_what_the_reviewer_wrote(client, people):
    live = CaseFactory(public_id="IL-0304")
    copy = workflow.case_start_revision(case=live, user=people["rita"])
    edit_in_admin(copy, people["rita"], summary_en="Rita wrote this.")
    edit_in_admin(copy, people["ravi"], title_en="Ravi fixed a word")
    workflow.case_submit(case=copy, user=people["ravi"])
    for reviewer, listed in (("rita", False), ("ravi", False), ("sora", True)):
        client.force_login(people[reviewer])
        page = client.get(reverse("admin:cases_case_changelist") + "?queue=review")
        assert ("IL-0304" in page.content.decode()) is listed, reviewer
        index = client.get(reverse("admin:index")).content.decode()
        assert f'data-queue="review">{int(listed)}<' in index, reviewer
