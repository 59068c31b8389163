"""The review desk in the admin: comments beside fields, claims, presence, what changed
since the last review, the queue's order and ages, the dashboard and the report."""

import datetime
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from cases.editorial import claims, comments, drafts, presence
from cases.editorial import transitions as workflow
from cases.editorial.revisions import exchange_form
from cases.models import Case, CaseComment, CasePresence, CaseTransition
from tests.admin_forms import change_form_data
from tests.factories import CaseFactory, CaseStepFactory, UserFactory

pytestmark = pytest.mark.django_db
Status = Case.Status


def new_case(editor, **fields):
    case = CaseFactory(
        status=Status.DRAFT, published_at=None, created_by=editor, last_edited_by=editor, **fields
    )
    return drafts.case_save(case=case, data=exchange_form(case), user=editor)


@pytest.fixture
def in_review(editor):
    return workflow.case_submit(case=new_case(editor, public_id="IL-0100"), user=editor)


def change_url(case):
    return reverse("admin:cases_case_change", args=[case.pk])


def comment_url(case, comment, action):
    return reverse("admin:cases_case_comment", args=[case.pk, comment.pk, action])


def add_url(case):
    return reverse("admin:cases_case_comment_add", args=[case.pk])


FETCH = {"headers": {"X-Requested-With": "fetch"}}


def text(response):
    """A page's text, with the non-breaking spaces of "3 days" as plain ones."""
    return response.content.decode().replace("\xa0", " ")


# --- the finding: one note per transition -----------------------------------------------


def test_a_reviewer_leaves_a_comment_on_each_field_from_the_case_page(
    client, in_review, editor, jun
):
    """The workflow panel took one note for the whole case; now each field gets its own."""
    client.force_login(jun)
    for path, said in [("trigger.ko", "Translate the trigger."), ("summary.en", "Which queue?")]:
        response = client.post(add_url(in_review), {"field_path": path, "text": said})
        assert response.status_code == 302
    client.force_login(editor)
    html = text(client.get(change_url(in_review)))
    for field, label, said in [
        ("trigger_ko", "Trigger, Korean", "Translate the trigger."),
        ("summary_en", "Summary, English", "Which queue?"),
    ]:
        thread = re.search(
            rf'<article class="comment-thread"[^>]*data-field="{field}".*?</article>', html, re.S
        )
        assert thread, field
        assert label in thread.group() and said in thread.group()


# --- comments through the admin --------------------------------------------------------


def test_without_javascript_the_forms_stand_outside_the_case_form(client, in_review, jun):
    comment = comments.comment_add(case=in_review, user=jun, field_path="title.ko", text="x")
    client.force_login(jun)
    html = text(client.get(change_url(in_review)))
    case_form = html[html.index('id="case_form"') :]
    assert f'id="comment-{comment.pk}-form"' not in case_form  # no nested forms
    assert f'form="comment-{comment.pk}-form"' in html
    assert 'id="comment-add"' in html and 'value="trigger.ko"' in html
    assert "field-comments.js" in html and "<script>" not in html


def test_adding_replying_resolving_and_reopening_without_javascript(client, in_review, editor, jun):
    client.force_login(jun)
    response = client.post(add_url(in_review), {"field_path": "lessons.ko", "text": "Shorter."})
    comment = CaseComment.objects.get()
    assert response["Location"].endswith(f"#comment-{comment.pk}")
    client.force_login(editor)
    client.post(comment_url(in_review, comment, "reply"), {"text": "Shortened."})
    client.post(comment_url(in_review, comment, "resolve"), {"text": ""})
    comment.refresh_from_db()
    assert comment.is_resolved and comment.replies.get().text == "Shortened."
    html = text(client.get(change_url(in_review)))
    timeline = html[html.index('class="workflow-timeline"') :]
    assert "Jun commented on Lessons, Korean" in timeline and "Resolved by eddie" in timeline
    client.post(comment_url(in_review, comment, "reopen"))
    comment.refresh_from_db()
    assert not comment.is_resolved


