"""The triage queue in the admin: who sees it and the email, the matches shown, and each
step (accept into a draft, reject, duplicate) refused with clear words when it must be."""

import datetime

import pytest
from django.urls import reverse

from cases.contributions import suggestions as rules
from cases.exchange.serialize import case_to_exchange
from cases.exchange.validation import validate_case
from cases.models import Case, Organisation, Suggestion
from tests.factories import CaseFactory, OrganisationFactory, SourceFactory, UserFactory

pytestmark = pytest.mark.django_db
Status = Suggestion.Status
URL = "https://status.example-cloud.com/incidents/2025-03-01-queue-backlog"
CHANGELIST = reverse("admin:cases_suggestion_changelist")


def page_url(suggestion):
    return reverse("admin:cases_suggestion_change", args=[suggestion.pk])


def step_url(suggestion, action):
    return reverse(f"admin:cases_suggestion_{action}", args=[suggestion.pk])


def suggest(url=URL, **fields):
    fields = {"organisation": "Example Cloud", "email": "reader@example.net", **fields}
    return rules.suggestion_create(source_url=url, language="en", **fields)


@pytest.fixture
def suggestion():
    return suggest(date=datetime.date(2025, 3, 1), note="Their queue backed up <b>for hours</b>.")


def accept_data(**changes):
    data = {
        "accept-org": "",
        "accept-new_org_name": "Example Cloud",
        "accept-new_org_slug": "",
        "accept-title_en": "Queue backlog delays deploys",
        "accept-title_ko": "",
        "accept-date": "2025-03-01",
    }
    data.update(changes)
    return data


# --- the queue --------------------------------------------------------------------------


def test_the_queue_lists_the_new_first_each_oldest_first(client, editor):
    now = datetime.datetime(2026, 1, 10, tzinfo=datetime.UTC)
    old_new = suggest(f"{URL}/1")
    young_new = suggest(f"{URL}/2")
    handled = suggest(f"{URL}/3")
    Suggestion.objects.filter(pk=old_new.pk).update(sent_at=now - datetime.timedelta(days=3))
    Suggestion.objects.filter(pk=young_new.pk).update(sent_at=now - datetime.timedelta(days=1))
    Suggestion.objects.filter(pk=handled.pk).update(sent_at=now - datetime.timedelta(days=9))
    rules.suggestion_reject(suggestion=handled, user=editor, reason="No.")
    client.force_login(editor)
    response = client.get(CHANGELIST)
    assert response.status_code == 200
    listed = [s.pk for s in response.context["cl"].result_list]
    assert listed == [old_new.pk, young_new.pk, handled.pk]
    new_only = client.get(CHANGELIST, {"status__exact": "new"}).context["cl"].result_list
    assert [s.pk for s in new_only] == [old_new.pk, young_new.pk]
    assert "reader@example.net" not in response.content.decode()


def test_the_queue_takes_a_few_queries_however_long(client, editor, django_assert_max_num_queries):
    for n in range(40):
        suggest(f"{URL}/{n}")
    client.force_login(editor)
    with django_assert_max_num_queries(12):
        response = client.get(CHANGELIST)
    assert len(response.context["cl"].result_list) == 40


def test_nobody_adds_a_suggestion_in_the_admin(client, reviewer):
    client.force_login(reviewer)
    assert client.get(reverse("admin:cases_suggestion_add")).status_code == 403


def test_staff_outside_the_editorial_groups_see_no_queue(client, suggestion):
    client.force_login(UserFactory(username="visitor"))
    assert client.get(CHANGELIST).status_code == 403
    assert client.get(page_url(suggestion)).status_code == 403
    assert client.post(step_url(suggestion, "reject"), {"reject-reason": "x"}).status_code == 403


# --- a suggestion's page ----------------------------------------------------------------


def test_the_page_shows_what_was_sent_escaped_and_the_email_to_a_triager(
    client, editor, suggestion
):
    client.force_login(editor)
    response = client.get(page_url(suggestion))
    html = response.content.decode()
    assert response.status_code == 200
    assert URL in html and "Example Cloud" in html
    assert "&lt;b&gt;for hours&lt;/b&gt;" in html  # a reader's text is never markup
    assert "reader@example.net" in html
    assert 'rel="noopener noreferrer nofollow"' in html
    for form in ("accept-form", "reject-form", "duplicate-form"):
        assert f'id="{form}"' in html


