"""What the public list shows for a query string: shared by the HTML list and its JSON."""

from dataclasses import dataclass, field

from django.core.paginator import Paginator
from django.db.models import Prefetch
from django.utils.translation import gettext as _

from cases.catalogue.facets import build_facets
from cases.catalogue.filters import FACETS, SORTS, CaseFilter
from cases.catalogue.vocabularies import facet_of
from cases.models import Case, CaseStep, CaseTerm, Term, Vocabulary
from cases.search.query import query_words, suggested_filters

PAGE_SIZE = 20


def with_card_data(queryset):
    """What a case card shows, in a fixed number of queries whatever the page size."""
    return queryset.select_related("org", "root_cause").prefetch_related(
        Prefetch(
            "case_terms", queryset=CaseTerm.objects.select_related("term").order_by("position")
        ),
        Prefetch("steps", queryset=CaseStep.objects.order_by("kind", "position")),
    )


def cards(pks, terms):
    """The cases of one page, in its order, their terms taken from `terms` (every term,
    which the list has already).

    The page is chosen first by its keys alone: ordering whole rows, with their
    organisations and causes joined, costs twice as much when a search matches most of
    the library.
    """
    by_pk = (
        Case.objects.filter(pk__in=pks)
        .select_related("org")
        .prefetch_related(
            Prefetch("case_terms", queryset=CaseTerm.objects.order_by("position")),
            Prefetch("steps", queryset=CaseStep.objects.order_by("kind", "position")),
        )
        .in_bulk()
    )
    page = [by_pk[pk] for pk in pks if pk in by_pk]  # unless deleted in between
    term_by_pk = {term.pk: term for term in terms}
    used = {ct.term_id for case in page for ct in case.case_terms.all()}
    used |= {case.root_cause_id for case in page if case.root_cause_id}
    if used - term_by_pk.keys():  # a term newer than `terms`
        term_by_pk.update(Term.objects.in_bulk(used - term_by_pk.keys()))
    for case in page:
        if case.root_cause_id:
            case.root_cause = term_by_pk[case.root_cause_id]
        for case_term in case.case_terms.all():
            case_term.term = term_by_pk[case_term.term_id]
    return page


@dataclass
class Listing:
    filterset: CaseFilter
    page: object
    facets: list
    notices: list[str] = field(default_factory=list)
    suggestions: list = field(default_factory=list)
    common_components: list = field(default_factory=list)
    charts: dict = field(default_factory=dict)

    @property
    def query(self):
        return self.filterset.query

    @property
    def sort(self):
        return self.filterset.sort_order()

    @property
    def has_filters(self):
        return any(self.filterset.selected(name) for name in FACETS) or any(
            self.filterset.data.get(name) for name in ("from", "to")
        )


def filtered_cases(request_data, terms=None):
    """(filterset, the published cases it selects, why it selects none if it is invalid)."""
    public = Case.objects.public()
    filterset = CaseFilter(request_data, queryset=public, terms=terms)
    if filterset.is_valid():
        if query_words(filterset.query):  # a search for words, not only punctuation
            filterset = CaseFilter(
                request_data, queryset=Case.objects.public_for_search(), terms=filterset.terms
            )
        return filterset, filterset.qs, []
    notices = []
    for name, errors in filterset.form.errors.items():
        label = filterset.filters[name].label if name in filterset.filters else name
        notices += [_("%(filter)s: %(error)s") % {"filter": label, "error": e} for e in errors]
    return filterset, public.none(), notices


def sort_fields(filterset):
    sort = filterset.sort_order()
    if sort == "relevance" and filterset.query:
        return ("-relevance", "-date", "-public_id")
    return SORTS.get(sort, SORTS["newest"])


def sorted_cases(filterset, cases):
    return cases.order_by(*sort_fields(filterset))


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


