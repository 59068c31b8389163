"""Organisations' public pages: one for each organisation some public case is of (its names,
links and public cases, as the list shows them), and an index of them.

An organisation only drafts name is unknown to the public (404); the slug of one merged into
another leads to the survivor's page (301), as the list's `?org=` filter does.
"""

from django.db.models import Count
from django.http import Http404, HttpResponsePermanentRedirect, QueryDict
from django.shortcuts import render
from django.views.decorators.http import require_safe

from cases.caching import cache_public_page, page_shows
from cases.catalogue.cards import listed_cards
from cases.catalogue.list_blocks import cards_block
from cases.catalogue.listing import rendered_cards
from cases.catalogue.query import CatalogueQuery
from cases.models import CaseQuerySet, Organisation, OrganisationRedirect
from cases.public.views import list_shows
from cases.rules import is_slug


def public_organisation(slug):
    """(the public organisation with this slug, None) or (None, the survivor's address) for
    an old slug; Http404 for any other."""
    if not is_slug(slug):
        raise Http404("Not a slug")
    org = Organisation.objects.public().filter(slug=slug).first()
    if org is not None:
        return org, None
    redirect = (
        OrganisationRedirect.objects.filter(
            old_slug=slug, organisation__in=Organisation.objects.public()
        )
        .select_related("organisation")
        .first()
    )
    if redirect is None:
        raise Http404(f"No public organisation {slug}")
    return None, redirect.organisation.get_absolute_url()


@require_safe
@cache_public_page
def organisation_detail(request, slug):
    org, moved_to = public_organisation(slug)
    if moved_to:
        return HttpResponsePermanentRedirect(moved_to)
    filters = QueryDict(mutable=True)
    filters["org"] = org.slug
    query = CatalogueQuery(filters)
    page = query.page(request.GET.get("page"))
    page.object_list = listed_cards(
        page.object_list, render_missing=lambda pks: rendered_cards(pks, query.terms, None)
    )
    context = {"org": org, "page": page, "list_query": filters.urlencode()}
    response = render(request, "cases/organisation.html", context)
    cards = cards_block(response.content, page.object_list)
    list_shows(query, page, counted=False, mendable=cards)
    return response


@require_safe
@cache_public_page
def organisation_index(request):
    """Every public organisation with its number of public cases, by name."""
    organisations = (
        Organisation.objects.public()
        .annotate(public_cases=Count("cases", filter=CaseQuerySet.is_public("cases")))
        .order_by("name")
    )
    page_shows(listing=True, counted=True)
    return render(request, "cases/organisation_index.html", {"organisations": organisations})
