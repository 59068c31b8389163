"""The search, written for the database its cases are read from."""

import pytest
from django.db import connections

from cases.models import Case
from cases.search.query import search


@pytest.mark.parametrize("vendor", ["postgresql", "sqlite"])
def test_a_search_is_written_for_the_database_its_cases_are_read_from(monkeypatch, vendor):
    # The replica (REPLICA_DATABASE_URL) may be another server than the primary: the
    # search asks the connection its queryset is routed to, not the default one.
    monkeypatch.setattr(connections["replica"], "vendor", vendor)
    sql = str(search(Case.objects.using("replica"), "checkpoint").query)
    assert ("search_vector @@" in sql) == (vendor == "postgresql")
    assert ("title_words" in sql) == (vendor == "postgresql")
