"""The importer flags a case that looks like one the library has (or this run brings): the
same source address, or the same organisation, near dates and a near title. A warning,
never a refusal: the case is imported, and an editor may merge the two."""

import io
import json

import pytest
from django.core.management import call_command

from cases.models import Case
from tests.conftest import REPO
from tests.exchange.test_importer import run_import
from tests.library import load_bundled_library

pytestmark = pytest.mark.django_db

IL_1010 = json.loads((REPO / "data" / "cases" / "IL-1010.json").read_text(encoding="utf-8"))
FB_SOURCE = "https://engineering.fb.com/2021/10/05/networking-traffic/outage-details/"


def catalogue_case(case_id, **changes):
    """A case as an English-only public catalogue writes it: IL-1010's incident, told again."""
    case = dict(
        IL_1010,
        id=case_id,
        org="Facebook",
        org_slug="facebook",
        title={"en": "Facebook outage of October 2021", "ko": ""},
        summary={"en": "Facebook, Instagram and WhatsApp were down for six hours.", "ko": ""},
        related=[],
        recurrence_of=None,
        # The same page, written as another catalogue writes it: http, no trailing
        # slash, a tracking parameter.
        sources=[
            {
                "url": "http://engineering.fb.com/2021/10/05/networking-traffic/outage-details"
                "?utm_source=catalogue",
                "kind": "postmortem",
                "archived": None,
            }
        ],
    )
    case.update(changes)
    return case


@pytest.fixture
def bundled():
    load_bundled_library()


def test_import_flags_a_case_citing_the_same_source_as_il_1010(bundled, write_json):
    path = write_json("catalogue.json", [catalogue_case("IL-5001")])
    out, _err, error = run_import(path)
    assert error is None
    assert f"IL-5001 looks like IL-1010 (same source {FB_SOURCE})" in out
    assert Case.objects.filter(public_id="IL-5001").exists()  # a warning, not a refusal


def test_dry_run_flags_it_too_and_writes_nothing(bundled, write_json):
    path = write_json("catalogue.json", [catalogue_case("IL-5001")])
    out, _err, error = run_import("--dry-run", path)
    assert error is None
    assert f"IL-5001 looks like IL-1010 (same source {FB_SOURCE})" in out
    assert not Case.objects.filter(public_id="IL-5001").exists()


def test_import_flags_same_organisation_near_date_and_near_title(bundled, write_json):
    case = catalogue_case(
        "IL-5002",
        org="Meta",
        org_slug="meta",
        date="2021-10-06",
        title={"en": "A backbone maintenance command cut Facebook's data centers off", "ko": ""},
        sources=[{"url": "https://example.org/facebook-2021", "kind": "news", "archived": None}],
    )
    out, _err, error = run_import(write_json("catalogue.json", [case]))
    assert error is None
    assert "IL-5002 looks like IL-1010 (same organisation, 2 days apart, similar title)" in out


def test_import_flags_two_cases_of_one_run_once(write_json):
    call_command("load_taxonomy", str(REPO / "data" / "taxonomy.json"), stdout=io.StringIO())
    path = write_json("catalogue.json", [catalogue_case("IL-5001"), catalogue_case("IL-5003")])
    out, _err, error = run_import(path)
    assert error is None
    assert out.count("looks like") == 1
    assert "IL-5003 looks like IL-5001 (same source" in out


def test_import_does_not_flag_other_incidents_of_the_same_organisation(bundled, write_json):
    case = catalogue_case(
        "IL-5004",
        org="Meta",
        org_slug="meta",
        date="2021-10-20",  # two weeks later: another incident
        sources=[{"url": "https://example.org/another", "kind": "news", "archived": None}],
    )
    out, _err, error = run_import(write_json("catalogue.json", [case]))
    assert error is None
    assert "looks like" not in out
    near_date = catalogue_case(
        "IL-5005",
        org="Meta",
        org_slug="meta",
        date="2021-10-05",
        title={"en": "Messenger images failed to load in Europe", "ko": ""},
        sources=[{"url": "https://example.org/images", "kind": "news", "archived": None}],
    )
    out, _err, error = run_import(write_json("catalogue2.json", [near_date]))
    assert error is None
    assert "looks like" not in out
