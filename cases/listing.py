"""What the public list shows for a query string: shared by the HTML list and its JSON."""

from dataclasses import dataclass, field

from django.core.paginator import Paginator
from django.db.models import Count, Prefetch
from django.utils.translation import gettext as _

from .facets import build_facets, public_terms
from .filters import FACETS, SORTS, CaseFilter
from .models import Case, CaseStep, CaseTerm, Organisation, Vocabulary
from .search import suggested_filters

PAGE_SIZE = 20


def with_card_data(queryset):
    """What a case card shows, in a fixed number of queries whatever the page size."""
    return queryset.select_related("org", "root_cause").prefetch_related(
        Prefetch(
            "case_terms", queryset=CaseTerm.objects.select_related("term").order_by("position")
        ),
        Prefetch("steps", queryset=CaseStep.objects.order_by("kind", "position")),
    )


@dataclass
class Listing:
    filterset: CaseFilter
    page: object
    facets: list
    notices: list[str] = field(default_factory=list)
    suggestions: list = field(default_factory=list)
    common_components: list = field(default_factory=list)

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


def build_listing(request_data):
    public = Case.objects.published()
    filterset = CaseFilter(request_data, queryset=public)
    terms = public_terms()
    notices = []
    if filterset.is_valid():
        cases = filterset.qs
    else:
        cases = public.none()
        for name, errors in filterset.form.errors.items():
            label = filterset.filters[name].label if name in filterset.filters else name
            notices += [_("%(filter)s: %(error)s") % {"filter": label, "error": e} for e in errors]

    sort = filterset.sort_order()
    if sort == "relevance" and filterset.query:
        cases = cases.order_by("-relevance", "-date", "-public_id")
    else:
        cases = cases.order_by(*SORTS.get(sort, SORTS["newest"]))

    paginator = Paginator(with_card_data(cases), PAGE_SIZE)
    page = paginator.get_page(request_data.get("page"))
    facets = build_facets(filterset, terms, public)

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
    listing.common_components = common_components(filterset, cases, facets)
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
    if isinstance(item, Organisation):
        return "org"
    return next(name for name, vocabulary in FACETS.items() if vocabulary == item.vocabulary)


def common_components(filterset, cases, facets, limit=3):
    """The components most often found in the listed cases."""
    if filterset.selected("component"):
        # The component facet ignores its own selection; count within the list itself.
        rows = (
            CaseTerm.objects.filter(
                case__in=cases.order_by().values("pk"), term__vocabulary=Vocabulary.COMPONENT
            )
            .values("term_id")
            .annotate(n=Count("case_id"))
            .order_by("-n")[:limit]
        )
        counts = {row["term_id"]: row["n"] for row in rows}
        facet = next(f for f in facets if f.name == "component")
        values = [v for v in facet.values if v.obj is not None and v.obj.pk in counts]
        return sorted(values, key=lambda v: -counts[v.obj.pk])[:limit]
    facet = next(f for f in facets if f.name == "component")
    return [v for v in facet.values if v.count][:limit]
