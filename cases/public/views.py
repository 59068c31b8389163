from dataclasses import dataclass

from django.contrib.auth.views import redirect_to_login
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Q
from django.http import Http404, HttpResponsePermanentRedirect, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import get_language_from_request
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from django.views.decorators.vary import vary_on_headers

from cases.caching import cache_public_page, page_shows
from cases.catalogue.bounds import bounded
from cases.catalogue.changes import ShownSearch, SimilarShown
from cases.catalogue.filters import DATES
from cases.catalogue.list_blocks import JSON_PARAMETERS, EntriesBlock, cards_block
from cases.catalogue.listing import build_listing, with_card_data
from cases.catalogue.paging import facet_filters, faceted
from cases.catalogue.query import CatalogueQuery
from cases.exchange.serialize import case_to_exchange
from cases.models import Case, CaseMerge, CaseQuerySet, CaseRelation, CaseTerm
from cases.public.case_links import LINKED_CASE_FIELDS, block_html, marks, with_block
from cases.public.graph import TABS, build_graph, graph_tab
from cases.public.languages import NOT_WRITTEN_NOTICES, canonical_language, written_languages
from cases.public.provenance import provenance

SIMILAR_CASES = 5
SIMILAR_CANDIDATES = 2000  # most recent cases per term considered for similar cases


@require_safe
@vary_on_headers("Accept-Language")
def root(request):
    """`/` goes to the list in the reader's language."""
    with translation.override(get_language_from_request(request, check_path=False)):
        return redirect("cases:list")


def list_query(request):
    """(the list's query, notices of what was left out of it, None), read from the request's
    bounded query string, which replaces request.GET (the links' template tags read it); or
    (None, None, a 301 to the survivors) for a link naming a merged term or organisation."""
    request.GET, left_out = bounded(request.GET)
    query = CatalogueQuery(request.GET)
    if (survivors := query.survivors()) is not None:
        return None, None, HttpResponsePermanentRedirect(f"{request.path}?{survivors.urlencode()}")
    return query, left_out, None


@require_safe
@cache_public_page
def case_list(request):
    query, left_out, moved = list_query(request)
    if moved:
        return moved
    listing = build_listing(query)
    listing.notices[:0] = left_out
    # Its "Check your own system" shows titles and follow-ups of cases beyond the page.
    checked = listing.check.case_keys() if listing.check else []
    response = render(request, "cases/case_list.html", {"listing": listing, "page": listing.page})
    search = (query.plan, query.ordering) if query.searches else None  # (its cards mark it)
    cards = cards_block(
        response.content, listing.page.object_list, check=listing.check, search=search
    )
    list_shows(query, listing.page, counted=True, also=checked, mendable=cards)
    return response


def list_shows(query, page, *, counted, also=(), mendable=None):
    """Say what a list's page shows (cases.caching.page_shows): the cases on it, and the
    public cases its facets select, with each facet value's count if `counted` (the HTML
    list; its JSON has no counts). A search answered with the cases having only some of its
    words is shown as that partial search, which a case finding every word changes, and a
    word like one it lacked. One answered with its words corrected, or past its first
    page, is rendered afresh after any change. `mendable`: what of the list a change of its
    cases' texts mends (cases.catalogue.list_blocks; a search's must weigh its order)."""
    keys = [getattr(case, "pk", case) for case in page.object_list]
    # What dates select is not in the index: such a list changes with any listed change.
    filters = None
    if query.valid and not any(query.data.get(name) for name in DATES):
        filters = facet_filters(query.filterset, query.index)
    if not query.searches:
        page_shows(
            listing=True,
            filters=filters,
            counted=counted,
            cases=[*keys, *also],
            mendable=mendable,
        )
    elif page.number == 1 and hasattr(query, "matched") and shown_as_planned(query):
        listed = faceted(query.filterset, query.index, query.matched)
        search = ShownSearch(
            query.plan,
            query.ordering,
            query.matched.bits,
            listed.bits,
            keys[-1] if keys else None,
            unfound=query.written_plan if query.outcome else None,
            unknown=tuple(query.unknown_words),
        )
        page_shows(listing=True, cases=[*keys, *also], search=search, mendable=mendable)


