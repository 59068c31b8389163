"""How the exchange format spells durations and times, and a problem found at a path."""

import datetime
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


def format_datetime(value: datetime.datetime | None) -> str | None:
    if value is None:
        return None
    return value.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z")
