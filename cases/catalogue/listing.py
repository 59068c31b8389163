"""What the HTML list shows of a catalogue query (cases.catalogue.query): cards, charts,
notices and suggested filters."""

from dataclasses import dataclass, field

from django.db.models import Prefetch
from django.utils.translation import gettext as _

from cases.catalogue.cards import listed_cards, rendered_card
from cases.catalogue.checklist import build_check
from cases.catalogue.facets import build_facets
from cases.catalogue.filters import CaseFilter
from cases.catalogue.vocabularies import facet_of
from cases.models import Case, CaseStep, CaseTerm, Term, Vocabulary
from cases.search.query import suggested_filters
from cases.search.snippets import find_snippet, highlighter_for
from cases.templatetags.library import term_label_parts, translated_text

# What a search result's snippet is cut from, the first text with the most of the words.
SNIPPET_FIELDS = ("summary", "symptoms_text", "trigger", "detection", "lessons")


def with_card_data(queryset):
    """What a case card shows, in a fixed number of queries whatever the page size."""
    return queryset.select_related("org", "root_cause").prefetch_related(
        Prefetch(
            "case_terms", queryset=CaseTerm.objects.select_related("term").order_by("position")
        ),
        Prefetch("steps", queryset=CaseStep.objects.order_by("kind", "position")),
    )


def cards(pks, terms):
    """The cases of one page, in its order, their terms taken from `terms` (every public
    term, which the list has already).

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
    """What the HTML list shows of a CatalogueQuery."""

    filterset: CaseFilter
    page: object  # of cards
    facets: list
    query: str  # the search, as the list shows it
    sort: str
    has_filters: bool
    notices: list[str] = field(default_factory=list)
    suggestions: list = field(default_factory=list)
    common_components: list = field(default_factory=list)
    charts: dict = field(default_factory=dict)
    search: object = None  # how the search was answered (a SearchOutcome), if not plainly
    highlighter: object = None  # a search's (cases.search.snippets.Highlighter)
    check: object = None  # "Check your own system" (cases.catalogue.checklist.Check)

    @property
    def selected_count(self):
        """How many facet values the reader chose: the filters' button says it."""
        return sum(len(facet.selected) for facet in self.facets)


def build_listing(query):
    """The HTML list of a CatalogueQuery: its facets, its page of cards, its charts, and
    what it says about the reader's filters."""
    counts = query.facet_counts()
    facets = build_facets(query, counts.facets)
    page = counts.page
    highlighter = highlighter_for(query.plan) if query.searches else None
    page.object_list = listed_cards(
        page.object_list,
        render_missing=lambda pks: rendered_cards(pks, query.terms, highlighter),
        highlighter=highlighter,
    )
    notices = list(query.notices)
    for facet in facets:
        notices += [
            _("No case has the %(facet)s “%(value)s”.")
            % {"facet": facet.label.lower(), "value": slug}
            for slug in facet.unknown
        ]
    listing = Listing(
        query.filterset, page, facets, query.q, query.sort, query.has_filters, notices
    )
    listing.search = query.outcome
    listing.common_components = common_components(facets, counts.within)
    listing.charts = charts(facets, counts.within, counts.years)
    listing.check = build_check(query.index, counts.listed, query.terms, query.data)
    listing.highlighter = highlighter
    if query.q:
        selected = {(f.name, v.slug) for f in facets for v in f.selected}
        orgs = [v.obj for f in facets if f.name == "org" for v in f.values if v.obj]
        found = suggested_filters(query.q, query.terms, orgs)
        if query.searches:  # and what its words name in another script or spelling
            found += [t for t in query.terms if t.pk in query.plan.terms]
            found += [org for org in orgs if org.pk in query.plan.organisations]
        listing.suggestions = [
            (facet_name_of(item), item)
            for item in dict.fromkeys(found)
            if (facet_name_of(item), item.slug) not in selected
        ]
    return listing


def rendered_cards(pks, terms, highlighter):
    """{pk: (public_id, html)} of the cards of these cases, their search words marked."""
    rendered = {}
    for case in cards(pks, terms):
        if highlighter:
            mark_search(case, highlighter)
        rendered[case.pk] = rendered_card(case, highlighter)
    return rendered


def mark_search(case, highlighter):
    """A search result's title with the words marked, and a snippet of where they occur,
    in the page's language (another where a text has no translation, as the card shows)."""
    case.search_title = highlighter.mark(translated_text(case, "title"))
    texts = [translated_text(case, name) for name in SNIPPET_FIELDS]
    steps = [*case.remediation_steps, *case.action_item_steps]
    texts += [translated_text(step, "text") for step in steps]
    case.search_snippet, index = find_snippet([text.text for text in texts], highlighter)
    fallback = index is not None and texts[index].fallback
    case.search_snippet_lang = texts[index].language if fallback else ""


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


def with_empty_years(items):
    """Every year from the first to the last, those without cases at zero: a gap in the
    record shows as one, not as two years side by side."""
    counts = {int(label): count for label, count in items}
    first, last = min(counts), max(counts)
    return [(str(year), counts.get(year, 0)) for year in range(first, last + 1)]


def year_chart(items):
    """Columns of cases per year: SVG geometry, computed here so the template stays plain."""
    items = with_empty_years(items)
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
    """Rows of cases per cause: `items` are (facet value, count)."""
    top = max((count for _value, count in items), default=0) or 1
    rows = [
        {
            "value": value,
            # The SVG's text is plain: a label in another language says so by `lang` alone.
            "label": term_label_parts(value.obj)[0] if value.obj else value.label,
            "lang": term_label_parts(value.obj)[1] if value.obj else "",
            "count": count,
            "y": index * CAUSE_ROW,
            "width": round(120 * count / top, 1),
            "text_y": index * CAUSE_ROW + 11,
            "count_x": 130 + round(120 * count / top, 1) + 4,
        }
        for index, (value, count) in enumerate(items)
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
    by_cause = [(v, within.get((Vocabulary.ROOT_CAUSE, v.slug), 0)) for v in cause_facet.values]
    by_cause = sorted([item for item in by_cause if item[1]], key=lambda item: -item[1])
    return {
        "years": year_chart(by_year) if by_year else None,
        "causes": cause_chart(by_cause[:8]) if by_cause else None,
    }