def shown_as_planned(query):
    """Whether a search's page is its plan's matches alone: as written, or partial (the
    cases with the most of its words as written, none corrected)."""
    outcome = query.outcome
    return outcome is None or (outcome.mode == "partial" and not outcome.misspelled)


def search_outcome(query):
    """How the list JSON's search was answered: "all" its words as written, "corrected"
    (the words in `corrected` in place of misspelled ones), "partial" (the cases with the
    most words) or "none"; null without a search."""
    if not query.searches:
        return None
    outcome = query.outcome
    if outcome is None:
        return {"answered": "all", "corrected": None}
    return {"answered": outcome.mode, "corrected": outcome.corrected or None}


@require_safe
@cache_public_page
def case_list_json(request):
    """The filtered list in the exchange format, a page at a time (no facets: lighter)."""
    return JsonResponse(list_in_exchange_format(request), json_dumps_params=JSON_PARAMETERS)


def list_in_exchange_format(request):
    """The public cases a request's query string lists, a page of them in the exchange
    format, with links to the next and previous pages: `cases.json` and the API's list."""
    query = CatalogueQuery(request.GET)
    page = query.page()
    base = request.build_absolute_uri(request.path)

    def page_url(number):
        data = request.GET.copy()
        data["page"] = number
        return f"{base}?{data.urlencode()}"

    ids = page.object_list
    # A search's entries are written whole again: their order after a change is not weighed.
    entries = None if query.searches else EntriesBlock(tuple(ids))
    list_shows(query, page, counted=False, mendable=entries)
    by_pk = {case.pk: case for case in Case.objects.for_exchange().filter(pk__in=ids)}
    return {
        "count": page.paginator.count,
        "page": page.number,
        "pages": page.paginator.num_pages,
        "next": page_url(page.next_page_number()) if page.has_next() else None,
        "previous": page_url(page.previous_page_number()) if page.has_previous() else None,
        "notices": [str(notice) for notice in query.notices],
        "search": search_outcome(query),
        "results": [case_to_exchange(by_pk[pk], public=True) for pk in ids],
    }


def merged_into(case):
    """The case a withdrawn case was merged into (cases.editorial.combining), if it was."""
    merge = CaseMerge.objects.filter(absorbed=case.pk).select_related("survivor").first()
    return merge.survivor if merge else None


def public_case(public_id, queryset):
    """A public case, or a withdrawn one (its page answers 410); 404 for any other id."""
    case = queryset.public_or_withdrawn().filter(public_id=public_id).first()
    if case is None:
        raise Http404(f"No published case {public_id}")
    return case


def detail_queryset():
    return with_card_data(Case.objects.all()).prefetch_related("sources")


def related_cases(case, root):
    """The public cases related to this one: its own links in their order, then the
    cases that link to it. Both directions in one query."""
    sides = ("from_case", "to_case")
    public = CaseQuerySet.is_public
    relations = (
        CaseRelation.objects.filter(
            (Q(from_case=case) & public("to_case")) | (Q(to_case=root) & public("from_case"))
        )
        .select_related(*sides)
        .only("position", *sides, *(f"{s}__{f}" for s in sides for f in LINKED_CASE_FIELDS))
    )
    related = [r.to_case for r in relations if r.from_case_id == case.pk]
    related += [r.from_case for r in relations if r.to_case_id == root.pk]
    return list(dict.fromkeys(related))  # a case linked both ways shows once


def recurrence_links(case, root):
    """(the published case this one is a recurrence of, the published cases that are
    recurrences of it), in one query."""
    links = Q(recurrence_of=root)
    if case.recurrence_of_id:
        links |= Q(pk=case.recurrence_of_id)
    linked = list(Case.objects.public().filter(links).only(*LINKED_CASE_FIELDS, "recurrence_of"))
    recurrence_of = next((c for c in linked if c.pk == case.recurrence_of_id), None)
    return recurrence_of, [c for c in linked if c.recurrence_of_id == root.pk]


