"""Every change of a case's status leaves a transition record, whichever way it came: the
admin's buttons, an import that publishes, a restored backup."""

import getpass
import io

import pytest
from django.core.management import call_command

from cases.models import Case, CaseTransition
from tests.factories import CaseFactory, UserFactory
from tests.library import load_bundled_library

pytestmark = pytest.mark.django_db


def steps_of(public_id):
    return list(
        CaseTransition.objects.filter(public_id=public_id)
        .order_by("at", "pk")
        .values_list("action", "from_status", "to_status")
    )


def test_an_import_that_publishes_records_it_with_who_ran_it(seed_case, write_json):
    call_command("import_cases", str(write_json("c.json", seed_case)), stdout=io.StringIO())
    (step,) = CaseTransition.objects.filter(public_id="IL-0585")
    assert (step.action, step.from_status, step.to_status) == (
        "incidentlib.case.imported",
        "",
        "published",
    )
    assert getpass.getuser() in step.note and "c.json" in step.note
    assert step.case == Case.objects.get(public_id="IL-0585")


def test_an_import_names_the_account_it_runs_for(seed_case, write_json):
    UserFactory(username="mina", role="reviewer")
    call_command(
        "import_cases", str(write_json("c.json", seed_case)), "--user", "mina", stdout=io.StringIO()
    )
    assert CaseTransition.objects.get(public_id="IL-0585").user.username == "mina"


def test_an_import_that_only_updates_records_no_status_change(seed_case, write_json):
    path = write_json("c.json", seed_case)
    call_command("import_cases", str(path), stdout=io.StringIO())
    seed_case["summary"]["en"] += " More."
    path = write_json("c.json", seed_case)
    call_command("import_cases", str(path), stdout=io.StringIO())
    assert steps_of("IL-0585") == [
        ("incidentlib.case.imported", "", "published"),
        ("incidentlib.case.import_updated", "published", "published"),
    ]


def test_a_dry_run_records_nothing(seed_case, write_json):
    path = write_json("c.json", seed_case)
    call_command("import_cases", str(path), "--dry-run", stdout=io.StringIO())
    assert not CaseTransition.objects.exists()


def test_a_restore_records_each_status_it_changes(tmp_path):
    load_bundled_library()
    withdrawn = Case.objects.order_by("public_id").first()
    Case.objects.filter(pk=withdrawn.pk).update(status=Case.Status.WITHDRAWN)
    call_command("backup_library", str(tmp_path / "b"), stdout=io.StringIO())
    Case.objects.filter(pk=withdrawn.pk).update(status=Case.Status.PUBLISHED)
    CaseFactory(public_id="IL-9999")  # not in the backup: left alone
    CaseTransition.objects.all().delete()
    call_command("restore_library", str(tmp_path / "b"), stdout=io.StringIO())
    assert steps_of(withdrawn.public_id) == [
        ("incidentlib.case.restored", "published", "withdrawn")
    ]
    others = CaseTransition.objects.exclude(public_id=withdrawn.public_id)
    assert not others.exclude(action="incidentlib.case.restored").exists()
    assert not CaseTransition.objects.filter(public_id="IL-9999").exists()
