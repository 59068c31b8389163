"""The editors' side in the Django admin: rights, workflow buttons, revisions, history."""

import io

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from cases.models import Case, CaseTerm, CaseVersion, Term, TermRedirect, Vocabulary
from tests.admin_forms import change_form_data
from tests.factories import CaseFactory, SourceFactory, TermFactory, UserFactory

pytestmark = pytest.mark.django_db
Status = Case.Status


@pytest.fixture
def users():
    return {
        "editor": UserFactory(username="eddie", role="editor"),
        "other_editor": UserFactory(username="erin", role="editor"),
        "reviewer": UserFactory(username="rita", role="reviewer"),
        "second_reviewer": UserFactory(username="ravi", role="reviewer"),
        "superuser": UserFactory(username="root", is_superuser=True),
    }


def login(client, user):
    if user is not None:
        client.force_login(user)
    return client


def change_url(case):
    return reverse("admin:cases_case_change", args=[case.pk])


def transition(client, case, action, note="", **more):
    return client.post(
        reverse("admin:cases_case_transition", args=[case.pk, action]), {"note": note, **more}
    )


# --- the permission matrix --------------------------------------------------------

# Who may make each transition from its source state (the case was created and submitted
# by "eddie", an editor).
TRANSITION_MATRIX = {
    # action: (status before, {role: allowed})
    "submit": (
        Status.DRAFT,
        {
            "anonymous": False,
            "editor": True,
            "other_editor": False,
            "reviewer": True,
            "superuser": True,
        },
    ),
    "approve": (
        Status.IN_REVIEW,
        {
            "anonymous": False,
            "editor": False,
            "other_editor": False,
            "reviewer": True,
            "superuser": True,
        },
    ),
    "request_changes": (
        Status.IN_REVIEW,
        {
            "anonymous": False,
            "editor": False,
            "other_editor": False,
            "reviewer": True,
            "superuser": True,
        },
    ),
    "withdraw": (
        Status.PUBLISHED,
        {
            "anonymous": False,
            "editor": False,
            "other_editor": False,
            "reviewer": True,
            "superuser": True,
        },
    ),
    "reopen": (
        Status.WITHDRAWN,
        {
            "anonymous": False,
            "editor": False,
            "other_editor": False,
            "reviewer": True,
            "superuser": True,
        },
    ),
}
CELLS = [
    (action, role, allowed)
    for action, (_status, roles) in TRANSITION_MATRIX.items()
    for role, allowed in roles.items()
]


@pytest.mark.parametrize("action,role,allowed", CELLS)
def test_transition_permission_matrix(client, users, action, role, allowed):
    status = TRANSITION_MATRIX[action][0]
    case = CaseFactory(
        status=status,
        published_at=timezone.now() if status == Status.PUBLISHED else None,
        created_by=users["editor"],
        last_edited_by=users["editor"],
        submitted_by=users["editor"],
    )
    login(client, users.get(role))
    page = client.get(change_url(case))
    response = transition(client, case, action, note="Because.")
    case.refresh_from_db()
    target = {
        "submit": Status.IN_REVIEW,
        "approve": Status.PUBLISHED,
        "request_changes": Status.CHANGES_REQUESTED,
        "withdraw": Status.WITHDRAWN,
        "reopen": Status.DRAFT,
    }[action]
    if role == "anonymous":
        assert response.status_code == 302 and "/admin/login/" in response.url
        assert case.status == status
        return
    button = f'formaction="/admin/cases/case/{case.pk}/transition/{action}/"'
    assert (button in page.content.decode()) is allowed, "the button shows only to who may use it"
    assert case.status == (target if allowed else status)


