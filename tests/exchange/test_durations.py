"""Durations as editors type them (`3h 15m`, `PT3H15M`, `03:15:00`) and as the exchange
format writes them (ISO 8601 only): one reader, the importer's own messages and limits."""

import datetime

import pytest
from django.utils.duration import duration_string
from hypothesis import given
from hypothesis import strategies as st

from cases.exchange.fields import FieldChecks, read_duration
from cases.exchange.spelling import format_duration, format_duration_for_people
from cases.rules import MAX_DURATION

H, M, S = datetime.timedelta(hours=1), datetime.timedelta(minutes=1), datetime.timedelta(seconds=1)
D = datetime.timedelta(days=1)


def importer_says(value):
    checks = FieldChecks()
    normal = checks.duration("timeline.detected_after", value)
    return normal, [problem.message for problem in checks.problems]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("3h 15m", 3 * H + 15 * M),
        ("PT3H15M", 3 * H + 15 * M),
        ("03:15:00", 3 * H + 15 * M),
        ("2d 4h", 2 * D + 4 * H),
        ("45m", 45 * M),
        ("1:30", H + 30 * M),
        ("pt45m", 45 * M),
        ("  3h15m ", 3 * H + 15 * M),
        ("3 hours 15 minutes", 3 * H + 15 * M),
        ("2 days, 4 hours", 2 * D + 4 * H),
        ("1h 2m 3.5s", H + 2 * M + 3.5 * S),
        ("3시간 15분", 3 * H + 15 * M),
        ("1 02:03:04", D + 2 * H + 3 * M + 4 * S),  # Django's own spelling
        ("P2DT4H", 2 * D + 4 * H),
        ("0m", datetime.timedelta(0)),
    ],
)
def test_every_spelling_reads(text, expected):
    assert read_duration(text) == (expected, None)


@pytest.mark.parametrize(
    "text,message",
    [
        ("3 hours-ish", "'3 hours-ish' is not a duration such as 3h 15m, PT3H15M or 03:15:00"),
        ("90", "'90' is not a duration such as 3h 15m, PT3H15M or 03:15:00"),
        ("1:75", "'1:75' is not a duration such as 3h 15m, PT3H15M or 03:15:00"),
        ("PT", "'PT' is not a duration such as 3h 15m, PT3H15M or 03:15:00"),
        ("15m 3h", "'15m 3h' is not a duration such as 3h 15m, PT3H15M or 03:15:00"),
        ("٣h", "'٣h' is not a duration such as 3h 15m, PT3H15M or 03:15:00"),
        ("-5m", "must not be negative"),
        ("-00:05:00", "must not be negative"),
        ("-PT5M", "must not be negative"),
        ("99999d", "is longer than 20 years"),
        ("7400 00:00:00", "is longer than 20 years"),
        ("P7400D", "is longer than 20 years"),
        ("999999999999999d", "is longer than 20 years"),  # more days than a timedelta holds
        ("99999999 00:00:00", "is longer than 20 years"),
        ("1" * 5000 + "d", f"{'1' * 60!r}… is not a duration such as 3h 15m, PT3H15M or 03:15:00"),
    ],
)
def test_what_is_no_duration_is_named(text, message):
    assert read_duration(text) == (None, message)


@pytest.mark.parametrize("iso,admin", [("-PT5M", "-5m"), ("P7400D", "7400d")])
def test_the_limits_are_worded_as_the_importer_words_them(iso, admin):
    _normal, said = importer_says(iso)
    assert said == [read_duration(admin)[1]]


def test_the_exchange_format_keeps_iso_8601():
    assert importer_says("PT3H15M") == ("PT3H15M", [])
    assert importer_says("3h 15m") == (
        None,
        ["'3h 15m' is not an ISO 8601 duration such as PT3H15M"],
    )
    assert importer_says("03:15:00")[0] is None


@pytest.mark.parametrize(
    "value,shown",
    [
        (3 * H + 15 * M, "3h 15m"),
        (45 * M, "45m"),
        (2 * D + 4 * H, "2d 4h"),
        (datetime.timedelta(0), "0m"),
        (H + 2.5 * S, "1h 2.5s"),
        (datetime.timedelta(microseconds=1), "0.000001s"),
        (None, ""),
    ],
)
def test_a_duration_is_shown_in_one_spelling(value, shown):
    assert format_duration_for_people(value) == shown


DURATIONS = st.timedeltas(min_value=datetime.timedelta(0), max_value=MAX_DURATION)


@given(DURATIONS)
def test_each_spelling_of_a_duration_reads_back_as_it(value):
    shown = format_duration_for_people(value)
    assert read_duration(shown) == (value, None), shown
    assert read_duration(format_duration(value)) == (value, None)
    assert read_duration(duration_string(value)) == (value, None)
