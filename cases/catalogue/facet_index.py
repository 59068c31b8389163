"""Which public cases have each facet value, as bit sets kept in each process's memory.

A facet value's count over some cases is then one AND and one bit count: at 100,000
cases a few milliseconds for every value of every facet, where joining the terms of the
selected cases in SQL took hundreds, growing with the selection. Faceted search engines
count this way.

An index holds one version of the public content (ContentVersion). A request that reads
a newer version follows the cases that changed (cases.catalogue.changes) into a new index:
a few milliseconds. Where that is not known (a relabelled term, a large import), it builds
the index again, from three queries: at 100,000 cases 0.3 to 0.8 s on two-core machines,
once per process after such a change. It keeps the public terms and
organisations too: their labels and names are public content, and a term or organisation
that only drafts have is unknown to the public, so it is not in the index at all.

Bit n of a set stands for the case whose primary key is n: a set takes a bit for every
key up to the largest (12.5 kB at 100,000). A mapping of keys to dense bits would keep
sets small however sparse the keys, but building it cost more than the sets themselves.
"""

import threading
from functools import cached_property
from typing import NamedTuple

from django.db import connections
from django.db.models.functions import ExtractYear
from django.utils.translation import override

from cases.caching import public_version
from cases.catalogue.change_log import changes_between
from cases.catalogue.change_log import forget as forget_changes
from cases.catalogue.changes import MOST_CASES
from cases.catalogue.sharing import shared_or_built
from cases.models import Case, CaseTerm, Organisation, Term, Vocabulary

# The kinds of facet value an index holds, with what keys them: a term's primary key
# ("term" for the vocabularies a case has many of, "cause" for its one root cause), an
# organisation's primary key, a year, a severity.
KINDS = ("term", "org", "cause", "year", "severity")
# The kinds a case has one of, from its own columns.
COLUMNS = {"org": "org_id", "cause": "root_cause_id", "year": "year", "severity": "severity"}


def term_kind(vocabulary):
    """The kind of an index that holds the terms of a vocabulary."""
    return "cause" if vocabulary == Vocabulary.ROOT_CAUSE else "term"