@require_safe
@cache_public_page
def case_detail(request, public_id):
    case = public_case(public_id, detail_queryset().live())
    page_shows(cases=[case.pk])
    if case.status == Case.Status.WITHDRAWN:
        if survivor := merged_into(case):  # one incident, told once, at the survivor's page
            return HttpResponsePermanentRedirect(case_url(survivor))
        return render(request, "cases/case_gone.html", {"case": case}, status=410)
    return render_case(request, case)


@never_cache
@require_safe
def case_preview(request, pk):
    """A draft or a pending revision as the public will see it: staff only, never cached."""
    if not request.user.is_active or not request.user.has_perm("cases.view_case"):
        return redirect_to_login(request.get_full_path(), reverse("admin:login"))
    case = detail_queryset().filter(pk=pk).first()
    if case is None:
        raise Http404("No such case")
    return render_case(request, case, preview=True)


def render_case(request, case, *, preview=False):
    root = case.root
    recurrence_of, recurrences = recurrence_links(case, root)
    # A page in a language the case is not written in says so, and names the page in its
    # written language as canonical (public.languages).
    language = translation.get_language()
    written_in = canonical_language(case, language)
    with translation.override(written_in):
        permalink = request.build_absolute_uri(case_url(root))
    context = {
        "case": case,
        "preview": preview,
        "related": related_cases(case, root),
        "recurrences": recurrences,
        "recurrence_of": recurrence_of,
        "permalink": permalink,
        "alternate_languages": written_languages(case),
        "not_written_notice": NOT_WRITTEN_NOTICES.get((language, written_in)),
        "shown_in": written_in if written_in != language else None,
    }
    # A case the page links already is no news among its similar ones.
    linked = [*context["related"], *recurrences, recurrence_of]
    similar = similar_cases(root, linked={other.pk for other in linked if other is not None})
    context["similar"] = similar.cases
    context["bibtex"] = bibtex(case, context["permalink"])
    context["provenance"] = provenance(case)
    linked += context["similar"]
    links = {
        "recurrence_of": recurrence_of,
        "recurrences": recurrences,
        "related": context["related"],
        "similar": context["similar"],
    }
    context["linked_cases"] = block_html(**links)
    response = render(request, "cases/case_detail.html", {**context, **marks()})
    response.content, block = with_block(response.content, own={case.pk, root.pk}, **links)
    page_shows(
        cases=[root.pk, *(other.pk for other in linked if other is not None)],
        similar=similar.shown,
        mendable=block,
    )
    return response


def bibtex(case, permalink):
    def braced(text):
        # BibTeX groups on braces; strip unbalanced ones rather than break the entry.
        return text.replace("{", "(").replace("}", ")").replace("\\", "/")

    title = braced(case.title_en or case.title_ko)
    return (
        f"@misc{{{case.public_id},\n"
        f"  title = {{{title}}},\n"
        f"  author = {{{{Incident Library}}}},\n"
        f"  howpublished = {{\\url{{{permalink}}}}},\n"
        f"  year = {{{case.date.year}}},\n"
        f"  note = {{Case {case.public_id}: {braced(case.org.name)}}}\n"
        "}"
    )


def case_url(case):
    return reverse("cases:detail", args=[case.public_id])


@dataclass
class Similar:
    """A case's similar cases, and what a change must do to change them (SimilarShown)."""

    cases: list
    shown: SimilarShown | None


