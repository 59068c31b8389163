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


def in_another_transaction(work, lock_timeout="1s"):
    """Do `work()` in a transaction on a connection of its own, committed, waiting for a
    lock at most `lock_timeout`; the error, if it failed."""
    failed = []

    def run():
        try:
            with transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("SELECT set_config('lock_timeout', %s, true)", [lock_timeout])
                work()
        except OperationalError as error:
            failed.append(error)
        finally:
            connections.close_all()

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(timeout=30)
    return failed[0] if failed else None


def link_from_another_transaction(from_case, to_case):
    return in_another_transaction(
        lambda: CaseRelation.objects.create(from_case=from_case, to_case=to_case)
    )


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
    with transaction.atomic():
        workflow.locked_for("approve", case=held, user=reviewer, note="")
        failed = in_another_transaction(
            lambda: Case.objects.locked().get(pk=held.pk), lock_timeout="500ms"
        )
    assert failed is not None and "lock timeout" in str(failed)


def test_a_case_being_deleted_cannot_come_to_be_named():
    held = CaseFactory(public_id="IL-0206")
    other = CaseFactory(public_id="IL-0207")
    with transaction.atomic():
        Case.objects.locked(deleting=True).get(pk=held.pk)
        failed = link_from_another_transaction(other, held)
    assert failed is not None and "lock timeout" in str(failed)
