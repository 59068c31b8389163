"""Migration 0036 gives terms a review state: every term already stored stays public."""

import pytest
from django.core.management import call_command
from django.db import connection

from cases.models import Term
from tests.factories import CaseFactory, TermFactory


def search_triggers():
    if connection.vendor != "sqlite":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
        return [name for (name,) in cursor.fetchall()]


@pytest.mark.django_db(transaction=True)
def test_terms_stored_before_the_migration_are_reviewed_and_public():
    triggers = search_triggers()
    call_command("migrate", "cases", "0035", verbosity=0)
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO cases_term (vocabulary, slug, label, label_en, label_ko, description, "
            "description_en, description_ko, aliases, aliases_en, aliases_ko) "
            "VALUES ('component', 'dns', 'DNS', 'DNS', '', '', '', '', '', '', '')"
        )
    call_command("migrate", "cases", verbosity=0)
    term = Term.objects.get(slug="dns")
    assert term.reviewed is True
    CaseFactory(with_terms=[term])
    assert list(Term.objects.public()) == [term]
    # A term made since defaults to reviewed too: only the importer holds one back.
    assert TermFactory(slug="cache").reviewed is True
    assert search_triggers() == triggers  # cases_case was not rebuilt
