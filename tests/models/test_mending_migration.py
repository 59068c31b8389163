"""Migration 0019 mends the rows an older version let in, where there is one right answer,
so that 0020's check constraints can be added; where there is none it stops, naming them."""

import datetime

import pytest
from django.core.management import call_command
from django.db import connection

from cases.models import Case, CaseStep, Organisation, Source, Term
from tests.factories import CaseFactory, OrganisationFactory, TermFactory

pytestmark = pytest.mark.django_db(transaction=True)


def write(sql, params):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


@pytest.fixture
def before_the_rules():
    """The database as migration 0018 left it, with rows the rules now refuse."""
    case = CaseFactory(public_id="IL-0001")
    other = CaseFactory(public_id="IL-0002")
    org = OrganisationFactory(name="Café Corp", slug="cafe-corp")
    term = TermFactory(slug="dns")
    call_command("migrate", "cases", "0018", verbosity=0)
    # 0018's tables have the columns of today's models, but none of the new constraints.
    Case.objects.filter(pk=case.pk).update(public_id="IL-١٢٣٤")
    Case.objects.filter(pk=other.pk).update(
        detected_after=-datetime.timedelta(minutes=5), recurrence_of=other
    )
    write("UPDATE cases_organisation SET slug = %s WHERE id = %s", ["Café-Corp\n", org.pk])
    write("UPDATE cases_term SET slug = %s WHERE id = %s", ["DNS", term.pk])
    write(
        "INSERT INTO cases_casestep (case_id, kind, position, text, text_en, text_ko) "
        "VALUES (%s, 'remediation', 0, '', '', '')",
        [case.pk],
    )
    write(
        "INSERT INTO cases_source (case_id, position, url, kind, archived) "
        "VALUES (%s, 0, 'https://example.org/', 'Post Mortem', '')",
        [case.pk],
    )
    return case, other, org, term


def test_rows_with_one_right_answer_are_mended(before_the_rules):
    case, other, org, term = before_the_rules
    call_command("migrate", "cases", verbosity=0)
    assert Case.objects.get(pk=case.pk).public_id == "IL-1234"
    mended = Case.objects.get(pk=other.pk)
    assert mended.detected_after is None and mended.recurrence_of_id is None
    assert Organisation.objects.get(pk=org.pk).slug == "cafe-corp"
    assert Term.objects.get(pk=term.pk).slug == "dns"
    assert not CaseStep.objects.filter(case=case).exists()
    assert Source.objects.get(case=case).kind == "post-mortem"


def test_a_row_without_one_right_answer_stops_the_migration_by_name(before_the_rules):
    case, *_ = before_the_rules
    Case.objects.filter(pk=case.pk).update(public_id="IL-twelve")
    with pytest.raises(RuntimeError, match="case 'IL-twelve'"):
        call_command("migrate", "cases", verbosity=0)
    Case.objects.filter(pk=case.pk).update(public_id="IL-0012")
    call_command("migrate", "cases", verbosity=0)  # corrected by hand, it goes on