ADMIN_PAGES = {
    # page: {role: expected status code}
    "changelist": (
        "admin:cases_case_changelist",
        None,
        {"anonymous": 302, "editor": 200, "reviewer": 200, "superuser": 200, "nobody": 403},
    ),
    "add": (
        "admin:cases_case_add",
        None,
        {"anonymous": 302, "editor": 200, "reviewer": 200, "superuser": 200, "nobody": 403},
    ),
    "delete": (
        "admin:cases_case_delete",
        "case",
        {"anonymous": 302, "editor": 403, "reviewer": 403, "superuser": 200, "nobody": 403},
    ),
    "versions": (
        "admin:cases_case_versions",
        "case",
        {"anonymous": 302, "editor": 200, "reviewer": 200, "superuser": 200, "nobody": 403},
    ),
    "terms": (
        "admin:cases_term_changelist",
        None,
        {"anonymous": 302, "editor": 200, "reviewer": 200, "superuser": 200, "nobody": 403},
    ),
    "term change": (
        "admin:cases_term_change",
        "term",
        {"anonymous": 302, "editor": 200, "reviewer": 200, "superuser": 200, "nobody": 403},
    ),
    "index": (
        "admin:index",
        None,
        {"anonymous": 302, "editor": 200, "reviewer": 200, "superuser": 200, "nobody": 200},
    ),
}
PAGE_CELLS = [
    (page, role, code)
    for page, (_n, _a, roles) in ADMIN_PAGES.items()
    for role, code in roles.items()
]


@pytest.mark.parametrize("page,role,code", PAGE_CELLS)
def test_admin_page_permission_matrix(client, users, page, role, code):
    users["nobody"] = UserFactory(username="nobody", role=None)
    name, argument, _roles = ADMIN_PAGES[page]
    objects = {"case": CaseFactory(), "term": TermFactory()}
    args = [objects[argument].pk] if argument else []
    login(client, users.get(role))
    assert client.get(reverse(name, args=args)).status_code == code


def test_editors_edit_their_own_drafts_only(client, users):
    mine = CaseFactory(status=Status.DRAFT, published_at=None, created_by=users["editor"])
    theirs = CaseFactory(status=Status.DRAFT, published_at=None, created_by=users["other_editor"])
    login(client, users["editor"])
    assert b'name="_save"' in client.get(change_url(mine)).content
    assert b'name="_save"' not in client.get(change_url(theirs)).content  # read-only view
    data = change_form_data(client.get(change_url(mine)), title_en="Changed by me")
    assert client.post(change_url(mine), data).status_code == 302
    mine.refresh_from_db()
    assert mine.title_en == "Changed by me" and mine.last_edited_by == users["editor"]


def test_a_published_case_is_read_only_and_offers_a_pending_revision(client, users):
    case = CaseFactory(public_id="IL-0500", title_en="Live text")
    login(client, users["editor"])
    page = client.get(change_url(case)).content.decode()
    assert 'name="_save"' not in page and "Edit (as a pending revision)" in page
    response = client.post(reverse("admin:cases_case_revise", args=[case.pk]))
    copy = Case.objects.get(draft_of=case)
    assert response.url == change_url(copy)
    assert "has unpublished changes" in client.get(change_url(case)).content.decode()
    listing = client.get(reverse("admin:cases_case_changelist")).content.decode()
    assert (
        "has unpublished changes" in listing and "pending revision of a published case" in listing
    )


# --- the whole flow through the admin, and the public page -------------------------


def test_editing_a_published_case_changes_the_public_page_only_after_approval(client, users):
    case = CaseFactory(public_id="IL-0600", title_en="Live text", summary_en="Live summary.")
    SourceFactory(case=case, url="https://example.org/pm")
    login(client, users["editor"])
    client.post(reverse("admin:cases_case_revise", args=[case.pk]))
    copy = Case.objects.get(draft_of=case)
    data = change_form_data(client.get(change_url(copy)), title_en="Corrected text")
    assert client.post(change_url(copy), data).status_code == 302
    transition(client, copy, "submit")

    public = client.get("/en/cases/IL-0600/").content.decode()
    assert "Live text" in public and "Corrected text" not in public

    login(client, users["reviewer"])
    # Only the English title changed: its Korean may lag, and the reviewer says so.
    assert transition(client, copy, "approve", confirm_stale_korean="on").status_code == 302
    public = client.get("/en/cases/IL-0600/").content.decode()
    assert "Corrected text" in public and "Live text" not in public
    case.refresh_from_db()
    assert case.status == Status.PUBLISHED and case.sources.get().url == "https://example.org/pm"
    assert not Case.objects.filter(draft_of=case).exists()