def similar_cases(case, limit=SIMILAR_CASES, linked=frozenset()):
    """Published cases that share the most terms with this one, but those in `linked` (the
    primary keys of the cases its page links as related or recurrences).

    Each term contributes its most recent SIMILAR_CANDIDATES cases, so the work is bounded
    however many cases a common term has: a case's count is the number of its terms in
    whose recent cases it is. Below that many cases a term (every library we know) this
    is exactly the number of shared terms.
    """
    term_ids = [ct.term_id for ct in case.case_terms.all()]
    if not term_ids:
        return Similar([], None)
    recent = " UNION ALL ".join(
        f"SELECT case_id FROM (SELECT case_id FROM {CaseTerm._meta.db_table} "
        f"WHERE term_id = %s AND case_id <> %s ORDER BY case_id DESC LIMIT %s) AS term{index}"
        for index in range(len(term_ids))
    )
    query = (
        f"SELECT case_id, COUNT(*) AS shared FROM ({recent}) AS candidates "
        "GROUP BY case_id ORDER BY shared DESC, case_id DESC LIMIT %s"
    )
    params = [value for term_id in term_ids for value in (term_id, case.pk, SIMILAR_CANDIDATES)]
    # A few more than needed, since some may be unpublished, and the linked ones go.
    compared = limit * 4 + len(linked)
    params.append(compared)
    with connections[case._state.db or DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute(query, params)
        shared = dict(cursor.fetchall())
    cases = (
        Case.objects.public()
        .filter(pk__in=shared.keys() - set(linked))
        .select_related("org")
        .only(*LINKED_CASE_FIELDS, "org__name")
    )
    cases = sorted(cases, key=lambda c: (-shared[c.pk], -c.date.toordinal()))[:limit]
    # Another case comes onto a full list only with as many shared terms as its last, and
    # with as many only if more recent, unless a newer key would push one out of those
    # compared (the query's LIMIT, ordered by count and key).
    full = len(cases) == limit
    at_least = shared[cases[-1].pk] if full else 1
    spare = compared - sum(count >= at_least for count in shared.values())
    last_date = cases[-1].date.isoformat() if full else None
    shown = frozenset(c.pk for c in cases)
    return Similar(
        cases, SimilarShown(frozenset(term_ids), at_least, shown, last_date=last_date, spare=spare)
    )


@require_safe
@cache_public_page
def case_detail_json(request, public_id):
    status, data = case_in_exchange_format(public_id)
    response = JsonResponse(data, status=status, json_dumps_params={"ensure_ascii": False})
    if status == 301:
        response["Location"] = reverse("cases:detail-json", args=[data["merged_into"]])
    return response


def case_in_exchange_format(public_id):
    """(status, data): a public case in the exchange format (200), a merged one's id and
    the id it was merged into (301: the caller says where), or a withdrawn one's id (410);
    Http404 for any other id. `<id>.json` and the API's case."""
    case = public_case(public_id, Case.objects.live().for_exchange())
    page_shows(cases=[case.pk])
    if case.status == Case.Status.WITHDRAWN:
        if survivor := merged_into(case):
            merged = {"status": "merged", "merged_into": survivor.public_id}
            return 301, {"id": case.public_id, **merged}
        return 410, {"id": case.public_id, "status": "withdrawn"}
    return 200, case_to_exchange(case, public=True)


@require_safe
@cache_public_page
def graph(request):
    request.GET, left_out = bounded(request.GET)
    tab = graph_tab(request.GET.get("tab"))
    query = CatalogueQuery(request.GET)
    data = build_graph(tab, query)
    filters = request.GET.copy()
    filters.pop("tab", None)
    context = {
        "graph": data,
        "tab": tab,
        "tabs": TABS,
        "notices": left_out + query.notices,
        "links": data.strongest_links(),
        "filters_query": filters.urlencode(),
        "json_url": f"{reverse('cases:graph-json')}?{request.GET.urlencode()}",
    }
    return render(request, "cases/graph.html", context)


@require_safe
@cache_public_page
def graph_json(request):
    tab = graph_tab(request.GET.get("tab"))
    query = CatalogueQuery(request.GET)
    data = build_graph(tab, query).as_json()
    data["notices"] = [str(notice) for notice in query.notices]
    return JsonResponse(data, json_dumps_params={"ensure_ascii": False})
