"""The API's reading of the catalogue: the cases as the public list finds them, one case,
the terms and the organisations. Each answer is the public pages' own (cases.public.views),
cached and renewed as they are (cases.caching), so a page and its JSON never disagree."""

from django.db.models import Count, Q
from django.http import Http404, JsonResponse
from django.utils import translation
from ninja import Field, Query, Router, Schema
from ninja.decorators import decorate_view

from cases.caching import cache_public_page, page_shows
from cases.catalogue.filters import FACETS
from cases.catalogue.list_blocks import JSON_PARAMETERS
from cases.catalogue.paging import page_number
from cases.catalogue.vocabularies import VOCABULARIES
from cases.models import Case, Organisation, Term
from cases.public.views import case_in_exchange_format, list_in_exchange_format
from cases.rules import CASE_ID_RE

router = Router(tags=["catalogue"])

# Terms and organisations a page: every taxonomy we know fits in one or two.
NAMES_PER_PAGE = 500


def json(data, status=200):
    return JsonResponse(data, status=status, json_dumps_params=JSON_PARAMETERS)


class CaseFilters(Schema):
    """The list's query string (the public list takes the same). Every value is taken as
    text: one the list does not understand gives a notice in the answer, never an error."""

    q: str | None = Field(None, description="Search, in English or Korean.")
    cause: list[str] = Field([], description="Cause slugs (any of them).")
    component: list[str] = Field([], description="Component slugs (any of them).")
    symptom: list[str] = Field([], description="Symptom slugs (any of them).")
    contributing: list[str] = Field([], description="Contributing-factor slugs (any of them).")
    domain: list[str] = Field([], description="Domain slugs (any of them).")
    org: list[str] = Field([], description="Organisation slugs (any of them).")
    severity: list[str] = Field([], description="Severities: critical, major, minor, unknown.")
    date_from: str | None = Field(None, alias="from", description="Earliest date, YYYY-MM-DD.")
    date_to: str | None = Field(None, alias="to", description="Latest date, YYYY-MM-DD.")
    sort: str | None = Field(None, description="newest (default), oldest, or relevance.")
    page: str | None = Field(None, description="Page number, from 1; 20 cases a page.")


assert set(FACETS) <= set(CaseFilters.model_fields), "every facet of the list is documented"


class SearchAnswer(Schema):
    answered: str = Field(description="all, corrected, partial or none.")
    corrected: dict[str, str] | None = None


class CaseList(Schema):
    count: int
    page: int
    pages: int
    next: str | None
    previous: str | None
    notices: list[str] = Field(description="What of the query string was not understood.")
    search: SearchAnswer | None
    results: list[dict] = Field(description="Cases in the exchange format.")


class Gone(Schema):
    id: str
    status: str = Field(description="withdrawn")


class Merged(Schema):
    id: str
    status: str = Field(description="merged")
    merged_into: str = Field(description="The case it was merged into, its duplicate.")


class Problem(Schema):
    detail: str = Field(description="What went wrong, for a person to read.")


@router.get(
    "/cases",
    response=CaseList,
    summary="List and search the public cases",
    operation_id="list_cases",
)
@decorate_view(cache_public_page)
def list_cases(request, filters: Query[CaseFilters]):
    """The public cases the filters select, 20 a page, newest first (or as `sort` says),
    ties broken by id so that pages never overlap. Filters of one facet are ORed, facets
    ANDed, as on the public list."""
    return json(list_in_exchange_format(request))


@router.get(
    "/cases/{case_id}",
    operation_id="get_case",
    response={200: dict, 301: Merged, 404: Problem, 410: Gone},
    summary="One case in the exchange format",
)
@decorate_view(cache_public_page)
def get_case(request, case_id: str):
    """A public case; a withdrawn one answers 410 with its id; one merged into another as its
    duplicate answers 301 to that case, with both ids."""
    if not CASE_ID_RE.fullmatch(case_id):  # what the public site's address takes
        raise Http404(f"No published case {case_id}")
    status, data = case_in_exchange_format(case_id)
    response = json(data, status)
    if status == 301:
        response["Location"] = request.path.removesuffix(case_id) + data["merged_into"]
    return response


