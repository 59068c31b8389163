from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.contrib.sitemaps.views import sitemap
from django.http import HttpResponse, HttpResponseRedirect
from django.templatetags.static import static
from django.urls import include, path, reverse
from django.views.decorators.http import require_safe
from django.views.generic import RedirectView

from cases.api.app import api
from cases.public import views as case_views
from cases.public.sitemaps import CaseSitemap, ListSitemap, OrganisationSitemap

from .health import healthz

SITEMAPS = {"lists": ListSitemap, "cases": CaseSitemap, "organisations": OrganisationSitemap}

# 403 and 404 are Django's own views rendering templates/403.html and 404.html.
handler400 = "incidentlib.errors.bad_request"
handler500 = "incidentlib.errors.server_error"


@require_safe
def robots_txt(request):
    lines = [
        "User-agent: *",
        "Disallow: /admin/",
        f"Sitemap: {request.build_absolute_uri(reverse('sitemap'))}",
    ]
    return HttpResponse("\n".join(lines) + "\n", content_type="text/plain")


@require_safe
def favicon_ico(request):
    """Browsers ask for /favicon.ico whatever the page links; the icon is an SVG. Not a
    permanent redirect: the file's name changes with its content."""
    return HttpResponseRedirect(static("favicon.svg"))


urlpatterns = [
    path("", case_views.root, name="root"),
    path("healthz", healthz, name="healthz"),
    path("robots.txt", robots_txt, name="robots"),
    path("favicon.ico", favicon_ico, name="favicon"),
    path("sitemap.xml", sitemap, {"sitemaps": SITEMAPS}, name="sitemap"),
    path("admin/", admin.site.urls),
    # The human docs are a page of the site, in the reader's language.
    path("api/v1/docs", RedirectView.as_view(pattern_name="cases:api-docs"), name="api-docs"),
    path("api/v1/", api.urls),
]
urlpatterns += i18n_patterns(path("", include("cases.public.urls")), prefix_default_language=True)
