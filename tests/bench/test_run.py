import psycopg
import pytest
from django.db import connection

from bench.run import vacuum_where_autovacuum_is_off
from tests.library import subprocess_env

pytestmark = pytest.mark.django_db


def test_make_load_tends_the_database_where_the_servers_autovacuum_is_off():
    """The finding (#21): these machines' PostgreSQL runs with autovacuum off, so nothing
    vacuumed or analyzed what `make load`'s rounds wrote, as production's would have."""
    if connection.vendor != "postgresql":
        pytest.skip("make load runs on PostgreSQL")
    url = subprocess_env()["DATABASE_URL"]  # (this test's database)
    with psycopg.connect(url, autocommit=True) as other:
        autovacuum = other.execute("SHOW autovacuum").fetchone()[0]
        other.execute("SELECT pg_stat_reset()")  # (forgets earlier vacuums)

    vacuumed = vacuum_where_autovacuum_is_off(url)

    assert vacuumed == (autovacuum == "off")
    with psycopg.connect(url, autocommit=True) as other:
        last = other.execute(
            "SELECT last_vacuum, last_analyze FROM pg_stat_user_tables WHERE relname = 'cases_case'"
        ).fetchone()
    assert (last[0] is not None and last[1] is not None) == vacuumed