def test_a_pending_revision_never_shows_publicly(client, users):
    case = CaseFactory(public_id="IL-0650", title_en="Live text")
    login(client, users["editor"])
    client.post(reverse("admin:cases_case_revise", args=[case.pk]))
    Case.objects.filter(draft_of=case).update(
        title_en="Unreviewed text", date=case.date.replace(year=2030)
    )
    client.logout()
    assert client.get("/en/cases/IL-0650.json").json()["title"]["en"] == "Live text"
    assert "Unreviewed text" not in client.get("/en/cases/IL-0650/").content.decode()
    listing = (
        client.get("/en/cases/").content.decode() + client.get("/en/cases.json").content.decode()
    )
    assert "Unreviewed text" not in listing
    assert "Unreviewed text" not in client.get("/en/feed.atom").content.decode()


def test_request_changes_needs_a_note_and_shows_it_on_the_timeline(client, users):
    case = CaseFactory(status=Status.IN_REVIEW, published_at=None, submitted_by=users["editor"])
    login(client, users["reviewer"])
    transition(client, case, "request_changes", note="")
    case.refresh_from_db()
    assert case.status == Status.IN_REVIEW
    transition(client, case, "request_changes", note="Add the Korean summary.")
    case.refresh_from_db()
    assert case.status == Status.CHANGES_REQUESTED
    page = client.get(change_url(case)).content.decode()
    assert "Add the Korean summary." in page and "rita" in page


def test_validation_is_the_importers(client, users):
    case = CaseFactory(status=Status.DRAFT, published_at=None, created_by=users["editor"])
    SourceFactory(case=case)
    login(client, users["editor"])
    page = client.get(change_url(case))
    data = change_form_data(page, **{"sources-0-url": "javascript:alert(1)"})
    response = client.post(change_url(case), data)
    assert response.status_code == 200
    assert "only http and https links are allowed" in response.content.decode()
    data = change_form_data(page, title_en="", title_ko="")
    response = client.post(change_url(case), data)
    assert "a title is required in at least one language" in response.content.decode()
    data = change_form_data(page, public_id="IL-12")
    assert "is not a case id" in client.post(change_url(case), data).content.decode()
    case.refresh_from_db()
    assert case.sources.get().url.startswith("https://")


