from django.contrib.sitemaps import Sitemap
from django.urls import reverse

from cases.models import Case, Organisation

from .languages import annotated_languages, with_written_languages


class CaseSitemap(Sitemap):
    """A case under each language it is written in, and only those (public.languages);
    its x-default only when it is written in the default language."""

    i18n = True
    alternates = True
    x_default = True
    changefreq = "monthly"
    limit = 5000

    def items(self):
        return with_written_languages(
            Case.objects.public()
            .order_by("public_id")
            .only("public_id", "updated_at", "published_at")
        )

    def get_languages_for_item(self, case):
        return annotated_languages(case)

    def location(self, case):
        return reverse("cases:detail", args=[case.public_id])

    def lastmod(self, case):
        return case.updated_at or case.published_at


class ListSitemap(Sitemap):
    i18n = True
    alternates = True
    x_default = True
    changefreq = "daily"
    priority = 1.0

    def items(self):
        return ["cases:list"]

    def location(self, name):
        return reverse(name)


class OrganisationSitemap(Sitemap):
    """The page of each organisation some public case is of, in both languages (its page
    is the site's own writing, with the name in each language where it has one)."""

    i18n = True
    alternates = True
    x_default = True
    changefreq = "weekly"
    limit = 5000

    def items(self):
        return Organisation.objects.public().order_by("slug").only("slug")

    def location(self, org):
        return reverse("cases:organisation", args=[org.slug])