def test_with_fetch_the_answer_is_the_thread(client, in_review, editor, jun):
    client.force_login(jun)
    response = client.post(add_url(in_review), {"field_path": "trigger.ko", "text": "Hm."}, **FETCH)
    assert response.status_code == 200
    html = text(response)
    assert html.lstrip().startswith('<article class="comment-thread"')
    assert 'data-field="trigger_ko"' in html
    comment = CaseComment.objects.get()
    client.force_login(editor)
    response = client.post(comment_url(in_review, comment, "resolve"), {"text": "Done."}, **FETCH)
    assert "is-resolved" in text(response) and "Done." in text(response)


@pytest.mark.parametrize(
    "path,words",
    [
        ("trigger", "Unknown field"),
        ("remediation[4].ko", "has no remediation step 5"),
        ("", "Choose"),
    ],
)
def test_a_refused_comment_says_why(client, in_review, jun, path, words):
    client.force_login(jun)
    response = client.post(add_url(in_review), {"field_path": path, "text": "x"}, **FETCH)
    assert response.status_code == 400 and words in text(response)
    response = client.post(add_url(in_review), {"field_path": path, "text": "x"}, follow=True)
    assert response.status_code == 200
    assert words in " ".join(str(m) for m in response.context["messages"])
    assert not CaseComment.objects.exists()


def test_the_comment_views_refuse_what_they_should(client, in_review, editor, jun):
    comment = comments.comment_add(case=in_review, user=jun, field_path="title.ko", text="x")
    stranger = UserFactory(role="editor")
    client.force_login(stranger)
    response = client.post(comment_url(in_review, comment, "resolve"), **FETCH)
    assert response.status_code == 400 and "author or a reviewer" in text(response)
    client.force_login(editor)
    assert client.get(comment_url(in_review, comment, "resolve")).status_code == 405
    assert client.post(comment_url(in_review, comment, "delete")).status_code == 403
    other = CaseFactory(status=Status.IN_REVIEW, published_at=None)
    assert client.post(comment_url(other, comment, "resolve")).status_code == 404
    response = client.post(add_url(in_review), {"field_path": "title.en", "text": "x"}, **FETCH)
    assert response.status_code == 400 and "Only reviewers" in text(response)
    client.logout()
    response = client.post(add_url(in_review), {"field_path": "title.en", "text": "x"})
    assert response.status_code == 302 and "/login/" in response["Location"]
    assert CaseComment.objects.count() == 1 and not CaseComment.objects.get().is_resolved


def test_resolved_comments_stay_in_the_timeline_after_a_revision_is_approved(client, editor, jun):
    live = workflow.case_submit(case=new_case(editor, public_id="IL-0300"), user=editor)
    live = workflow.case_approve(case=live, user=jun)
    copy = workflow.case_start_revision(case=live, user=editor)
    workflow.case_submit(case=copy, user=editor)
    comment = comments.comment_add(case=copy, user=jun, field_path="title.ko", text="Title?")
    comments.comment_resolve(comment=comment, user=editor, note="Fixed.")
    workflow.case_approve(case=copy, user=jun)
    assert not Case.objects.filter(pk=copy.pk).exists()

    client.force_login(jun)
    html = text(client.get(change_url(live)))
    timeline = html[html.index('class="workflow-timeline"') :]
    entries = re.findall(r"<li[^>]*>.*?</li>", timeline, re.S)
    said = [entry for entry in entries if "commented on Title, Korean" in entry]
    assert said and "(pending revision)" in said[0] and "Fixed." in said[0]
    # In time order, newest first: the approval, the comment, the submission.
    order = [
        "approved" if "In review → Published" in e else "comment" if "commented" in e else "other"
        for e in entries
    ]
    assert order.index("approved") < order.index("comment")