def test_the_second_of_two_concurrent_saves_writes_nothing_until_merged(client, users):
    """The merge itself is tested in test_case_merge.py."""
    case = CaseFactory(status=Status.DRAFT, published_at=None)
    login(client, users["reviewer"])
    first_page = client.get(change_url(case))
    second_page = client.get(change_url(case))
    assert (
        client.post(change_url(case), change_form_data(first_page, title_en="First")).status_code
        == 302
    )
    response = client.post(change_url(case), change_form_data(second_page, title_en="Second"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "saved this case at" in html and "while you were editing it" in html
    assert "Second" in html  # the merge page keeps the text not yet written
    case.refresh_from_db()
    assert case.title_en == "First"


# --- history -------------------------------------------------------------------------


def test_every_save_is_kept_and_can_be_compared_and_restored(client, users):
    case = CaseFactory(status=Status.DRAFT, published_at=None, title_en="One")
    login(client, users["reviewer"])
    for title in ("Two", "Three"):
        client.post(
            change_url(case), change_form_data(client.get(change_url(case)), title_en=title)
        )
    versions = list(CaseVersion.objects.filter(public_id=case.public_id).order_by("number"))
    assert [v.data["title"]["en"] for v in versions] == ["One", "Two", "Three"]

    compare = client.get(reverse("admin:cases_case_compare", args=[case.pk]) + "?a=1&b=3")
    html = compare.content.decode()
    assert "title.en" in html and "<del" in html and "One" in html and "Three" in html

    client.post(reverse("admin:cases_case_restore", args=[case.pk, 1]))
    case.refresh_from_db()
    assert case.title_en == "One"
    assert CaseVersion.objects.filter(public_id=case.public_id).count() == 4


def test_restoring_on_a_published_case_makes_a_pending_revision(client, users):
    case = CaseFactory(
        status=Status.DRAFT, published_at=None, title_en="Old", created_by=users["editor"]
    )
    login(client, users["editor"])
    client.post(change_url(case), change_form_data(client.get(change_url(case)), title_en="New"))
    Case.objects.filter(pk=case.pk).update(status=Status.PUBLISHED, published_at=timezone.now())
    client.post(reverse("admin:cases_case_restore", args=[case.pk, 1]))
    case.refresh_from_db()
    assert case.title_en == "New"  # the public case is untouched
    assert Case.objects.get(draft_of=case).title_en == "Old"


def test_deleting_is_for_superusers_and_leaves_the_history(client, users):
    case = CaseFactory(status=Status.DRAFT, published_at=None)
    login(client, users["reviewer"])
    client.post(change_url(case), change_form_data(client.get(change_url(case)), title_en="Kept"))
    assert (
        client.post(reverse("admin:cases_case_delete", args=[case.pk]), {"post": "yes"}).status_code
        == 403
    )
    login(client, users["superuser"])
    client.post(reverse("admin:cases_case_delete", args=[case.pk]), {"post": "yes"})
    assert not Case.objects.filter(pk=case.pk).exists()
    assert CaseVersion.objects.filter(public_id=case.public_id, data__title__en="Kept").exists()


# --- translations ---------------------------------------------------------------


def test_changing_english_flags_the_korean_as_stale_until_confirmed(client, users):
    case = CaseFactory(status=Status.DRAFT, published_at=None, summary_en="Old.", summary_ko="옛.")
    login(client, users["reviewer"])
    page = client.get(change_url(case))
    client.post(change_url(case), change_form_data(page, summary_ko="새 요약."))
    case.refresh_from_db()
    assert not case.ko_stale
    client.post(change_url(case), change_form_data(client.get(change_url(case)), summary_en="New."))
    case.refresh_from_db()
    assert case.ko_stale
    listing = client.get(reverse("admin:cases_case_changelist") + "?translation=ko_stale")
    assert case.public_id in listing.content.decode() and "KO ⚠ stale" in listing.content.decode()
    assert "summary" in client.get(change_url(case)).content.decode()
    client.post(reverse("admin:cases_case_confirm", args=[case.pk]))
    case.refresh_from_db()
    assert not case.ko_stale


def test_missing_translation_filter(client, users):
    complete = CaseFactory(public_id="IL-0701", status=Status.DRAFT, published_at=None)
    missing = CaseFactory(public_id="IL-0702", status=Status.DRAFT, published_at=None, title_ko="")
    for case in (complete, missing):
        login(client, users["reviewer"])
        client.post(change_url(case), change_form_data(client.get(change_url(case))))
    html = client.get(
        reverse("admin:cases_case_changelist") + "?translation=ko_missing"
    ).content.decode()
    assert "IL-0702" in html and "IL-0701" not in html


# --- finding work -------------------------------------------------------------------


def test_queues_on_the_list_and_the_dashboard(client, users):
    CaseFactory(
        public_id="IL-0801",
        status=Status.IN_REVIEW,
        published_at=None,
        submitted_by=users["editor"],
    )
    CaseFactory(
        public_id="IL-0802",
        status=Status.IN_REVIEW,
        published_at=None,
        submitted_by=users["reviewer"],
    )
    CaseFactory(
        public_id="IL-0803", status=Status.DRAFT, published_at=None, created_by=users["reviewer"]
    )
    login(client, users["reviewer"])
    html = client.get(reverse("admin:cases_case_changelist") + "?queue=review").content.decode()
    assert "IL-0801" in html and "IL-0802" not in html
    index = client.get(reverse("admin:index")).content.decode()
    assert 'data-queue="review">1<' in index and 'data-queue="drafts">1<' in index
    login(client, users["editor"])
    assert 'data-queue="review"' not in client.get(reverse("admin:index")).content.decode()


def test_admin_search_finds_text_and_ids(client, users):
    CaseFactory(public_id="IL-0901", title_en="Quasar meltdown")
    from cases.search.text import refresh_search_text

    refresh_search_text(Case.objects.all())
    login(client, users["editor"])
    html = client.get(reverse("admin:cases_case_changelist") + "?q=quasar").content.decode()
    assert "IL-0901" in html


# --- taxonomy -------------------------------------------------------------------------


def test_merging_terms_moves_cases_and_redirects_the_old_slug(client, users):
    keep = TermFactory(
        vocabulary=Vocabulary.COMPONENT, slug="object-storage", label_en="Object storage"
    )
    old = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="s3", label_en="S3", label_ko="S3")
    both = CaseFactory(public_id="IL-1001", with_terms=[keep, old])
    only_old = CaseFactory(public_id="IL-1002", with_terms=[old])
    login(client, users["editor"])
    merge = {"action": "merge_terms", "_selected_action": [keep.pk, old.pk], "survivor": keep.pk}
    client.post(reverse("admin:cases_term_changelist"), merge)
    assert Term.objects.filter(slug="s3").exists()  # editors may not merge

    login(client, users["reviewer"])
    client.post(reverse("admin:cases_term_changelist"), merge)
    assert not Term.objects.filter(slug="s3").exists()
    assert set(CaseTerm.objects.filter(term=keep).values_list("case__public_id", flat=True)) == {
        both.public_id,
        only_old.public_id,
    }
    keep.refresh_from_db()
    assert "S3" in keep.alias_list("en")
    assert TermRedirect.objects.get(old_slug="s3").term == keep
    response = client.get("/en/cases/?component=s3&org=x")
    assert response.status_code == 301
    assert response.url == "/en/cases/?component=object-storage&org=x"


def test_term_list_shows_case_counts(client, users):
    term = TermFactory(vocabulary=Vocabulary.SYMPTOM, slug="host-crash", label_en="Host crash")
    CaseFactory(with_terms=[term])
    CaseFactory(with_terms=[term])
    login(client, users["editor"])
    html = client.get(
        reverse("admin:cases_term_changelist") + "?vocabulary=symptom"
    ).content.decode()
    assert '<td class="field-case_count">2</td>' in html


# --- preview and accounts ----------------------------------------------------------


def test_preview_is_for_staff_and_never_cached(client, users):
    draft = CaseFactory(
        public_id="IL-1100", status=Status.DRAFT, published_at=None, title_en="Secret draft"
    )
    assert client.get("/en/cases/IL-1100/").status_code == 404
    anonymous = client.get(f"/en/preview/{draft.pk}/")
    assert anonymous.status_code == 302 and "Secret draft" not in anonymous.content.decode()
    login(client, users["editor"])
    preview = client.get(f"/en/preview/{draft.pk}/")
    assert preview.status_code == 200 and "Secret draft" in preview.content.decode()
    assert "no-cache" in preview["Cache-Control"] and "private" in preview["Cache-Control"]
    assert "Preview: this is not public." in preview.content.decode()


def test_createeditor_puts_the_account_in_its_group(django_user_model):
    out = io.StringIO()
    call_command("createeditor", "mina", "--role", "reviewer", stdout=out)
    user = django_user_model.objects.get(username="mina")
    assert user.is_staff and user.has_perm("cases.review_case")
    password = out.getvalue().split("password ")[1].strip()
    assert user.check_password(password)
    call_command("createeditor", "mina", "--role", "editor", stdout=io.StringIO())
    user = django_user_model.objects.get(username="mina")
    assert not user.has_perm("cases.review_case") and user.has_perm("cases.submit_case")
