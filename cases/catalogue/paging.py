"""Which of the listed cases a page shows: page numbers, a paginator told its count, and
the cases a list's facets select from the facet index. Shared by the list's query
(cases.catalogue.query) and its searching (cases.catalogue.searching)."""

from django.core.paginator import Paginator

from cases.catalogue.facet_index import term_kind
from cases.catalogue.filters import FACETS

PAGE_SIZE = 20
# Far beyond any library's last page, and small enough for PostgreSQL's OFFSET.
MAX_PAGE_NUMBER = 1_000_000


def page_number(value):
    """The page asked for, if it is a page number at all (Paginator decides the rest)."""
    if value is None:
        return 1
    try:
        number = int(value)
    except ValueError:
        return None
    return number if 1 <= number <= MAX_PAGE_NUMBER else None


class CountedPaginator(Paginator):
    """A paginator told how many cases there are (the facet index counted them), so that
    it never asks the database for a COUNT(*)."""

    def __init__(self, object_list, per_page, count):
        super().__init__(object_list, per_page)
        self.count = count  # in place of the cached property that would ask


def facet_filters(filterset, index):
    """The facets a valid filterset selects by, as (kind, keys) pairs of the facet index
    (cases.catalogue.facet_index): a case passes a pair if it has any of its keys."""
    filters = []
    for name, vocabulary in FACETS.items():
        values = filterset.form.cleaned_data.get(name)
        if not values:
            continue
        if vocabulary:
            kind, keys = term_kind(vocabulary), filterset.filters[name].term_ids(values)
        elif name == "org":
            kind, keys = "org", index.organisation_keys(values)
        else:
            kind, keys = name, values
        filters.append((kind, frozenset(keys)))
    return filters


def faceted(filterset, index, narrowed):
    """The cases among `narrowed` (a CaseSet) that a valid filterset's facets select:
    values of one facet are OR, facets are AND, as in cases.catalogue.filters."""
    selection = narrowed
    for kind, keys in facet_filters(filterset, index):
        selection &= index.cases_with(kind, keys)
    return selection