def test_open_comments_block_neither_submitting_nor_approving(client, editor, jun, mina):
    case = workflow.case_submit(case=new_case(editor), user=editor)
    comments.comment_add(case=case, user=jun, field_path="title.en", text="x")
    client.force_login(jun)
    client.post(
        reverse("admin:cases_case_transition", args=[case.pk, "request_changes"]),
        {"note": "See comments."},
    )
    client.force_login(editor)
    client.post(reverse("admin:cases_case_transition", args=[case.pk, "submit"]))
    client.force_login(mina)
    client.post(reverse("admin:cases_case_transition", args=[case.pk, "approve"]))
    case.refresh_from_db()
    assert case.status == Status.PUBLISHED and CaseComment.objects.open().count() == 1


def test_a_saved_form_keeps_the_comments_and_sends_none(client, editor, jun):
    case = new_case(editor)
    workflow.case_submit(case=case, user=editor)
    comment = comments.comment_add(case=case, user=jun, field_path="title.en", text="x")
    workflow.case_request_changes(case=case, user=jun, note="See comments.")
    client.force_login(editor)
    page = client.get(change_url(case))
    response = client.post(change_url(case), change_form_data(page, title_en="Better title"))
    assert response.status_code == 302
    comment.refresh_from_db()
    assert not comment.is_resolved and comment.replies.count() == 0


# --- the dashboard and the list ------------------------------------------------------


def test_open_comments_are_counted_on_the_dashboard(
    client, in_review, editor, jun, django_assert_max_num_queries
):
    for path in ("title.en", "title.ko", "trigger.en"):
        comments.comment_add(case=in_review, user=jun, field_path=path, text="x")
    done = comments.comment_add(case=in_review, user=jun, field_path="lessons.en", text="x")
    comments.comment_resolve(comment=done, user=editor)
    client.force_login(editor)
    with django_assert_max_num_queries(20):
        html = text(client.get(reverse("admin:index")))
    assert 'data-count="on_my_cases">3<' in html
    assert "?comments=mine" in html and reverse("admin:cases_case_review_report") in html
    client.force_login(jun)
    html = text(client.get(reverse("admin:index")))
    assert 'data-count="by_me">3<' in html and 'data-count="on_my_cases">0<' in html


def test_the_dashboard_costs_the_same_however_many_comments(
    client, editor, jun, django_assert_num_queries
):
    client.force_login(editor)
    client.get(reverse("admin:index"))

    def count():
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as queries:
            client.get(reverse("admin:index"))
        return len(queries)

    before = count()
    for _n in range(5):
        case = workflow.case_submit(case=new_case(editor), user=editor)
        comments.comment_add(case=case, user=jun, field_path="title.en", text="x")
    assert count() == before


def test_the_list_shows_and_filters_open_comments(client, editor, jun):
    with_comments = workflow.case_submit(case=new_case(editor, public_id="IL-0401"), user=editor)
    workflow.case_submit(case=new_case(editor, public_id="IL-0402"), user=editor)
    comments.comment_add(case=with_comments, user=jun, field_path="title.en", text="x")
    comments.comment_add(case=with_comments, user=jun, field_path="title.ko", text="x")
    client.force_login(editor)
    url = reverse("admin:cases_case_changelist")
    html = text(client.get(url))
    assert "2 open comments" in html
    filtered = text(client.get(url + "?comments=mine"))
    assert "IL-0401" in filtered and "IL-0402" not in filtered
    client.force_login(jun)
    assert "IL-0401" in text(client.get(url + "?comments=by_me"))
    assert "IL-0401" not in text(client.get(url + "?comments=mine"))


