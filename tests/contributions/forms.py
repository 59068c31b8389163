"""Filling in readers' forms as a person would: a time of issue some seconds ago."""

import time
from unittest import mock

from cases.contributions import guard


def issued(seconds_ago=30):
    """A signed time of issue as a form rendered `seconds_ago` seconds ago carries."""
    with mock.patch("time.time", return_value=time.time() - seconds_ago):
        return guard.issued_now()


def suggestion_data(**changes):
    """What a person sends on the suggestion form, with `changes`."""
    data = {
        "source_url": "https://status.example-cloud.com/incidents/2025-03-01-queue-backlog",
        "organisation": "Example Cloud",
        "date": "2025-03-01",
        "note": "Their queue backed up for three hours; the postmortem is thorough.",
        "email": "reader@example.net",
        "website": "",
        "issued": issued(),
    }
    data.update(changes)
    return data