def test_one_who_may_only_view_sees_no_email_and_no_forms(client, suggestion):
    from django.contrib.auth.models import Permission

    viewer = UserFactory(username="viewer")
    viewer.user_permissions.add(Permission.objects.get(codename="view_suggestion"))
    client.force_login(viewer)
    html = client.get(page_url(suggestion)).content.decode()
    assert URL in html
    assert "reader@example.net" not in html
    assert 'id="accept-form"' not in html


def test_matches_are_shown_with_links(client, editor, suggestion):
    case = CaseFactory(public_id="IL-0585", title_en="Queue backlog")
    SourceFactory(
        case=case, url="http://www.status.example-cloud.com/incidents/2025-03-01-queue-backlog/"
    )
    near = CaseFactory(public_id="IL-0586")
    SourceFactory(
        case=near, url="https://status.example-cloud.com/old/2025-03-01-queue-backlog.html"
    )
    earlier = suggest(URL + "?utm_source=news")
    client.force_login(editor)
    response = client.get(page_url(suggestion))
    html = response.content.decode()
    assert [(m.kind, m.case or m.suggestion) for m in response.context["matches"]] == [
        ("exact", case),
        ("exact", earlier),
        ("near", near),
    ]
    assert reverse("admin:cases_case_change", args=[case.pk]) in html
    assert reverse("admin:cases_case_change", args=[near.pk]) in html
    assert page_url(earlier) in html
    assert "same address" in html and "similar address" in html
    # The duplicate form offers the exact match.
    assert response.context["duplicate_form"].initial["case"] == case


def test_no_matches_are_said_so(client, editor, suggestion):
    client.force_login(editor)
    html = client.get(page_url(suggestion)).content.decode()
    assert "No case or earlier suggestion cites this address" in html


def test_the_accept_form_proposes_the_organisation_named_and_the_date(client, editor, suggestion):
    org = OrganisationFactory(name="EXAMPLE CLOUD", slug="example-cloud")
    client.force_login(editor)
    form = client.get(page_url(suggestion)).context["accept_form"]
    assert form.initial["org"] == org
    assert form.initial["new_org_name"] == ""
    assert form.initial["date"] == datetime.date(2025, 3, 1)


def test_a_missing_suggestion_leads_back_to_the_queue(client, editor):
    client.force_login(editor)
    response = client.get(reverse("admin:cases_suggestion_change", args=[999]))
    assert response.status_code == 302


def test_the_page_itself_takes_no_post(client, editor, suggestion):
    client.force_login(editor)
    assert client.post(page_url(suggestion), {"status": "accepted"}).status_code == 405
    assert client.get(step_url(suggestion, "accept")).status_code == 405
    suggestion.refresh_from_db()
    assert suggestion.status == Status.NEW


# --- accept -----------------------------------------------------------------------------


def test_accepting_creates_a_draft_with_the_source_and_opens_it(client, editor, suggestion):
    client.force_login(editor)
    response = client.post(step_url(suggestion, "accept"), accept_data())
    suggestion.refresh_from_db()
    draft = suggestion.draft
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:cases_case_change", args=[draft.pk])
    assert suggestion.status == Status.ACCEPTED and suggestion.handled_by == editor
    _normal, problems = validate_case(
        case_to_exchange(Case.objects.for_exchange().get(pk=draft.pk))
    )
    assert problems == []
    page = client.get(response["Location"])
    html = page.content.decode()
    assert URL in html
    assert f"the draft {draft.public_id} has its source filled in" in html


def test_accepting_with_an_existing_organisation(client, editor, suggestion):
    org = OrganisationFactory(name="Example Cloud", slug="example-cloud")
    client.force_login(editor)
    client.post(
        step_url(suggestion, "accept"),
        accept_data(**{"accept-org": org.pk, "accept-new_org_name": ""}),
    )
    suggestion.refresh_from_db()
    assert suggestion.draft.org == org
    assert Organisation.objects.count() == 1


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"accept-new_org_name": ""}, "org", "Choose an organisation, or name a new one."),
        ({"accept-title_en": ""}, "title_en", "a title is required in at least one language"),
        ({"accept-date": ""}, "date", "This field is required."),
        ({"accept-date": "2025-02-30"}, "date", "Enter a valid date."),
        ({"accept-date": "2999-01-01"}, "date", "in the future"),
        ({"accept-new_org_name": "한국 클라우드"}, "new_org_slug", "cannot be derived from"),
        ({"accept-new_org_slug": "Not A Slug"}, "new_org_slug", "lowercase"),
        ({"accept-title_en": "T" * 501}, "title_en", "at most 500 characters"),
    ],
)
def test_a_draft_that_would_be_refused_is_not_created(
    client, editor, suggestion, changes, field, words
):
    client.force_login(editor)
    response = client.post(step_url(suggestion, "accept"), accept_data(**changes))
    assert response.status_code == 400
    errors = response.context["accept_form"].errors
    assert words in " ".join(errors.get(field, [])), errors
    assert words in response.content.decode().replace("&#x27;", "'")
    suggestion.refresh_from_db()
    assert suggestion.status == Status.NEW
    assert not Case.objects.exists()


