"""What the public may see: one family of QuerySet methods, which every public page uses."""

import pytest

from cases.models import Case, Organisation, Term, Vocabulary
from tests.factories import CaseFactory, OrganisationFactory, TermFactory

pytestmark = pytest.mark.django_db

HIDDEN = ("draft", "in_review", "changes_requested", "withdrawn")


def test_public_cases_are_the_published_ones():
    published = CaseFactory(status=Case.Status.PUBLISHED)
    for status in HIDDEN:
        CaseFactory(status=status, published_at=None)
    assert list(Case.objects.public()) == [published]
    assert list(Case.objects.public_for_search()) == [published]
    # The search's variant asks by a test that no index serves (see public_for_search).
    assert "IS TRUE" in str(Case.objects.public_for_search().query)


def test_a_withdrawn_case_still_answers_at_its_address():
    published = CaseFactory(public_id="IL-0001")
    withdrawn = CaseFactory(public_id="IL-0002", status="withdrawn", published_at=None)
    for n, status in enumerate(("draft", "in_review", "changes_requested"), start=3):
        CaseFactory(public_id=f"IL-000{n}", status=status, published_at=None)
    assert set(Case.objects.public_or_withdrawn()) == {published, withdrawn}


def test_public_terms_are_those_a_public_case_has():
    seen = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="seen")
    cause = TermFactory(vocabulary=Vocabulary.ROOT_CAUSE, slug="cause")
    CaseFactory(root_cause=cause, with_terms=[seen])
    hidden = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="hidden")
    hidden_cause = TermFactory(vocabulary=Vocabulary.ROOT_CAUSE, slug="hidden-cause")
    for status in HIDDEN:
        CaseFactory(status=status, published_at=None, root_cause=hidden_cause, with_terms=[hidden])
    TermFactory(vocabulary=Vocabulary.SYMPTOM, slug="unused")
    assert set(Term.objects.public()) == {seen, cause}


def test_public_organisations_are_those_a_public_case_is_of():
    seen = OrganisationFactory(slug="seen")
    CaseFactory(org=seen)
    CaseFactory(org=seen, status="draft", published_at=None)
    hidden = OrganisationFactory(slug="hidden")
    for status in HIDDEN:
        CaseFactory(org=hidden, status=status, published_at=None)
    OrganisationFactory(slug="no-cases")
    assert list(Organisation.objects.public()) == [seen]
