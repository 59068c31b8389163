"""Migrations that change how PostgreSQL stores cases keep every case as it was."""

import pytest
from django.core.management import call_command
from django.db import connection

from cases.models import Case
from tests.factories import CaseFactory

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="PostgreSQL's storage of rows"
)

LONG_EN = " ".join(f"Replica {n} fell behind the primary during the checkpoint." for n in range(80))
LONG_KO = " ".join(f"복제본 {n}이 체크포인트 중에 주 서버보다 뒤처졌다." for n in range(80))


def toast_tuple_target():
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'cases_case'")
        options = cursor.fetchone()[0] or []
    return next((o.split("=")[1] for o in options if o.startswith("toast_tuple_target=")), None)


@pytest.mark.django_db(transaction=True)
def test_narrow_rows_migrate_both_ways_and_keep_the_cases(client):
    case = CaseFactory(
        title_en="Checkpoint stall", summary_en=LONG_EN, summary_ko=LONG_KO, trigger_en=LONG_EN
    )
    call_command("reindex_search", verbosity=0)
    assert toast_tuple_target() == "128"

    call_command("migrate", "cases", "0014", verbosity=0)
    assert toast_tuple_target() is None
    call_command("migrate", "cases", verbosity=0)
    assert toast_tuple_target() == "128"

    stored = Case.objects.get(pk=case.pk)
    assert (stored.summary_en, stored.summary_ko, stored.trigger_en) == (LONG_EN, LONG_KO, LONG_EN)
    page = client.get("/ko/cases/?q=체크포인트+stall").content.decode()
    assert case.public_id in page