class TermOut(Schema):
    vocabulary: str
    slug: str
    label: dict[str, str]
    description: dict[str, str]
    aliases: dict[str, list[str]]
    cases: int = Field(description="Public cases with the term.")


class NamesPage[Item](Schema):
    """A page of terms or organisations."""

    count: int
    page: int
    pages: int
    results: list[Item]


def names_page(request, rows, count):
    number = page_number(request.GET.get("page")) or 1
    pages = max(1, -(-count // NAMES_PER_PAGE))
    number = min(number, pages)
    start = (number - 1) * NAMES_PER_PAGE
    return number, pages, rows[start : start + NAMES_PER_PAGE]


@router.get(
    "/terms",
    response=NamesPage[TermOut],
    summary="The taxonomy's public terms",
    operation_id="list_terms",
)
@decorate_view(cache_public_page)
def list_terms(request, page: str | None = None):
    """Every term some public case has, by vocabulary and slug, with labels in both
    languages and the number of public cases that have it."""
    page_shows(listing=True)
    public = Case.objects.public()
    counts = dict(
        Term.objects.public()
        .annotate(
            listed=Count("cases", filter=Q(cases__in=public), distinct=True)
            + Count("caused_cases", filter=Q(caused_cases__in=public), distinct=True)
        )
        .values_list("pk", "listed")
    )
    order = {row.value: position for position, row in enumerate(VOCABULARIES)}
    terms = sorted(
        Term.objects.filter(pk__in=counts), key=lambda t: (order.get(t.vocabulary, 99), t.slug)
    )
    number, pages, shown = names_page(request, terms, len(terms))
    results = [
        {
            "vocabulary": term.vocabulary,
            "slug": term.slug,
            "label": both_languages(term, "label"),
            "description": both_languages(term, "description"),
            "aliases": {lang: term.alias_list(lang) for lang in ("en", "ko")},
            "cases": counts[term.pk],
        }
        for term in shown
    ]
    return json({"count": len(terms), "page": number, "pages": pages, "results": results})


def organisation_pages(request, org):
    pages = {}
    for language in ("en", "ko"):
        with translation.override(language):
            pages[language] = request.build_absolute_uri(org.get_absolute_url())
    return pages


def both_languages(thing, field):
    return {lang: getattr(thing, f"{field}_{lang}") or "" for lang in ("en", "ko")}


class OrganisationOut(Schema):
    slug: str
    name: str
    name_ko: str = Field(description="Its name in Korean; empty when it has none.")
    aliases: dict[str, list[str]]
    links: list[str] = Field(description="Its website, Wikipedia article or status page.")
    page: dict[str, str] = Field(description="Its public page, in each language.")
    cases: int = Field(description="Its public cases.")


@router.get(
    "/organisations",
    response=NamesPage[OrganisationOut],
    summary="The public organisations",
    operation_id="list_organisations",
)
@decorate_view(cache_public_page)
def list_organisations(request, page: str | None = None):
    """Every organisation some public case is of, by name, with its public cases' count."""
    page_shows(listing=True)
    organisations = list(
        Organisation.objects.annotate(
            listed=Count("cases", filter=Q(cases__in=Case.objects.public()))
        )
        .filter(listed__gt=0)
        .order_by("name", "slug")
    )
    number, pages, shown = names_page(request, organisations, len(organisations))
    results = [
        {
            "slug": org.slug,
            "name": org.name,
            "name_ko": org.name_ko,
            "aliases": {lang: org.alias_list(lang) for lang in ("en", "ko")},
            "links": org.links,
            "page": organisation_pages(request, org),
            "cases": org.listed,
        }
        for org in shown
    ]
    return json({"count": len(organisations), "page": number, "pages": pages, "results": results})