def test_the_review_queue_waits_oldest_first_and_says_how_long(
    client, editor, jun, mina, django_assert_max_num_queries
):
    now = timezone.now()
    for number, days in [(501, 1), (502, 3), (503, 2)]:
        case = workflow.case_submit(case=new_case(editor, public_id=f"IL-0{number}"), user=editor)
        Case.objects.filter(pk=case.pk).update(submitted_at=now - datetime.timedelta(days=days))
    claims.claim_take(case=Case.objects.get(public_id="IL-0503"), user=mina)
    client.force_login(jun)
    url = reverse("admin:cases_case_changelist") + "?queue=review"
    with django_assert_max_num_queries(25):
        html = text(client.get(url))
    rows = re.findall(r"IL-05\d\d", html)
    assert [r for i, r in enumerate(rows) if r not in rows[:i]] == ["IL-0502", "IL-0503", "IL-0501"]
    assert "waiting 3 days" in html and "waiting 1 day" in html
    assert re.search(r"Mina reviewing since \d\d:\d\d", html)

    # More cases in the queue cost no more queries.
    def queries():
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as captured:
            client.get(url)
        return len(captured)

    before = queries()
    for number in range(504, 510):
        case = workflow.case_submit(case=new_case(editor, public_id=f"IL-0{number}"), user=editor)
        claims.claim_take(case=case, user=mina)
        comments.comment_add(case=case, user=mina, field_path="title.en", text="x")
    assert queries() == before


# --- claims on the case page -----------------------------------------------------------


def claim(client, case, action):
    return client.post(reverse("admin:cases_case_claim", args=[case.pk, action]), follow=True)


def test_claiming_taking_over_and_releasing_from_the_case_page(client, in_review, jun, mina):
    client.force_login(jun)
    html = text(client.get(change_url(in_review)))
    assert "Nobody is reviewing this case yet." in html and "Claim this review" in html
    claim(client, in_review, "take")
    html = text(client.get(change_url(in_review)))
    assert re.search(r"Reviewing since \d\d:\d\d — Jun", html) and ">Release<" in html

    client.force_login(mina)
    html = text(client.get(change_url(in_review)))
    assert "Take over from Jun" in html
    response = claim(client, in_review, "take")
    assert "Jun is already reviewing this case" in text(response)
    claim(client, in_review, "take_over")
    assert claims.active_claim(in_review).reviewer == mina
    claim(client, in_review, "release")
    assert claims.active_claim(in_review) is None
    assert (
        client.get(reverse("admin:cases_case_claim", args=[in_review.pk, "take"])).status_code
        == 405
    )
    assert (
        client.post(reverse("admin:cases_case_claim", args=[in_review.pk, "steal"])).status_code
        == 403
    )


# --- presence --------------------------------------------------------------------------


def test_the_case_page_says_who_else_has_it_open(client, in_review, editor, jun):
    client.force_login(editor)
    client.get(change_url(in_review))
    client.force_login(jun)
    html = text(client.get(change_url(in_review)))
    assert "Also open: eddie, just now" in html
    client.force_login(editor)
    html = text(client.get(change_url(in_review)))
    assert "Also open: Jun, just now" in html and "eddie, just now" not in html

    CasePresence.objects.filter(user=jun).update(
        last_seen=timezone.now() - datetime.timedelta(minutes=2)
    )
    html = text(client.get(change_url(in_review)))
    assert "Also open: Jun, 2 minutes ago" in html
    CasePresence.objects.filter(user=jun).update(
        last_seen=timezone.now() - datetime.timedelta(minutes=6)
    )
    assert "Also open" not in text(client.get(change_url(in_review)))


def test_the_heartbeat_keeps_a_person_listed(client, in_review, editor, jun):
    presence.presence_record(case=in_review, user=jun)
    client.force_login(editor)
    url = reverse("admin:cases_case_presence", args=[in_review.pk])
    response = client.post(url, **FETCH)
    assert response.status_code == 200 and text(response).strip() == ("Also open: Jun, just now")
    assert CasePresence.objects.filter(user=editor, case=in_review).exists()
    assert client.get(url).status_code == 405
    client.logout()
    assert client.post(url).status_code == 302  # to the login page


# --- what changed since the last review ----------------------------------------------


