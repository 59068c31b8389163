"""The database holds the rules it can: a write that goes around every form and importer (a
shell, a script, a bug) still cannot store what no page can show."""

import datetime

import pytest
from django.db import IntegrityError, transaction

from cases.models import Case, CaseStep, Organisation, Source, Term, Vocabulary
from tests.factories import CaseFactory, OrganisationFactory, TermFactory

pytestmark = pytest.mark.django_db


def refused(write):
    with pytest.raises(IntegrityError), transaction.atomic():
        write()


@pytest.mark.parametrize(
    "public_id", ["IL-1002\n", "IL-١٢٣٤", "IL-１２３４", "IL-12", "il-1234", "IL-12a4", "XIL-1234"]
)
def test_a_case_id_is_il_and_ascii_digits(public_id):
    case = CaseFactory(public_id="IL-0001")
    refused(lambda: Case.objects.filter(pk=case.pk).update(public_id=public_id))


@pytest.mark.parametrize("field", ["detected_after", "resolved_after"])
def test_durations_are_not_negative(field):
    case = CaseFactory()
    refused(lambda: Case.objects.filter(pk=case.pk).update(**{field: -datetime.timedelta(1)}))


def test_a_case_is_no_recurrence_of_itself():
    case = CaseFactory()
    refused(lambda: Case.objects.filter(pk=case.pk).update(recurrence_of=case))


@pytest.mark.parametrize(
    "field,value", [("status", "lost"), ("severity", "huge"), ("date_kind", "x")]
)
def test_choices_are_choices(field, value):
    case = CaseFactory()
    refused(lambda: Case.objects.filter(pk=case.pk).update(**{field: value}))


@pytest.mark.parametrize("slug", ["acme\n", "Acme", "ac me", "acme-", "카카오", "a--b"])
def test_slugs_are_ascii_slugs(slug):
    org = OrganisationFactory(slug="acme")
    term = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="dns")
    refused(lambda: Organisation.objects.filter(pk=org.pk).update(slug=slug))
    refused(lambda: Term.objects.filter(pk=term.pk).update(slug=slug))


def test_a_source_kind_is_a_slug_or_nothing():
    source = Source.objects.create(case=CaseFactory(), url="https://example.org/", kind="")
    refused(lambda: Source.objects.filter(pk=source.pk).update(kind="Post mortem"))


def test_a_step_has_text_in_some_language():
    case = CaseFactory()
    refused(lambda: CaseStep.objects.create(case=case, kind="remediation", text_en="", text_ko=""))
    refused(lambda: CaseStep.objects.create(case=case, kind="later", text_en="Fix it."))
