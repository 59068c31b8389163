"""Facet counts, counted the way faceted search counts.

A facet's counts apply every filter except that facet's own selection, so a reader can
add a second value of a facet they already chose. Facets whose other filters are the same
share one aggregate query.
"""

from collections import defaultdict
from dataclasses import dataclass, field

from django.core.cache import cache
from django.db.models import Count
from django.utils.translation import get_language

from .caching import public_version
from .filters import FACETS
from .models import SLUG_RE, Case, CaseTerm, Organisation, Term, Vocabulary

FACET_LIMIT = 12  # values shown per facet before "show all"


@dataclass
class FacetValue:
    slug: str
    label: str
    count: int
    selected: bool
    obj: object = None


@dataclass
class Facet:
    name: str  # the query parameter
    label: str
    values: list[FacetValue] = field(default_factory=list)

    @property
    def selected(self):
        return [value for value in self.values if value.selected]

    expanded: bool = False

    @property
    def available(self):
        """Terms with cases to show, and any selected term even at zero."""
        return [value for value in self.values if value.count or value.selected]

    @property
    def shown(self):
        """The most frequent values (and every selected one) unless the reader asked for all."""
        available = self.available
        if self.expanded or len(available) <= FACET_LIMIT + 2:
            return available
        top = available[:FACET_LIMIT]
        return top + [value for value in available[FACET_LIMIT:] if value.selected]

    @property
    def hidden_count(self):
        return len(self.available) - len(self.shown)


def facet_counts(filterset, terms, public_queryset):
    """Counts for every facet: {facet name: {slug: count}}."""
    groups = defaultdict(list)  # queryset key -> facet names sharing it
    querysets = {}
    for name in FACETS:
        others = filterset.without(name) if filterset.selected(name) else filterset
        key = frozenset(
            (k, tuple(v)) for k, v in others.data.lists() if k in FACETS or k in ("q", "from", "to")
        )
        groups[key].append(name)
        querysets[key] = others.qs if others.is_valid() else public_queryset.none()

    term_slugs = {term.pk: term.slug for term in terms}
    counts = {name: {} for name in FACETS}
    # Term counts within the list itself, for "most common components in these cases":
    # the group of the whole filter counts every vocabulary, selected or not, in its one query.
    full_key = frozenset(
        (k, tuple(v)) for k, v in filterset.data.lists() if k in FACETS or k in ("q", "from", "to")
    )
    querysets.setdefault(full_key, filterset.qs if filterset.is_valid() else public_queryset.none())
    groups.setdefault(full_key, [])
    within = {}
    for key, names in groups.items():
        cases = querysets[key].order_by().values("pk")
        vocabularies = [
            FACETS[n] for n in names if FACETS[n] and FACETS[n] != Vocabulary.ROOT_CAUSE
        ]
        if key == full_key:
            vocabularies = [v for v in FACETS.values() if v and v != Vocabulary.ROOT_CAUSE]
        if vocabularies:
            rows = (
                CaseTerm.objects.filter(case__in=cases, term__vocabulary__in=vocabularies)
                .order_by()
                .values("term_id", "term__vocabulary")
                .annotate(n=Count("case_id"))
            )
            by_vocabulary = {FACETS[n]: n for n in names if FACETS[n]}
            for row in rows:
                slug = term_slugs.get(row["term_id"], "")
                if key == full_key:
                    within[(row["term__vocabulary"], slug)] = row["n"]
                name = by_vocabulary.get(row["term__vocabulary"])
                if name:
                    counts[name][slug] = row["n"]
        # Columns of the case itself: grouped on the filtered cases directly, by id, so
        # the query reads one table (and, on PostgreSQL, a status-led index).
        for name, column in (
            ("cause", "root_cause_id"),
            ("org", "org_id"),
            ("severity", "severity"),
        ):
            if name in names:
                rows = (
                    querysets[key]
                    .exclude(**{f"{column}__isnull": True})
                    .order_by()
                    .values(column)
                    .annotate(n=Count("pk"))
                )
                counts[name] = {row[column]: row["n"] for row in rows}
    counts["cause"] = {term_slugs.get(pk, ""): n for pk, n in counts["cause"].items()}
    return counts, within


def build_facets(filterset, terms, public_queryset):
    """The facets, and the term counts within the listed cases themselves."""
    counts, within = facet_counts(filterset, terms, public_queryset)
    by_vocabulary = defaultdict(list)
    for term in terms:
        by_vocabulary[term.vocabulary].append(term)
    org_rows = Organisation.objects.filter(pk__in=counts["org"].keys())
    # Only slugs reach the database: a value with a NUL byte would be refused by PostgreSQL.
    selected_orgs = [slug for slug in filterset.selected("org") if SLUG_RE.match(slug)]
    org_rows |= Organisation.objects.filter(slug__in=selected_orgs)
    by_pk = {org.pk: org for org in org_rows}
    counts["org"] = {by_pk[pk].slug: n for pk, n in counts["org"].items() if pk in by_pk}
    orgs = {org.slug: org for org in by_pk.values()}
    # Selected organisations that no case has any more still show, so they can be removed.
    for slug in filterset.selected("org"):
        orgs.setdefault(slug, None)

    facets = []
    for name, vocabulary in FACETS.items():
        selected = set(filterset.selected(name))
        label = filterset.filters[name].label
        if vocabulary:
            values = [
                FacetValue(t.slug, t.label, counts[name].get(t.slug, 0), t.slug in selected, t)
                for t in by_vocabulary[vocabulary]
            ]
        elif name == "org":
            values = [
                FacetValue(
                    slug,
                    org.name if org else slug,
                    counts["org"].get(slug, 0),
                    slug in selected,
                    org,
                )
                for slug, org in orgs.items()
            ]
        else:
            values = [
                FacetValue(value, str(label_), counts["severity"].get(value, 0), value in selected)
                for value, label_ in Case.Severity.choices
            ]
        known = {value.slug for value in values}
        values += [FacetValue(slug, slug, 0, True) for slug in selected - known]
        if name != "severity":  # severities keep their own order, low to critical
            values.sort(key=lambda v: (-v.count, v.label.casefold()))
        expanded = name in filterset.data.getlist("expand")
        facets.append(Facet(name, label, values, expanded=expanded))
    return facets, within


def public_terms():
    """Every term, cached until the public content changes (labels are part of it)."""
    key = f"terms:{public_version()}:{get_language()}"
    terms = cache.get(key)
    if terms is None:
        terms = list(Term.objects.order_by("vocabulary", "slug"))
        cache.set(key, terms, 60 * 60)
    return terms