def build_listing(request_data, terms=None):
    public = Case.objects.public()
    filterset, cases, notices = filtered_cases(request_data, terms)
    terms = filterset.terms

    cases = sorted_cases(filterset, cases)
    asked = page_number(request_data.get("page"))
    facets, within, by_year, page_keys = build_facets(
        filterset,
        terms,
        public,
        page=(sort_fields(filterset), (asked - 1) * PAGE_SIZE, PAGE_SIZE) if asked else None,
    )
    paginator = Paginator(cases.values_list("pk", flat=True), PAGE_SIZE)
    # The year counts add up to the number of cases: one query less than a COUNT(*).
    paginator.count = sum(count for _year, count in by_year)
    page = paginator.get_page(request_data.get("page"))
    if page_keys is None or page.number != asked:  # no search or dates, or out of range
        page_keys = list(page.object_list)
    page.object_list = cards(page_keys, terms)

    for facet in facets:
        unknown = [
            v.slug
            for v in facet.values
            if v.selected and v.obj is None and facet.name != "severity"
        ]
        if facet.name == "severity":
            unknown = [
                v.slug for v in facet.values if v.selected and v.slug not in Case.Severity.values
            ]
        for slug in unknown:
            notices.append(
                _("No case has the %(facet)s “%(value)s”.")
                % {"facet": facet.label.lower(), "value": slug}
            )

    listing = Listing(filterset, page, facets, notices)
    listing.common_components = common_components(facets, within)
    listing.charts = charts(facets, within, by_year)
    if filterset.query:
        selected = {(f.name, v.slug) for f in facets for v in f.selected}
        orgs = [v.obj for f in facets if f.name == "org" for v in f.values if v.obj]
        listing.suggestions = [
            (facet_name_of(item), item)
            for item in suggested_filters(filterset.query, terms, orgs)
            if (facet_name_of(item), item.slug) not in selected
        ]
    return listing


def facet_name_of(item):
    return facet_of(item.vocabulary) if isinstance(item, Term) else "org"  # an OrganisationName


def common_components(facets, within, limit=3):
    """The components most often found in the listed cases (not the facet's own counts,
    which ignore a component selection)."""
    facet = next(f for f in facets if f.name == "component")
    values = [v for v in facet.values if within.get((Vocabulary.COMPONENT, v.slug))]
    values.sort(key=lambda v: (-within[(Vocabulary.COMPONENT, v.slug)], v.label.casefold()))
    return values[:limit]


YEAR_BAR = 22  # width of one year's column in the SVG, in its units
CHART_HEIGHT = 90
CAUSE_ROW = 18
CAUSE_WIDTH = 300
# Pixels per SVG unit. Without a width of its own a chart stretches to its column: two
# years' columns drawn six times as large as fifteen years'.
CHART_SCALE = 1.4


def year_chart(items):
    """Columns of cases per year: SVG geometry, computed here so the template stays plain."""
    top = max((count for _label, count in items), default=0) or 1
    plot = CHART_HEIGHT - 28  # room for the count above and the year below
    columns = []
    for index, (label, count) in enumerate(items):
        height = round(plot * count / top, 1)
        columns.append(
            {
                "label": label,
                "short_label": f"’{label[-2:]}",
                "count": count,
                "x": index * YEAR_BAR,
                "y": CHART_HEIGHT - 14 - height,
                "height": height,
                "text_x": index * YEAR_BAR + (YEAR_BAR - 4) / 2,
            }
        )
    width = max(len(items) * YEAR_BAR, YEAR_BAR)
    return {
        "columns": columns,
        "width": width,
        "height": CHART_HEIGHT,
        "display_width": round(width * CHART_SCALE),
    }


def cause_chart(items):
    """Rows of cases per cause."""
    top = max((count for _label, count in items), default=0) or 1
    rows = [
        {
            "label": label,
            "count": count,
            "y": index * CAUSE_ROW,
            "width": round(120 * count / top, 1),
            "text_y": index * CAUSE_ROW + 11,
            "count_x": 130 + round(120 * count / top, 1) + 4,
        }
        for index, (label, count) in enumerate(items)
    ]
    return {
        "rows": rows,
        "width": CAUSE_WIDTH,
        "height": max(len(items) * CAUSE_ROW, CAUSE_ROW),
        "display_width": round(CAUSE_WIDTH * CHART_SCALE),
    }


def charts(facets, within, by_year):
    """Cases per year and per cause, for the small charts above the list."""
    cause_facet = next(f for f in facets if f.name == "cause")
    # Causes within the list itself (the facet's own counts ignore a cause selection).
    by_cause = [
        (v.label, within.get((Vocabulary.ROOT_CAUSE, v.slug), 0)) for v in cause_facet.values
    ]
    by_cause = sorted([item for item in by_cause if item[1]], key=lambda item: -item[1])
    return {
        "years": year_chart(by_year) if by_year else None,
        "causes": cause_chart(by_cause[:8]) if by_cause else None,
    }
