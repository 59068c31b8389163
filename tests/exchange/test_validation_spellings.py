"""Dates, times and durations in the exchange format's one spelling, in ASCII digits and
matched whole, and organisation slugs derived as slugs: what the validator let through
before (Python's ISO readers take week dates, compact forms, Arabic-Indic digits and a final
newline; slugify keeps underscores)."""

import io

import pytest
from django.core.management import call_command
from hypothesis import given
from hypothesis import strategies as st

from cases.exchange.validation import validate_case
from cases.models import Organisation
from cases.rules import is_slug


def refused_at(case, path, value):
    """Whether the case with `value` at `path` ("timeline.detected_after") is refused for
    that field alone."""
    *parents, key = path.split(".")
    holder = case
    for parent in parents:
        holder = holder[parent]
    holder[key] = value
    normal, problems = validate_case(case)
    return normal is None and [problem.path for problem in problems] == [path]


@pytest.mark.parametrize(
    "value",
    [
        "2019-W32-4",  # an ISO week date, 10 characters long as YYYY-MM-DD
        "2019-8-08\n",  # a one-digit month and a final newline
        "٢٠١٩-٠٨-٠٨",  # Arabic-Indic digits
        "2019-08-08\n",
    ],
)
def test_a_date_is_yyyy_mm_dd_in_ascii_digits(seed_case, value):
    assert refused_at(seed_case, "date", value)


@pytest.mark.parametrize(
    "value",
    [
        "20241114T123423Z",  # ISO 8601's basic format
        "2024-W46-4T12:00Z",  # a week date
        "2024-11-14T12Z",  # the hour alone
        "٢٠٢٤-11-14T12:34:23Z",
        "2024-11-14T12:34:23Z\n",
        "2024-11-14T12:34:23+09:60",  # read as +10:00
        "2024-11-14T12:34:23.Z",  # a decimal point without digits
    ],
)
def test_a_date_and_time_is_in_the_extended_spelling(seed_case, value):
    assert refused_at(seed_case, "updated_at", value)


@pytest.mark.parametrize(
    "value,normal",
    [
        ("2024-11-14T12:34:23.063267Z", "2024-11-14T12:34:23.063267Z"),
        ("2024-11-14 12:34:23+00:00", "2024-11-14T12:34:23Z"),
        ("2024-11-14T21:34+09:00", "2024-11-14T12:34:00Z"),
        ("2024-11-14T21:34:23,5+0900", "2024-11-14T12:34:23.500000Z"),
        ("2024-11-14T21:34:23+09", "2024-11-14T12:34:23Z"),
    ],
)
def test_every_extended_spelling_still_reads(seed_case, value, normal):
    seed_case["updated_at"] = value
    case, problems = validate_case(seed_case)
    assert problems == []
    assert case["updated_at"] == normal


@pytest.mark.parametrize("value", ["P1DT", "PT3H15M\n", "P٣D", "-PT0S"])
def test_a_duration_has_a_number_after_each_designator_and_no_sign(seed_case, value):
    assert refused_at(seed_case, "timeline.detected_after", value)


def test_a_derived_organisation_slug_is_a_slug(seed_case, write_json):
    # slugify("A_B Corp") is "a_b-corp", which the database's check constraint refuses.
    seed_case["org"] = "A_B Corp"
    del seed_case["org_slug"]
    case, problems = validate_case(seed_case)
    assert problems == []
    assert case["org_slug"] == "a-b-corp"


@pytest.mark.django_db
def test_an_organisation_with_an_underscore_imports(seed_case, write_json):
    seed_case["org"] = "__Data_Lake__ Inc"
    del seed_case["org_slug"]
    call_command("import_cases", str(write_json("c.json", seed_case)), stdout=io.StringIO())
    assert Organisation.objects.get(name="__Data_Lake__ Inc").slug == "data-lake-inc"


@given(st.text(max_size=40))
def test_an_organisation_name_gives_a_slug_or_a_problem(name):
    case = {"id": "IL-0001", "org": name, "date": "2020-01-01", "title": {"en": "t"}}
    normal, problems = validate_case(case)
    if normal is not None:
        assert is_slug(normal["org_slug"]), normal["org_slug"]
    else:
        assert problems
