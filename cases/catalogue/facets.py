"""The list's facets as readers see them: each value with its label, its count and whether
it is selected, counted by the catalogue query (cases.catalogue.query) the way faceted
search counts: a facet's counts ignore the facet's own selection."""

from collections import defaultdict
from dataclasses import dataclass, field

from django.utils.translation import get_language

from cases.catalogue.filters import FACETS
from cases.models import Case

FACET_LIMIT = 12  # values shown per facet before "show all"


@dataclass
class FacetValue:
    slug: str
    label: str
    count: int
    selected: bool
    obj: object = None  # the Term or OrganisationName; None for a severity or an unknown value


# Chips of one facet shown before the rest fold away: a list may select twenty values.
CHIPS_SHOWN = 5


@dataclass
class Facet:
    name: str  # the query parameter
    label: str
    values: list[FacetValue] = field(default_factory=list)

    @property
    def selected(self):
        return [value for value in self.values if value.selected]

    @property
    def chips(self):
        """The selected values shown as chips; the rest fold away (`folded`)."""
        return self.selected[:CHIPS_SHOWN]

    @property
    def folded(self):
        return self.selected[CHIPS_SHOWN:]

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

    @property
    def unknown(self):
        """The selected values that name nothing the public may see."""
        if self.name == "severity":
            return [
                v.slug for v in self.values if v.selected and v.slug not in Case.Severity.values
            ]
        return [v.slug for v in self.values if v.selected and v.obj is None]


def build_facets(query, counts):
    """Every facet of a CatalogueQuery, from its counts ({facet name: {slug: count}})."""
    filterset, index = query.filterset, query.index
    by_vocabulary = defaultdict(list)
    for term in query.terms:
        by_vocabulary[term.vocabulary].append(term)
    term_labels, org_names = index.labels(get_language())
    orgs = {slug: index.organisation_named(slug) for slug in counts["org"]}
    # Selected organisations that no public case has (any more) still show, so they can be
    # removed, by their slug alone: nothing the public may not see is named.
    for slug in filterset.selected("org"):
        orgs.setdefault(slug, index.organisation_named(slug))

    facets = []
    for name, vocabulary in FACETS.items():
        selected = set(filterset.selected(name))
        label = filterset.filters[name].label
        if vocabulary:
            values = [
                FacetValue(
                    t.slug, term_labels[t.pk], counts[name].get(t.slug, 0), t.slug in selected, t
                )
                for t in by_vocabulary[vocabulary]
            ]
        elif name == "org":
            values = [
                FacetValue(
                    slug,
                    org_names[slug] if org else slug,
                    counts[name].get(slug, 0),
                    slug in selected,
                    org,
                )
                for slug, org in orgs.items()
            ]
        else:
            values = [
                FacetValue(value, str(label_), counts[name].get(value, 0), value in selected)
                for value, label_ in Case.Severity.choices
            ]
        known = {value.slug for value in values}
        values += [FacetValue(slug, slug, 0, True) for slug in selected - known]
        if name != "severity":  # severities keep their own order, low to critical
            values.sort(key=lambda v: (-v.count, v.label.casefold()))
        expanded = name in filterset.data.getlist("expand")
        facets.append(Facet(name, label, values, expanded=expanded))
    return facets