def bit_set(pks):
    """The int with bit n set for each n in `pks`."""
    pks = pks if isinstance(pks, list) else list(pks)
    bits = bytearray(max(pks, default=0) // 8 + 1)
    for pk in pks:
        bits[pk >> 3] |= 1 << (pk & 7)
    return int.from_bytes(bits, "little")


class CaseSet:
    """Some public cases of an index: `&` and `|` combine two sets, len() counts them,
    keys() lists their primary keys.

    A set is an int inside (bit n for the case with key n), and each `&` makes a new
    CaseSet: 1.4 µs instead of 0.5 for the bare ints at 100,000 cases. That is nothing for
    the few hundred sets a request combines; the loops over every value of every facet
    (FacetIndex.counts) and over every pair of terms (overlaps) work on the ints.
    """

    __slots__ = ("bits",)

    def __init__(self, bits=0):
        self.bits = bits

    def __and__(self, other):
        return CaseSet(self.bits & other.bits)

    def __or__(self, other):
        return CaseSet(self.bits | other.bits)

    def __len__(self):
        return self.bits.bit_count()

    def count(self):
        return self.bits.bit_count()

    def __bool__(self):
        return self.bits != 0

    def __eq__(self, other):
        return isinstance(other, CaseSet) and self.bits == other.bits

    def __hash__(self):
        return hash(self.bits)

    def __repr__(self):
        return f"CaseSet({len(self)} cases)"

    def keys(self):
        """The primary keys of the cases in the set, in ascending order."""
        return [n for n, digit in enumerate(bin(self.bits)[:1:-1]) if digit == "1"]


def overlaps(left, right):
    """{(a, b): how many cases both have} for each a of `left` and b of `right` (both
    {key: CaseSet}) that share any: thousands of pairs for the graph, counted on the ints."""
    right = [(b, cases.bits) for b, cases in right.items()]
    pairs = {}
    for a, a_cases in left.items():
        a_bits = a_cases.bits
        for b, b_bits in right:
            if shared := (a_bits & b_bits).bit_count():
                pairs[(a, b)] = shared
    return pairs


class OrganisationName(NamedTuple):
    """What the list shows of an organisation: a model instance each costs more."""

    pk: int
    slug: str
    name: str
    # A default, so that an index an older release shared (without it) still loads.
    name_ko: str = ""

    def shown_name(self, language):
        """The name in a language: the Korean one where there is one, else the name."""
        return self.name_ko if language == "ko" and self.name_ko else self.name


class FacetIndex:
    """The public cases of one version of the content, by facet value, with the public
    terms and organisations. Shared by the requests of a process: never changed."""

    def __init__(self, version, public, sets, terms, organisations, using="default"):
        self.version = version
        self.using = using
        self.public = CaseSet(public)  # every public case
        self._sets = sets  # kind -> key -> the public cases with that value, an int
        # kind -> key -> how many public cases have it (the sets' bit counts)
        self._library = {
            kind: {key: s.bit_count() for key, s in sets[kind].items()} for kind in KINDS
        }
        # Every public term, in the order of the facets' values. A list needs them all:
        # kept here, a request neither queries nor unpickles them.
        self.terms = terms
        self._organisations = {org.pk: org for org in organisations}
        self._organisation_slugs = {org.slug: org for org in organisations}

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("names", None)  # read again where it is needed
        state.pop("_labels", None)
        return state

    def labels(self, language):
        """({term key: label}, {organisation slug: name}) in a language. A list shows and
        sorts every value of its facets by them, and a term's label through its translated
        field costs ten times a dict's lookup: made once a language, and kept by the index
        that follows a change which leaves the terms and organisations as they were."""
        made = self.__dict__.setdefault("_labels", {})
        if language not in made:
            with override(language):
                terms = {term.pk: term.label for term in self.terms}
            organisations = {
                slug: org.shown_name(language) for slug, org in self._organisation_slugs.items()
            }
            made[language] = (terms, organisations)
        return made[language]

    @cached_property
    def names(self):
        """The names readers may search by (cases.search.names), read when a search first
        needs them: a list without one never does."""
        from cases.search.names import name_book  # it imports the models' search rules

        return name_book(self.using, self.terms)

    def organisation(self, pk):
        """The public organisation with this primary key, or None."""
        return self._organisations.get(pk)

    def organisation_named(self, slug):
        """The public organisation with this slug, or None."""
        return self._organisation_slugs.get(slug)

    def organisation_keys(self, slugs):
        """The primary keys of the public organisations with these slugs."""
        return [self._organisation_slugs[s].pk for s in slugs if s in self._organisation_slugs]

    def cases(self, pks):
        """The set of these cases, less any not public when the index was built."""
        return CaseSet(bit_set(pks) & self.public.bits)

    def cases_with(self, kind, keys):
        """The cases with any of these values of one kind."""
        found, sets = 0, self._sets[kind]
        for key in keys:
            found |= sets.get(key, 0)
        return CaseSet(found)

    def cases_with_term(self, term):
        """The cases that have this term (among their terms, or as their cause)."""
        return CaseSet(self._sets[term_kind(term.vocabulary)].get(term.pk, 0))

    def counts(self, selection, kinds=KINDS, term_ids=None):
        """{kind: {key: count}} over the cases in `selection` (a CaseSet), for `kinds`
        only, and only for the terms in `term_ids` if given. Values no selected case has
        are left out."""
        counted = {kind: {} for kind in KINDS}
        bits = selection.bits
        for kind in kinds:
            sets = self._sets[kind]
            keys = sets.keys()
            if kind == "term" and term_ids is not None:
                keys = keys & set(term_ids)
            if bits == self.public.bits:
                counted[kind] = {key: self._library[kind][key] for key in keys}
                continue
            for key in keys:
                if n := (sets[key] & bits).bit_count():
                    counted[kind][key] = n
        return counted


def build(using, version):
    """The index of the public cases now in database `using`, labelled `version`.

    The version is read before the cases: an index can only be newer than its label,
    never older, and a newer label soon replaces it. The cases and their values come from
    one statement, so from one snapshot of the database.
    """
    public_sql, params = (
        Case.objects.using(using)
        .public()
        .order_by()
        .annotate(year=ExtractYear("date"))
        .values("id", "org_id", "root_cause_id", "year", "severity")
        .query.sql_with_params()
    )
    connection = connections[using]
    aggregate = keys_aggregate(connection)
    branches = [f"SELECT 'case', NULL, {aggregate.format('id')} FROM p"]
    branches += [
        f"SELECT '{kind}', CAST({column} AS TEXT), {aggregate.format('id')} FROM p "
        f"GROUP BY {column}"
        for kind, column in COLUMNS.items()
    ]
    # Every use of a term, unpublished cases' too: joining the public ones costs more.
    branches.append(
        f"SELECT 'term', CAST(term_id AS TEXT), {aggregate.format('case_id')} "
        f"FROM {CaseTerm._meta.db_table} GROUP BY term_id"
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH p AS MATERIALIZED ({public_sql}) " + " UNION ALL ".join(branches), params
        )
        rows = cursor.fetchall()
    pks = next((numbers(joined) for kind, _key, joined in rows if kind == "case"), [])
    public = bit_set(pks)
    sets = {kind: {} for kind in KINDS}
    for kind, key, joined in rows:
        if kind != "case" and key is not None:  # cases without a root cause
            cases = bit_set(numbers(joined))
            if kind == "term":
                cases &= public
            if cases:
                sets[kind][key if kind == "severity" else int(float(key))] = cases
    # Asked for as the public may see them (cases.models): an index probe for each term
    # and organisation, about 10 ms more than reading them all at 100,000 cases.
    organisations = public_organisations(using)
    terms = tuple(Term.objects.using(using).public().order_by("vocabulary", "slug"))
    return FacetIndex(version, public, shown_terms_only(sets, terms), terms, organisations, using)


def shown_terms_only(sets, terms):
    """`sets` without the terms the public may not see that public cases still have (those
    an import holds for review): no count, filter or graph reaches them."""
    keys = {term.pk for term in terms}
    for kind in ("term", "cause"):
        sets[kind] = {key: cases for key, cases in sets[kind].items() if key in keys}
    return sets


def public_organisations(using):
    return [
        OrganisationName(*row)
        for row in Organisation.objects.using(using)
        .public()
        .order_by()
        .values_list("pk", "slug", "name", "name_ko")
    ]


def keys_aggregate(connection):
    """SQL that gathers a column's keys into one value, which `numbers` reads back: on
    PostgreSQL an array (read in C, as a list), elsewhere text joined by commas."""
    return "array_agg({})" if connection.vendor == "postgresql" else "group_concat({}, ',')"


def numbers(joined):
    if isinstance(joined, list):
        return joined
    return list(map(int, joined.split(","))) if joined else []


def follow(index, version, pks):
    """A new index at `version`: `index` with the cases in `pks` as they are now.

    Only the sets that held one of the cases, or hold one now, are made anew; the terms
    and organisations are read again only if one came into or left the public (or a
    changed case has a term held for review, which is then left out again). At
    100,000 cases a few milliseconds for a case, against building the index afresh.
    """
    using = index.using
    pks = sorted(pks)
    rows = (
        Case.objects.using(using)
        .public()
        .filter(pk__in=pks)
        .order_by()
        .annotate(year=ExtractYear("date"))
        .values_list("id", "org_id", "root_cause_id", "year", "severity")
    )
    now = {}  # (kind, key) -> bits of the changed cases that have it now
    public = 0
    for pk, *values in rows:
        bit = 1 << pk
        public |= bit
        for kind, key in zip(COLUMNS, values, strict=True):
            if key is not None:
                now[(kind, key)] = now.get((kind, key), 0) | bit
    for pk, term_id in (
        CaseTerm.objects.using(using).filter(case__in=pks).values_list("case_id", "term_id")
    ):
        if public >> pk & 1:
            now[("term", term_id)] = now.get(("term", term_id), 0) | 1 << pk
    changed = bit_set(pks)
    sets = {}
    for kind in KINDS:
        sets[kind] = dict(index._sets[kind])
        for key, cases in index._sets[kind].items():
            if cases & changed:
                sets[kind][key] = cases & ~changed
    for (kind, key), bits in now.items():
        sets[kind][key] = sets[kind].get(key, 0) | bits
    for kind in KINDS:
        sets[kind] = {key: cases for key, cases in sets[kind].items() if cases}
    all_public = (index.public.bits & ~changed) | public

    terms, organisations = index.terms, list(index._organisations.values())
    term_keys = sets["term"].keys() | sets["cause"].keys()
    same_terms = term_keys == {term.pk for term in terms}
    same_organisations = sets["org"].keys() == index._organisations.keys()
    if not same_terms:
        terms = tuple(Term.objects.using(using).public().order_by("vocabulary", "slug"))
    if not same_organisations:
        organisations = public_organisations(using)
    sets = shown_terms_only(sets, terms)
    followed = FacetIndex(version, all_public, sets, terms, organisations, using)
    if same_terms and same_organisations:
        for kept in ("names", "_labels"):  # the same names to search by, the same labels
            if kept in index.__dict__:
                followed.__dict__[kept] = index.__dict__[kept]
    return followed


_indexes = {}  # database alias -> FacetIndex
_building = threading.Lock()


def facet_index(using, version):
    """The index of database `using` at `version` (see cases.caching.public_version): the
    process's index, following the cases changed since its version when they are known
    and few (cases.catalogue.changes), or built afresh (once for every process, where
    they share a cache: cases.catalogue.sharing)."""
    index = _indexes.get(using)
    if index is None or index.version != version:
        with _building:  # threads of one process build it once
            index = _indexes.get(using)
            if index is None or index.version != version:
                changes = None
                if index is not None and index.version < version:
                    changes = changes_between(using, index.version, version)
                if changes is not None and len(changes.cases) <= MOST_CASES:
                    index = follow(index, version, changes.cases)
                else:
                    index = shared_or_built(using, version, build)
                _indexes[using] = index
    return index


def current_facet_index(using):
    """The index of the public content this request reads (see cases.caching)."""
    return facet_index(using, public_version())


def forget():
    """Drop every index, and the searches ranked with them (tests: a rolled-back database
    may reuse a version number)."""
    from cases.catalogue.ranking import forget as forget_searches  # it reads CaseSet

    _indexes.clear()
    forget_searches()
    forget_changes()
