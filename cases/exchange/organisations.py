"""Which organisation an incoming case means: the one rule for knowing an organisation by
what a file calls it.

A case names its organisation by a slug and a name (the exchange format's `org_slug` and
`org`). It means an organisation already known, in the library or earlier in the same run,
when either is one of its names: its slug or the old slug of one merged into it, or its
name, Korean name or an alias, equal after `name_key` (case, spaces and punctuation aside:
"Gitlab" is "GitLab", "Lets Encrypt" is "Let's Encrypt"). Otherwise it is a new
organisation, which later cases of the run may match in turn.

The case is then stored as the matched organisation's, under its name and slug, so that
exporting it and importing the export again changes nothing.
"""

from dataclasses import dataclass

from cases.models import Organisation, OrganisationRedirect
from cases.rules import LANGUAGES, name_key


@dataclass(frozen=True)
class Match:
    """A case's organisation, as the case spelled it and as it was found."""

    given_name: str
    given_slug: str
    name: str
    slug: str

    def __str__(self):
        return f"{self.given_name} → {self.name} ({self.slug})"


SLUGS_LOOKED_UP = 8


class OrganisationMatcher:
    """Every known organisation by each of its names; `resolve` a case's against them."""

    def __init__(self):
        self.by_slug = {}  # slug -> (name, slug); old slugs too
        self.by_key = {}  # name_key of a name, alias or slug -> (name, slug)
        self.matches = {}  # (given name, given slug) -> Match, for the report
        self.loaded = False
        self.looked_up = 0  # slugs asked of the database one by one, before loading all

    def load(self):
        """Learn the library's organisations, at the first valid case (an input with none
        asks nothing of the database)."""
        self.loaded = True
        known = Organisation.objects.only(
            "slug", "name", "name_ko", "aliases_en", "aliases_ko"
        ).order_by("pk")
        for org in known:
            aliases = [alias for language in LANGUAGES for alias in org.alias_list(language)]
            self.learn(org.name, org.slug, [org.name_ko, *aliases])
        for redirect in OrganisationRedirect.objects.select_related("organisation"):
            target = (redirect.organisation.name, redirect.organisation.slug)
            self.by_slug.setdefault(redirect.old_slug, target)
            if key := name_key(redirect.old_name):
                self.by_key.setdefault(key, target)

    def known_slug(self, slug):
        """(name, slug) of the library's organisation whose own slug is `slug`, or None."""
        self.looked_up += 1
        found = Organisation.objects.filter(slug=slug).values_list("name", "slug").first()
        if found is not None:
            self.by_slug[slug] = found = tuple(found)
        return found

    def learn(self, name, slug, other_names=()):
        entry = (name, slug)
        self.by_slug.setdefault(slug, entry)
        for text in (name, slug, *other_names):
            if key := name_key(text):
                self.by_key.setdefault(key, entry)

    def resolve(self, name, slug):
        """(the name, the slug) of the organisation a case naming it `name` (`slug`) means,
        a new one if none is known yet."""
        found = self.by_slug.get(slug)
        if found is None and not self.loaded:
            # A library's own slug wins before any name, so a case naming a known one
            # (nearly every case an editor writes) needs that organisation alone; a run
            # naming many reads them all at once.
            found = self.known_slug(slug) if self.looked_up < SLUGS_LOOKED_UP else None
            if found is None:
                self.load()
                found = self.by_slug.get(slug)
        found = found or self.by_key.get(name_key(name)) or self.by_key.get(name_key(slug))
        if found is None:
            self.learn(name, slug)
            return name, slug
        if (name, slug) != found:
            self.matches.setdefault((name, slug), Match(name, slug, *found))
        return found

    def said(self):
        """What was matched to another spelling, one line each, in a stable order."""
        return [str(match) for _key, match in sorted(self.matches.items())]
