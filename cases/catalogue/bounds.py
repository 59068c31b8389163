"""The query string a public page is built from, bounded, whatever a request sends.

Every link of a list page carries its query string (a facet value's link is the list with
that value added), so a page grows as its links times its query: a query naming 1,000
values of one facet made a page of 30 MB, each of 1,000 chips linking to the other 999.
A page is therefore built from a bounded copy: only the parameters a list reads, at most
MAX_VALUES values of a facet and MAX_SELECTED in all, the first of each single
parameter, each facet expanded once, none longer than MAX_PARAMETER_LENGTH. What was left
out is said (parameters no list reads are dropped without a word).
"""

from django.http import QueryDict
from django.utils.translation import gettext as _

from cases.catalogue.filters import DATES, FACETS, MAX_VALUES, CaseFilter

MAX_SELECTED = 40
SINGLE = ("q", *DATES, "sort", "page", "tab")
MAX_PARAMETER_LENGTH = 400


def bounded(data):
    """(the QueryDict a page is built from, notices of what was left out)."""
    kept, notices = QueryDict(mutable=True), []
    total = 0
    for name in FACETS:
        values = list(dict.fromkeys(v[:MAX_PARAMETER_LENGTH] for v in data.getlist(name)))
        if not values:
            continue
        room = min(MAX_VALUES, MAX_SELECTED - total)
        if len(values) > room:
            label = CaseFilter.base_filters[name].label
            if room:
                notice = _("Only the first %(count)s values of %(filter)s are used.")
            else:
                notice = _("%(filter)s is left out: a list takes at most %(max)s values in all.")
            notices.append(notice % {"count": room, "filter": label, "max": MAX_SELECTED})
            values = values[:room]
        if values:
            kept.setlist(name, values)
            total += len(values)
    for name in SINGLE:
        if name in data:
            kept[name] = data.get(name, "")[:MAX_PARAMETER_LENGTH]
    # Which facets show all their values: at most each facet once.
    expanded = [name for name in dict.fromkeys(data.getlist("expand")) if name in FACETS]
    if expanded:
        kept.setlist("expand", expanded)
    kept._mutable = False
    return kept, notices