def test_what_changed_since_the_last_review_is_one_click(client, editor, jun):
    case = new_case(editor, public_id="IL-0600")
    CaseStepFactory(case=case, position=0, text_en="Restart.", text_ko="재시작.")
    case = drafts.case_save(case=case, data=exchange_form(case), user=editor)
    workflow.case_submit(case=case, user=editor)
    client.force_login(jun)
    html = text(client.get(change_url(case)))
    assert "First review" in html and "What changed since the last review" not in html

    workflow.case_request_changes(case=case, user=jun, note="Say how.")
    reviewed = claims.current_version(case)
    data = exchange_form(case)
    data["remediation"] = [{"en": "Restart the queue workers.", "ko": "큐 작업자를 재시작."}]
    drafts.case_save(case=case, data=data, user=editor)
    workflow.case_submit(case=case, user=editor)
    current = claims.current_version(case)
    html = text(client.get(change_url(case)))
    link = re.search(r'<a class="changed-since-review" href="([^"]+)"', html)
    assert link
    url = link.group(1).replace("&amp;", "&")
    assert url.endswith(f"?a={reviewed.number}&b={current.number}")
    compared = text(client.get(url))
    # An inline's row (a remediation step) is compared as the exchange format has it.
    assert "remediation[0].en" in compared and "Restart the queue workers." in compared


def test_nothing_changed_since_the_last_review(client, editor, jun):
    case = workflow.case_submit(case=new_case(editor), user=editor)
    workflow.case_request_changes(case=case, user=jun, note="Hm.")
    workflow.case_submit(case=case, user=editor)
    client.force_login(jun)
    html = text(client.get(change_url(case)))
    assert "Nothing was saved since the last review." in html


# --- the report ------------------------------------------------------------------------


def test_the_report_lists_the_longest_waiting_and_the_longest_stale(
    client, editor, jun, django_assert_max_num_queries
):
    now = timezone.now()
    for number, days in [(701, 2), (702, 9)]:
        case = workflow.case_submit(case=new_case(editor, public_id=f"IL-0{number}"), user=editor)
        Case.objects.filter(pk=case.pk).update(submitted_at=now - datetime.timedelta(days=days))
    for number, days in [(711, 4), (712, 30)]:
        CaseFactory(
            public_id=f"IL-0{number}",
            ko_stale=True,
            ko_stale_since=now - datetime.timedelta(days=days),
        )
    client.force_login(editor)
    url = reverse("admin:cases_case_review_report")
    with django_assert_max_num_queries(12):
        html = text(client.get(url))
    waiting = html[html.index("report-waiting") : html.index("stale-heading")]
    stale = html[html.index("report-stale") :]
    assert waiting.index("IL-0702") < waiting.index("IL-0701") and "waiting 1 week" in waiting
    assert stale.index("IL-0712") < stale.index("IL-0711") and "4 days" in stale
    assert "IL-0711" not in waiting and "IL-0701" not in stale

    for number in range(720, 730):
        CaseFactory(public_id=f"IL-0{number}", ko_stale=True, status=Status.IN_REVIEW)
    with django_assert_max_num_queries(12):
        client.get(url)


def test_the_report_is_for_staff_with_the_right_to_view(client):
    client.force_login(UserFactory(role=None))
    assert client.get(reverse("admin:cases_case_review_report")).status_code == 403


def test_submitted_at_is_backfilled_from_the_transitions(editor):
    """What migration 0024 does, on rows made as before it."""
    from importlib import import_module

    from django.apps import apps

    migration = import_module("cases.migrations.0024_review_desk")
    case = workflow.case_submit(case=new_case(editor), user=editor)
    at = CaseTransition.objects.get(action="incidentlib.case.submitted").at
    stale = CaseFactory(ko_stale=True)
    Case.objects.update(submitted_at=None, ko_stale_since=None)
    migration.backfill_dates(apps, None)
    case.refresh_from_db()
    stale.refresh_from_db()
    assert case.submitted_at == at and stale.ko_stale_since == stale.modified