def test_an_organisation_chosen_and_named_at_once_is_refused(client, editor, suggestion):
    org = OrganisationFactory()
    client.force_login(editor)
    response = client.post(step_url(suggestion, "accept"), accept_data(**{"accept-org": org.pk}))
    assert "not both" in " ".join(response.context["accept_form"].errors["new_org_name"])


def test_a_new_organisation_that_exists_is_pointed_out(client, editor, suggestion):
    OrganisationFactory(name="Example Cloud", slug="example-cloud")
    client.force_login(editor)
    response = client.post(step_url(suggestion, "accept"), accept_data())
    assert response.context["accept_form"].errors["new_org_name"] == [
        "This organisation already exists: choose it from the list."
    ]


# --- reject and duplicate ---------------------------------------------------------------


def test_rejecting_needs_a_reason(client, editor, suggestion):
    client.force_login(editor)
    response = client.post(step_url(suggestion, "reject"), {"reject-reason": ""})
    assert response.status_code == 400
    assert "Say why the suggestion is rejected." in response.content.decode()
    response = client.post(step_url(suggestion, "reject"), {"reject-reason": "A marketing page."})
    assert response.status_code == 302 and response["Location"] == CHANGELIST
    suggestion.refresh_from_db()
    assert (suggestion.status, suggestion.reason) == (Status.REJECTED, "A marketing page.")


def test_marking_a_duplicate_needs_the_case(client, editor, suggestion):
    case = CaseFactory(public_id="IL-0585")
    client.force_login(editor)
    response = client.post(step_url(suggestion, "duplicate"), {"duplicate-case": ""})
    assert response.status_code == 400
    assert "Choose the case this suggestion duplicates." in response.content.decode()
    response = client.post(step_url(suggestion, "duplicate"), {"duplicate-case": "99999"})
    assert response.status_code == 400
    response = client.post(step_url(suggestion, "duplicate"), {"duplicate-case": case.pk})
    assert response.status_code == 302
    suggestion.refresh_from_db()
    assert (suggestion.status, suggestion.duplicate_of) == (Status.DUPLICATE, case)


@pytest.mark.parametrize("action", ["accept", "reject", "duplicate"])
def test_a_handled_suggestion_is_not_handled_again(client, editor, reviewer, suggestion, action):
    rules.suggestion_reject(suggestion=suggestion, user=editor, reason="Spam.")
    client.force_login(reviewer)
    data = {**accept_data(), "reject-reason": "again", "duplicate-case": CaseFactory().pk}
    response = client.post(step_url(suggestion, action), data, follow=True)
    html = response.content.decode()
    assert "already handled (rejected by eddie on" in html
    assert 'id="accept-form"' not in html  # a handled suggestion's page offers no steps
    suggestion.refresh_from_db()
    assert (suggestion.status, suggestion.reason) == (Status.REJECTED, "Spam.")
    assert Case.objects.filter(created_by=reviewer).count() == 0


def test_the_handled_page_says_who_and_links_the_draft(client, editor, suggestion):
    accepted = rules.suggestion_accept(
        suggestion=suggestion,
        user=editor,
        new_org_name="Example Cloud",
        title_en="T",
        date="2025-03-01",
    )
    client.force_login(editor)
    html = client.get(page_url(accepted)).content.decode()
    assert "by eddie on" in html
    assert reverse("admin:cases_case_change", args=[accepted.draft.pk]) in html


def test_the_dashboard_counts_the_suggestions_waiting_for_a_triager(client, editor, suggestion):
    rules.suggestion_reject(suggestion=suggest(f"{URL}/2"), user=editor, reason="No.")
    client.force_login(editor)
    html = client.get(reverse("admin:index")).content.decode()
    row = f'href="{CHANGELIST}?status__exact=new">Suggested cases to triage</a>'
    assert row in html
    assert '<td class="queue-count" data-queue="suggestions">1</td>' in html
    client.force_login(UserFactory(username="visitor", is_superuser=False))
    assert "Suggested cases to triage" not in client.get(reverse("admin:index")).content.decode()
