from django.contrib.syndication.views import Feed
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.html import escape
from django.utils.translation import gettext_lazy as _

from cases.markdown import plain
from cases.models import Case

FEED_SIZE = 50


class LatestCasesFeed(Feed):
    feed_type = Atom1Feed
    title = _("Incident Library: newly published cases")
    subtitle = _("Real infrastructure incidents, as they are published in the library.")

    def link(self):
        return reverse("cases:list")

    def items(self):
        return (
            Case.objects.public()
            .select_related("org")
            .order_by("-published_at", "-public_id")[:FEED_SIZE]
        )

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
