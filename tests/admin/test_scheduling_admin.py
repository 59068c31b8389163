"""Scheduling on the case's workflow panel, and the scheduled steps on the dashboard."""

import datetime

import pytest
from django.contrib.messages import get_messages
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from cases.editorial import scheduling
from cases.editorial import transitions as workflow
from cases.models import Case, ScheduledTransition
from tests.factories import CaseFactory, UserFactory

pytestmark = pytest.mark.django_db
Status = Case.Status
State = ScheduledTransition.State


@pytest.fixture
def in_review(editor):
    case = CaseFactory(
        public_id="IL-0700", status=Status.DRAFT, published_at=None, created_by=editor
    )
    workflow.case_submit(case=case, user=editor)
    return case


def change_page(client, case):
    return client.get(reverse("admin:cases_case_change", args=[case.pk]))


def schedule(client, case, **data):
    return client.post(reverse("admin:cases_case_schedule", args=[case.pk]), data)


def messages_of(response):
    return [str(message) for message in get_messages(response.wsgi_request)]


def tomorrow_at_nine():
    day = timezone.now().date() + datetime.timedelta(days=1)
    return datetime.datetime.combine(day, datetime.time(9, 0), tzinfo=datetime.UTC)


def test_a_reviewer_sees_publish_at_with_the_time_zone_and_the_time_now(
    client, in_review, reviewer
):
    client.force_login(reviewer)
    page = change_page(client, in_review).content.decode()
    assert 'name="run_at"' in page and 'type="datetime-local"' in page
    assert "Publish at" in page and "UTC, the site's time zone" in page
    assert f"It is now {timezone.now():%Y-%m-%d} " in page
    assert "Schedule publication" in page


def test_an_editor_sees_no_scheduling(client, in_review, editor):
    client.force_login(editor)
    assert 'name="run_at"' not in change_page(client, in_review).content.decode()


def test_a_published_case_offers_withdraw_at_with_a_required_note(client, reviewer):
    client.force_login(reviewer)
    page = change_page(client, CaseFactory()).content.decode()
    assert "Withdraw at" in page and "Schedule withdrawal" in page
    assert 'id="schedule-note" name="note" rows="2" cols="60" required' in page


def test_scheduling_from_the_panel_reads_the_time_in_the_sites_time_zone(
    client, in_review, reviewer, django_capture_on_commit_callbacks
):
    client.force_login(reviewer)
    when = tomorrow_at_nine()
    with django_capture_on_commit_callbacks(execute=True):
        response = schedule(
            client, in_review, action="approve", run_at=when.strftime("%Y-%m-%dT%H:%M")
        )
    assert response.status_code == 302
    assert response.url == reverse("admin:cases_case_change", args=[in_review.pk])
    (scheduled,) = ScheduledTransition.objects.all()
    assert (scheduled.run_at, scheduled.scheduled_by, scheduled.action) == (
        when,
        reviewer,
        "approve",
    )
    assert messages_of(response) == [f"Publication scheduled for {when:%Y-%m-%d %H:%M} UTC."]

    page = change_page(client, in_review).content.decode()
    assert "Publication scheduled" in page and "by Rita Park" in page
    assert "Cancel the schedule" in page and 'name="run_at"' not in page


@pytest.mark.parametrize(
    "data, message",
    [
        ({"action": "approve", "run_at": "tomorrow"}, "When: Enter a valid date/time."),
        ({"action": "approve", "run_at": ""}, "When: This field is required."),
        ({"action": "approve", "run_at": "2025-02-30T09:00"}, "When: Enter a valid date/time."),
        ({"action": "publish-all", "run_at": "2099-01-01T09:00"}, "Step: Select a valid choice."),
        ({"action": "approve", "run_at": "2000-01-01T09:00"}, "Choose a time in the future"),
        ({"action": "withdraw", "run_at": "2099-01-01T09:00"}, "cannot be sent to"),
        ({"action": "approve", "run_at": "9999-01-01T00:00"}, "within a year from now"),
    ],
)
def test_bad_input_is_refused_with_a_message_and_schedules_nothing(
    client, in_review, reviewer, data, message
):
    client.force_login(reviewer)
    response = schedule(client, in_review, **data)
    assert response.status_code == 302
    assert any(message in line for line in messages_of(response)), messages_of(response)
    assert not ScheduledTransition.objects.exists()


