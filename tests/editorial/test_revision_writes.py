"""What a correction (start a revision, submit it, approve it) writes: the versions the
history keeps, the words search suggests from, and how many queries it takes.

The finding (#21): under `make load`, one correction a second cost readers the editor's
own work, 98 queries and about 145 ms of CPU a correction, a quarter of it reading the
case again for the history and writing words the library already had.
"""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cases.editorial import transitions as workflow
from cases.editorial.rights import display_name
from cases.exchange.serialize import case_to_exchange
from cases.models import Case, CaseVersion, SearchWord
from tests.exchange.test_imported_catalogue import library  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture
def bundled(library):  # noqa: F811
    """The bundled cases, imported as the library ships them."""
    return list(Case.objects.public().live().order_by("public_id"))


def latest_version(case):
    return CaseVersion.objects.filter(public_id=case.public_id).order_by("-number").first()


def correct(case, editor, reviewer, *, summary):
    copy = workflow.case_start_revision(case=case, user=editor)
    Case.objects.filter(pk=copy.pk).update(summary_en=summary, last_edited_by=editor)
    workflow.case_submit(case=copy, user=editor)
    return workflow.case_approve(case=copy, user=reviewer, confirm_stale_korean=True)


def test_each_version_a_correction_records_is_what_a_fresh_read_gives(bundled, editor, reviewer):
    """Over the bundled cases (Korean, related cases, recurrences, licences, archived
    sources): the version a revision starts with is its copy as stored, and the approved
    version is the public case as stored."""
    for case in bundled:
        copy = workflow.case_start_revision(case=case, user=editor)
        stored_copy = case_to_exchange(Case.objects.for_exchange().get(pk=copy.pk))
        assert latest_version(case).data == stored_copy, case.public_id

        Case.objects.filter(pk=copy.pk).update(
            summary_en=f"{copy.summary_en} Corrected.", last_edited_by=editor
        )
        workflow.case_submit(case=copy, user=editor)
        published = workflow.case_approve(case=copy, user=reviewer, confirm_stale_korean=True)
        stored = case_to_exchange(Case.objects.for_exchange().get(pk=published.pk))
        assert latest_version(case).data == stored, case.public_id
        assert stored["summary"]["en"].endswith("Corrected.")


def test_a_correction_adds_the_words_it_brings_and_keeps_the_others(bundled, editor, reviewer):
    case = bundled[0]
    known = set(SearchWord.objects.values_list("word", flat=True))
    assert "quokkagate" not in known

    correct(case, editor, reviewer, summary="The quokkagate outage, corrected.")

    words = set(SearchWord.objects.values_list("word", flat=True))
    assert "quokkagate" in words
    assert known <= words  # nothing the library had is lost


def test_a_correction_takes_a_bounded_number_of_queries(bundled, editor, reviewer):
    """107 here (98 in make load's) while it read the case again for each version it
    recorded and wrote every word of its text; 93 until the revision's start read its case
    once, its writes took the organisation and terms from that read, and the approval
    wrote its case's row once: 88 (80 on PostgreSQL, where the children go by COPY). 80
    (71) since the working copy, a new row, is written without deleting children it cannot
    have, the states before and after a change take three queries each, not four, and the
    authors since the last approval are asked in one."""
    case = bundled[3]
    with CaptureQueriesContext(connection) as queries:
        correct(case, editor, reviewer, summary="Corrected once.")
    assert len(queries) <= 80, "\n".join(q["sql"][:150] for q in queries.captured_queries)


def updates_of_row(queries, table, pk):
    """The UPDATE statements of these queries that write this row of `table` whole."""
    row = re.compile(rf'^UPDATE "{table}" SET "public_id" = .* WHERE "{table}"\."id" = {pk}$', re.S)
    return [q["sql"] for q in queries.captured_queries if row.match(q["sql"])]


def test_approving_a_revision_writes_its_public_case_once(bundled, editor, reviewer):
    """The finding (#21): the approval wrote the public case's whole row twice, once with
    the revision's content and again with the review's fields, each rewrite a new row
    version in PostgreSQL with every index entry of it."""
    case = bundled[3]
    copy = workflow.case_start_revision(case=case, user=editor)
    Case.objects.filter(pk=copy.pk).update(summary_en="Corrected once.", last_edited_by=editor)
    workflow.case_submit(case=copy, user=editor)
    with CaptureQueriesContext(connection) as queries:
        published = workflow.case_approve(case=copy, user=reviewer, confirm_stale_korean=True)
    assert len(updates_of_row(queries, "cases_case", case.pk)) == 1
    published.refresh_from_db()
    assert published.summary_en == "Corrected once."
    assert published.reviewed_by == display_name(reviewer)
    assert published.last_edited_by == editor and published.submitted_by == editor
    assert published.edit_version == case.edit_version + 1
    assert published.status == Case.Status.PUBLISHED
