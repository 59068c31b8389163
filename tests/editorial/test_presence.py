"""Who else has a case's page open, and since when a case's Korean has been stale."""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from cases.editorial import drafts, presence
from cases.editorial.revisions import exchange_form
from cases.editorial.rights import WorkflowError
from cases.models import Case, CasePresence
from tests.factories import CaseFactory, UserFactory

pytestmark = pytest.mark.django_db
Status = Case.Status


@pytest.fixture
def case():
    return CaseFactory(status=Status.IN_REVIEW, published_at=None)


def test_others_are_listed_and_not_oneself(case, django_assert_num_queries):
    mina, jun = UserFactory(username="mina", role="editor"), UserFactory(role="reviewer")
    presence.presence_record(case=case, user=mina)
    presence.presence_record(case=case, user=jun)
    with django_assert_num_queries(1):
        others = presence.present_others(case=case, user=jun)
    assert [row.user for row in others] == [mina]
    assert presence.present_others(case=CaseFactory(), user=jun) == []


def test_one_row_a_person_and_case_moved_on_by_each_sign(case):
    mina = UserFactory(role="editor")
    assert mina.has_perm("cases.view_case")  # the rights, read once a request
    with CaptureQueriesContext(connection) as queries:
        presence.presence_record(case=case, user=mina)
    statements = [q["sql"] for q in queries if "SAVEPOINT" not in q["sql"]]
    assert len(statements) == 1 and statements[0].startswith("INSERT")
    first = CasePresence.objects.get().last_seen
    presence.presence_record(case=case, user=mina)
    assert CasePresence.objects.count() == 1
    assert CasePresence.objects.get().last_seen >= first


def test_old_signs_are_not_listed(case, settings):
    mina, jun = UserFactory(role="editor"), UserFactory(role="reviewer")
    presence.presence_record(case=case, user=mina)
    CasePresence.objects.update(last_seen=timezone.now() - datetime.timedelta(minutes=6))
    assert presence.present_others(case=case, user=jun) == []
    settings.CASE_PRESENCE_WINDOW = 600
    assert len(presence.present_others(case=case, user=jun)) == 1


def test_someone_without_the_right_to_view_leaves_no_sign(case):
    with pytest.raises(WorkflowError):
        presence.presence_record(case=case, user=UserFactory(role=None))
    assert not CasePresence.objects.exists()


# --- since when the Korean has been stale -------------------------------------------------


def test_ko_stale_since_is_set_kept_and_cleared():
    editor = UserFactory(role="editor")
    case = CaseFactory(status=Status.DRAFT, published_at=None, created_by=editor)
    data = exchange_form(case)
    case = drafts.case_save(case=case, data=data, user=editor)  # the Korean's basis
    assert not case.ko_stale and case.ko_stale_since is None
    data["summary"] = {"en": "New English.", "ko": data["summary"]["ko"]}
    case = drafts.case_save(case=Case.objects.get(pk=case.pk), data=data, user=editor)
    assert case.ko_stale and case.ko_stale_since
    since = case.ko_stale_since

    data["trigger"] = {"en": "More English.", "ko": ""}
    case = drafts.case_save(case=Case.objects.get(pk=case.pk), data=data, user=editor)
    assert case.ko_stale and case.ko_stale_since == since  # still stale since then

    drafts.case_confirm_translation(case=case, user=editor)
    case.refresh_from_db()
    assert not case.ko_stale and case.ko_stale_since is None
