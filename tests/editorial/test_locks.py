"""A case the workflow holds for a change does not hold back other work that only points at
it. PostgreSQL checks a foreign key by taking a KEY SHARE lock on the row it points to (at
commit, Django's constraints being deferred); a case locked FOR UPDATE refuses that lock
until its own transaction ends, and two reviewers approving two linked cases at once then
wait for each other: PostgreSQL ends one approval with "deadlock detected"."""

import threading

import pytest
from django.db import OperationalError, connection, connections, transaction

from cases.editorial import transitions as workflow
from cases.models import Case, CaseRelation
from tests.factories import CaseFactory

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="row locks are PostgreSQL's (SQLite has none)"
    ),
]


def link_from_another_transaction(from_case, to_case):
    """In a connection of its own, link `from_case` to `to_case` and commit, waiting for a
    lock at most a second; the error, if it failed."""
    failed = []

    def link():
        try:
            with transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL lock_timeout = '1s'")
                CaseRelation.objects.create(from_case=from_case, to_case=to_case)
        except OperationalError as error:
            failed.append(error)
        finally:
            connections.close_all()

    worker = threading.Thread(target=link)
    worker.start()
    worker.join(timeout=30)
    return failed[0] if failed else None


def test_a_case_held_for_approval_can_still_be_linked_to(editor, reviewer):
    """The finding (#21): `make load` with two editors ended, after half an hour, in
    "deadlock detected ... while locking tuple in relation cases_case", at the commit of one
    approval: each approval's change rows name the cases linked to its own, which the other
    approval held FOR UPDATE."""
    held = CaseFactory(public_id="IL-0201", status=Case.Status.IN_REVIEW, submitted_by=editor)
    other = CaseFactory(public_id="IL-0202")
    with transaction.atomic():
        workflow.locked_for("approve", case=held, user=reviewer, note="")
        assert link_from_another_transaction(other, held) is None
    assert CaseRelation.objects.filter(from_case=other, to_case=held).exists()


def test_a_case_whose_revision_is_being_started_can_still_be_linked_to(editor):
    held = CaseFactory(public_id="IL-0203")
    other = CaseFactory(public_id="IL-0204")
    with transaction.atomic():
        workflow.case_start_revision(case=held, user=editor)
        assert link_from_another_transaction(other, held) is None


def test_two_changes_of_one_case_still_wait_for_each_other(editor, reviewer):
    """What the lock is for stays: a second transition of the same case waits."""
    held = CaseFactory(public_id="IL-0205", status=Case.Status.IN_REVIEW, submitted_by=editor)
    failed = []

    def lock_again():
        try:
            with transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL lock_timeout = '500ms'")
                Case.objects.locked().get(pk=held.pk)
        except OperationalError as error:
            failed.append(error)
        finally:
            connections.close_all()

    with transaction.atomic():
        workflow.locked_for("approve", case=held, user=reviewer, note="")
        worker = threading.Thread(target=lock_again)
        worker.start()
        worker.join(timeout=30)
    assert failed and "lock timeout" in str(failed[0])


def test_a_case_being_deleted_cannot_come_to_be_named():
    held = CaseFactory(public_id="IL-0206")
    other = CaseFactory(public_id="IL-0207")
    with transaction.atomic():
        Case.objects.locked(deleting=True).get(pk=held.pk)
        failed = link_from_another_transaction(other, held)
    assert failed is not None and "lock timeout" in str(failed)
