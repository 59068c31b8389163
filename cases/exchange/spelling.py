"""How the exchange format spells durations and times, how editors spell durations, and a
problem found at a path."""

import datetime
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    path: str
    message: str

    def __str__(self):
        return f"{self.path}: {self.message}" if self.path else self.message


def format_duration(value: datetime.timedelta | None) -> str | None:
    """ISO 8601 in its shortest spelling: PT3H15M, P2DT4H, PT0S."""
    if value is None:
        return None
    seconds = value.total_seconds()
    sign = "-" if seconds < 0 else ""
    value = abs(value)
    days, rest = value.days, value.seconds
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    micros = value.microseconds
    date_part = f"{days}D" if days else ""
    time_part = ""
    if hours:
        time_part += f"{hours}H"
    if minutes:
        time_part += f"{minutes}M"
    if secs or micros:
        time_part += f"{secs}.{micros:06d}".rstrip("0").rstrip(".") + "S"
    if not date_part and not time_part:
        return "PT0S"
    return f"{sign}P{date_part}" + (f"T{time_part}" if time_part else "")


def format_duration_for_people(value: datetime.timedelta | None) -> str:
    """The admin's one spelling of a duration: `3h 15m`, `2d 4h`, `45m`, `1h 2.5s`, `0m`
    (never negative: the rules refuse that before it is stored)."""
    if value is None:
        return ""
    days, rest = value.days, value.seconds
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{n}{unit}" for n, unit in ((days, "d"), (hours, "h"), (minutes, "m")) if n]
    if secs or value.microseconds:
        parts.append(f"{secs}.{value.microseconds:06d}".rstrip("0").rstrip(".") + "s")
    return " ".join(parts) or "0m"


def duration_unit(name, words):
    """One optional `<number> <unit>` of a duration in words; only seconds take a fraction.
    (ASCII digits only, as every number the exchange format reads: `\\d` takes others.)"""
    number = r"[0-9]+(?:[.,][0-9]{1,6})?" if name == "seconds" else r"[0-9]+"
    return rf"(?:(?P<{name}>{number})\s*(?:{words})[\s,]*)?"


# `2d 4h`, `3h 15m`, `45m`, `3 hours 15 minutes`, `3시간 15분`: largest unit first, each once.
DURATION_IN_WORDS = re.compile(
    r"(?P<sign>-)?\s*"
    + duration_unit("days", "days|day|d|일")
    + duration_unit("hours", "hours|hour|hrs|hr|h|시간")
    + duration_unit("minutes", "minutes|minute|mins|min|m|분")
    + duration_unit("seconds", "seconds|second|secs|sec|s|초"),
    re.IGNORECASE,
)
# `03:15:00`, `1:30` (an hour and a half), and Django's `1 02:03:04.5` with days in front.
DURATION_ON_A_CLOCK = re.compile(
    r"(?P<sign>-)?(?:(?P<days>[0-9]+)\s*(?:days?,?)?\s+)?(?P<hours>[0-9]+):(?P<minutes>[0-5][0-9])"
    r"(?::(?P<seconds>[0-5][0-9](?:[.,][0-9]{1,6})?))?",
    re.IGNORECASE,
)


def parse_duration_for_people(text: str) -> datetime.timedelta | None:
    """A duration in words or on a clock (not ISO 8601, which the importer's reader takes),
    or None. OverflowError for more days than a timedelta holds."""
    match = DURATION_IN_WORDS.fullmatch(text) or DURATION_ON_A_CLOCK.fullmatch(text)
    if match is None or not any(match[name] for name in ("days", "hours", "minutes", "seconds")):
        return None
    whole, _dot, fraction = (match["seconds"] or "0").replace(",", ".").partition(".")
    value = datetime.timedelta(
        days=int(match["days"] or 0),
        hours=int(match["hours"] or 0),
        minutes=int(match["minutes"] or 0),
        seconds=int(whole),
        microseconds=int(fraction.ljust(6, "0")),
    )
    return -value if match["sign"] else value


def format_datetime(value: datetime.datetime | None) -> str | None:
    if value is None:
        return None
    return value.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z")
