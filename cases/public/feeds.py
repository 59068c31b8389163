import re

from django.contrib.syndication.views import Feed
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.html import escape
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from cases.catalogue.bounds import bounded
from cases.catalogue.filters import FACETS
from cases.catalogue.query import CatalogueQuery
from cases.markdown import plain
from cases.models import Case

FEED_SIZE = 50
# Newest publications first: a reader following a filter sees what was added to it. A
# search's entries know the incident's date, not the publication's: newest incidents first.
FEED_ORDER = ("-published_at", "-public_id")
SEARCH_FEED_ORDER = ("-date", "-public_id")
# What of the list's query string a feed takes: its filters and search, not its page.
FEED_PARAMETERS = (*FACETS, "q", "from", "to")
XML_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")  # not in XML 1.0


class LatestCasesFeed(Feed):
    """The newest published cases, of the list's filters when the address has them
    (`feed.atom?component=dns&org=meta`). Each entry carries the case's own times: when
    it was published and when its text was last updated, as its source or its editors
    say, never when it was imported."""

    feed_type = Atom1Feed
    subtitle = _("Real infrastructure incidents, as they are published in the library.")

    def get_object(self, request):
        data, _left_out = bounded(request.GET)
        data = data.copy()
        for name in list(data):
            if name not in FEED_PARAMETERS:
                del data[name]
        return CatalogueQuery(data)

    def title(self, query):
        selected = [
            f"{name} {', '.join(values)}"
            for name in FEED_PARAMETERS
            if any(values := [XML_UNSAFE.sub("", value) for value in query.data.getlist(name)])
        ]
        title = gettext("Incident Library: newly published cases")
        return f"{title} ({'; '.join(selected)})" if selected else title

    def link(self, query):
        base = reverse("cases:list")
        return f"{base}?{query.data.urlencode()}" if query.data else base

    def items(self, query):
        if not query.valid:
            return []
        with query.planned():
            order = SEARCH_FEED_ORDER if query.searches else FEED_ORDER
            keys = list(query.page(1, size=FEED_SIZE, ordering=order).object_list)
        cases = {case.pk: case for case in Case.objects.filter(pk__in=keys).select_related("org")}
        return [cases[key] for key in keys if key in cases]

    def item_title(self, case):
        return f"{case.public_id}: {case.title}"

    def item_description(self, case):
        # Atom1Feed declares the summary type="html": the summary's Markdown as plain text
        # (feed readers differ in the HTML they accept), escaped.
        return escape(plain(case.summary))

    def item_link(self, case):
        return reverse("cases:detail", args=[case.public_id])

    def item_author_name(self, case):
        return case.org.name

    def item_pubdate(self, case):
        return case.published_at

    def item_updateddate(self, case):
        return case.updated_at or case.published_at