def test_the_schedule_views_take_only_posts(client, in_review, reviewer):
    client.force_login(reviewer)
    assert client.get(reverse("admin:cases_case_schedule", args=[in_review.pk])).status_code == 405
    assert client.get(reverse("admin:cases_case_cancel_schedule", args=[1])).status_code == 405
    assert client.post(reverse("admin:cases_case_cancel_schedule", args=[999])).status_code == 404


def test_cancel_from_the_panel(client, in_review, reviewer, editor):
    scheduled = scheduling.case_schedule(
        case=in_review, user=reviewer, action="approve", run_at=tomorrow_at_nine()
    )
    cancel = reverse("admin:cases_case_cancel_schedule", args=[scheduled.pk])
    client.force_login(editor)
    assert "Cancel the schedule" not in change_page(client, in_review).content.decode()
    response = client.post(cancel)
    assert messages_of(response) == ["Only a reviewer can cancel a scheduled step."]
    client.force_login(reviewer)
    response = client.post(cancel)
    assert response.url == reverse("admin:cases_case_change", args=[in_review.pk])
    scheduled.refresh_from_db()
    assert scheduled.state == State.CANCELLED


# --- the dashboard ----------------------------------------------------------------------


def dashboard_rows(client):
    page = client.get("/admin/").content.decode()
    section = page[page.index('id="scheduled-steps"') :]
    return section[: section.index("</table>")]


def test_the_dashboard_lists_upcoming_and_failed_steps_with_time_and_who(
    client, in_review, reviewer
):
    UserFactory(username="ravi", role="reviewer")
    published = CaseFactory(public_id="IL-0701", title_en="Disk filled up")
    scheduling.case_schedule(
        case=in_review, user=reviewer, action="approve", run_at=tomorrow_at_nine()
    )
    withdrawal = scheduling.case_schedule(
        case=published,
        user=reviewer,
        action="withdraw",
        run_at=tomorrow_at_nine() + datetime.timedelta(hours=1),
        note="Retracted.",
    )
    ScheduledTransition.objects.filter(pk=withdrawal.pk).update(
        state=State.FAILED, outcome="The case was edited.", finished_at=timezone.now()
    )
    client.force_login(UserFactory(username="eddie2", role="editor"))
    rows = dashboard_rows(client)
    day = f"{tomorrow_at_nine():%Y-%m-%d}"
    assert f"{day} 09:00</time>" in rows and "Publication" in rows and "IL-0700" in rows
    assert "<td>Rita Park</td>" in rows
    assert f"{day} 10:00</time> <strong>failed</strong>" in rows
    assert "IL-0701</a>: The case was edited." in rows


def test_an_overdue_step_says_that_no_worker_ran_it(client, in_review, reviewer):
    scheduled = scheduling.case_schedule(
        case=in_review, user=reviewer, action="approve", run_at=tomorrow_at_nine()
    )
    ScheduledTransition.objects.filter(pk=scheduled.pk).update(
        run_at=timezone.now() - datetime.timedelta(minutes=5)
    )
    client.force_login(reviewer)
    assert "overdue: no worker has run it yet" in dashboard_rows(client)


def test_the_dashboard_says_when_nothing_is_scheduled(client, reviewer):
    client.force_login(reviewer)
    assert "Nothing is scheduled." in dashboard_rows(client)


def test_the_dashboards_queries_do_not_grow_with_the_steps(
    client, reviewer, editor, django_assert_num_queries
):
    client.force_login(reviewer)

    def schedule_cases(count):
        for _ in range(count):
            case = CaseFactory(status=Status.DRAFT, published_at=None, created_by=editor)
            workflow.case_submit(case=case, user=editor)
            scheduling.case_schedule(
                case=case, user=reviewer, action="approve", run_at=tomorrow_at_nine()
            )

    schedule_cases(1)
    client.get("/admin/")  # the session, once
    with CaptureQueriesContext(connection) as one:
        client.get("/admin/")
    schedule_cases(15)
    with django_assert_num_queries(len(one.captured_queries)):
        rows = dashboard_rows(client)
    assert rows.count('class="schedule-upcoming"') == 16
