"""What each change to the public content changed, written as it is made and read by the
readers' side: each process's facet index follows the changed cases instead of being built
again, and a cached page is dropped only if the change can have changed it (cases.caching).

A writer takes the state of the cases it is about to change (`states_before`) and, in the
same transaction after its writes, calls cases.caching.public_content_changed with it: the
states after are read, and a row for each case goes with the new version. The cases linked
to or from a changed case are changed too (their pages show its title and whether it is
public). Anything that is not a case's own change (a relabelled term, a renamed
organisation, a large import) is written as a change of everything.
"""

from dataclasses import dataclass

from django.db.models import Q

from cases.catalogue import shown_texts
from cases.models import Case, CaseRelation, CaseTerm, PublicChange

# Changes of more cases than this are recorded as a change of everything: a process
# builds its index again rather than follow them, and every cached page goes.
MOST_CASES = 500
# The rows of so many past versions are kept; a process or page older than that starts
# afresh. Pruned now and then as versions are written.
KEEP_VERSIONS = 20_000
PRUNE_EVERY = 200


@dataclass(frozen=True)
class CaseState:
    """What lists count and sort a case by, and what it links to, as the public sees it."""

    public: bool
    org_id: int | None
    root_cause_id: int | None
    date: object
    severity: str
    terms: frozenset
    links: frozenset
    # What it shows on other pages, by language (shown_texts.shown_by_language).
    shown: tuple = ()

    def listed_as(self):
        return (
            (self.org_id, self.root_cause_id, self.date, self.severity, self.terms)
            if self.public
            else None
        )

    def facets(self):
        """The values the list's facets filter it by, as a change row keeps them; None for
        a case the public does not see."""
        if not self.public:
            return None
        return {
            "org": self.org_id,
            "cause": self.root_cause_id,
            "severity": self.severity,
            "term": sorted(self.terms),
            "date": self.date.isoformat() if self.date else None,  # (SimilarShown)
        }


STATE_COLUMNS = ("pk", "status", "org_id", "root_cause_id", "date", "severity", "recurrence_of")


def states(pks, using):
    """{pk: CaseState} of the cases with these primary keys that exist."""
    pks = list(pks)
    if not pks:
        return {}
    wanted = set(pks)
    # The cases and those that recur as one of them, in one query: a correction reads this
    # twice, and each query costs its editor more to compile than the database to answer.
    rows, recurring, shown = [], [], {}
    for values in (
        Case.objects.using(using)
        .filter(Q(pk__in=pks) | Q(recurrence_of__in=pks))
        .values(*dict.fromkeys([*STATE_COLUMNS, *shown_texts.COLUMNS]))
    ):
        pk, recurrence_of = values["pk"], values["recurrence_of"]
        if pk in wanted:
            rows.append(tuple(values[column] for column in STATE_COLUMNS))
            shown[pk] = tuple(values[column] for column in shown_texts.COLUMNS)
        if recurrence_of in wanted:
            recurring.append((recurrence_of, pk))
    steps = shown_texts.steps_of(pks, using)
    terms, links = {}, {}
    for case_id, term_id in (
        CaseTerm.objects.using(using).filter(case__in=pks).values_list("case_id", "term_id")
    ):
        terms.setdefault(case_id, set()).add(term_id)
    for a, b in (
        CaseRelation.objects.using(using)
        .filter(Q(from_case__in=pks) | Q(to_case__in=pks))
        .values_list("from_case_id", "to_case_id")
    ):
        for one, other in ((a, b), (b, a)):
            if one in wanted:
                links.setdefault(one, set()).add(other)
    for case_id, recurrence in recurring:
        links.setdefault(case_id, set()).add(recurrence)
    found = {}
    for pk, status, org_id, cause_id, date, severity, recurrence_of in rows:
        linked = links.get(pk, set()) | ({recurrence_of} if recurrence_of else set())
        found[pk] = CaseState(
            public=status == Case.Status.PUBLISHED,
            org_id=org_id,
            root_cause_id=cause_id,
            date=date,
            severity=severity,
            terms=frozenset(terms.get(pk, ())),
            links=frozenset(linked),
            shown=shown_texts.shown_by_language(shown[pk], steps.get(pk, ())),
        )
    return found


def states_before(pks, using="default"):
    """The states of these cases before a change, for public_content_changed(before=...)."""
    pks = set(pks)
    if len(pks) > MOST_CASES:
        return None
    return {"pks": pks, "states": states(pks, using)}


def rows_for(version, before, using):
    """The PublicChange rows of a change of the cases in `before` (states_before), now
    written: one for each changed case and each case linked to it, or one for everything."""
    if before is None:
        return [PublicChange(version=version, case_id=None)]
    after = states(before["pks"], using)
    rows, linked, moved = {}, set(), set()
    for pk in before["pks"]:
        old, new = before["states"].get(pk), after.get(pk)
        listed = (old.listed_as() if old else None) != (new.listed_as() if new else None)
        links = [state.links if state is not None else frozenset() for state in (old, new)]
        linked |= links[0] | links[1]
        # A case whose link to this one came or went, or that links to it as it came or
        # went, is changed itself: its page lists other cases than it did.
        stayed = old is not None and new is not None and old.public and new.public
        moved |= (links[0] ^ links[1]) if stayed else (links[0] | links[1])
        facets = [state.facets() if state else None for state in (old, new)]
        rows[pk] = PublicChange(
            version=version,
            case_id=pk,
            listing=listed,
            facets=facets if listed else [],
            # (a case that came or went changed every language's pages that list it)
            languages=shown_texts.languages_touched(old.shown, new.shown) if stayed else None,
        )
    for pk in linked - set(rows):
        rows[pk] = PublicChange(version=version, case_id=pk, neighbour=pk not in moved)
    return list(rows.values())


def record(version, before, using):
    PublicChange.objects.using(using).bulk_create(rows_for(version, before, using))
    if version % PRUNE_EVERY == 0:
        PublicChange.objects.using(using).filter(version__lte=version - KEEP_VERSIONS).delete()


@dataclass(frozen=True)
class Changes:
    """What the versions after one and up to another changed, taken together."""

    cases: frozenset  # every case changed
    listed: frozenset  # the cases that came, went or changed what lists count them by
    # What lists filtered those cases by before and after (CaseState.facets), each state
    # a public one had.
    listed_as: tuple
    # The cases among `cases` changed only as neighbours (PublicChange.neighbour): their
    # own content is as it was.
    neighbours: frozenset = frozenset()
    # ((language, cases), ...): the cases among `own` whose change touched what they show
    # on other pages in that language (PublicChange.languages); a language not here: all.
    touched_in: tuple = ()

    @property
    def own(self):
        """The cases whose own content changed."""
        return self.cases - self.neighbours

    def own_in(self, language):
        """The cases whose own change touched what they show on other pages (a card, a
        link) in `language`: a page in another language shows none of it."""
        for code, cases in self.touched_in:
            if code == language:
                return cases
        return self.own

    def touch(
        self,
        *,
        cases=(),
        listing=False,
        filters=None,
        counted=True,
        similar=None,
        search=None,
        using="default",
        listed_since_rendered=None,
        search_found=None,
        mended=frozenset(),
    ):
        """Whether a page may have changed that shows `cases`; that lists the public cases
        (`listing`), those its facet `filters` select (see cases.catalogue.paging.
        facet_filters; None: any) with the counts of each facet's values (`counted`); that
        lists a case's `similar` cases (a SimilarShown); or that lists the first matches of
        `search` (a ShownSearch). `listed_since_rendered`: the listed states of the changes
        since the page was rendered (Changes.listed_as), for its similar cases;
        `search_found`: the order keys of its search's ShownSearch.asks, if asked already;
        `mended`: the cases whose changes the page's mendable part answers for (a search
        page's SearchCardsBlock weighs where they are on it)."""
        if self.cases.intersection(cases):
            return True
        # A search lists and counts only what it finds: ShownSearch weighs its listed cases.
        if listing and self.listed and search is None and self._lists(filters, counted):
            return True
        # Every state a listed case had since the page was rendered may have come among
        # its similar cases' compared (SimilarShown.spare); unknown: as many as can be.
        states = len(listed_since_rendered) if listed_since_rendered is not None else None
        if similar is not None and any(
            similar.touched_by(state, using, states) for state in self.listed_as
        ):
            return True
        return (
            search is not None
            and bool(self.cases)
            and search.touched_by(self, using, found=search_found, mended=mended)
        )

    def have_words_like(self, words, using):
        """Whether a case whose own content changed has a word like one of `words`
        (cases.search.typos.alike_in), asked once a span for each set of words."""
        from cases.search.typos import alike_in  # it imports the search rules

        asked = self.__dict__.setdefault("_words_like", {})  # (frozen: set aside)
        key = (using, tuple(words))
        if key not in asked:
            asked[key] = bool(self.own) and alike_in(words, self.own, using)
        return asked[key]

    def _lists(self, filters, counted):
        """Whether a listed case before or after its change is on a list filtered by
        `filters`, or, if the list counts each facet's values over the cases its other
        facets select, counted there: if it misses at most one of the facets."""
        if filters is None:
            return True
        allowed = 1 if counted else 0
        return any(missed(state, filters) <= allowed for state in self.listed_as)


def missed(state, filters):
    """How many of a list's facet filters ((kind, keys) pairs) a case's facets miss."""
    count = 0
    for kind, keys in filters:
        value = state[kind]
        found = not keys.isdisjoint(value) if kind == "term" else value in keys
        count += not found
    return count


@dataclass(frozen=True)
class SimilarShown:
    """The similar cases of a case with `terms`, as its cached page shows them (`shown`,
    their primary keys): a case comes onto them with `at_least` terms in common (as many
    as the last shown, on a full list), and with as many only if it is more recent than
    that one (`last_date`, an ISO date), unless more such cases came than there is room
    for among those compared (`spare`: past it, a case with a newer key pushes one out,
    which may be a shown one). Each term compares only its most recent cases
    (cases.public.views.similar_cases): a case coming or going moves that window, and
    may move a shown case out of it, or an older one into it."""

    terms: frozenset
    at_least: int
    shown: frozenset = frozenset()
    last_date: str | None = None
    spare: int = 0

    def touched_by(self, state, using, states=None):
        """Whether a listed case, in a state it had or has (CaseState.facets), may be
        among the similar cases, or may have been. A case that arrived (it was not public
        before) pushes the oldest case of each of its terms' windows out: that changes
        the page only if a shown case is among the oldest (past the window's edge); a
        case leaving lets an older one in, whatever it shares, and is weighed as before.
        `states`: how many listed states the changes since the page was rendered have,
        each of which may have come among the compared (None: unknown)."""
        shared = self.terms & {*state["term"], state["cause"]}
        if len(shared) > self.at_least:
            return True
        if len(shared) == self.at_least and not self._ranks_below_the_last(state, states):
            return True
        edges = [edge for term in shared if (edge := window_edge(term, using)) is not None]
        if not edges:
            return False
        if state.get("arrived") and self.shown:
            oldest = min(self.shown)
            return any(oldest < edge for edge in edges)
        return True

    def _ranks_below_the_last(self, state, states):
        """Whether a case with as many shared terms as the last shown ranks below it
        (older; a tie may go either way), and it and the others that came with it push
        none of the compared out."""
        date = state.get("date")  # (rows from before dates were kept have none)
        if states is None or states > self.spare:
            return False
        return bool(self.last_date and date and date < self.last_date)


_window_edges = {}  # (alias, version, term) -> key or None: asked once a version a process


def forget_window_edges():
    _window_edges.clear()


def window_edge(term_id, using):
    """The key of the last case in a term's window now (its SIMILAR_CANDIDATES newest by
    key), or None if it has fewer cases: a case older than that has left the window, or
    never was in it; one at the edge or newer was in it before cases arrived too."""
    from cases.caching import public_version  # it imports this module
    from cases.public.views import SIMILAR_CANDIDATES  # it imports the catalogue

    key = (using, public_version(), term_id)
    if key not in _window_edges:
        if len(_window_edges) > 10_000:
            _window_edges.clear()
        _window_edges[key] = (
            CaseTerm.objects.using(using)
            .filter(term_id=term_id)
            .order_by("-case_id")
            .values_list("case_id", flat=True)[SIMILAR_CANDIDATES - 1 : SIMILAR_CANDIDATES]
            .first()
        )
    return _window_edges[key]


@dataclass(frozen=True)
class ShownSearch:
    """The first page of a search, as a cached page shows it: its plan and order, the
    cases it found (bits), those of them the page's filters keep, and the last on it. A
    search that found nothing as written and shows the cases with the most of its words
    (a partial plan) keeps the plan as written (`unfound`): a case it now finds changes
    the page; and its words the library lacked (`unknown`): a word like one of them, now
    in a public case, would correct it."""

    plan: object
    ordering: tuple
    matched: int
    listed: int
    last: int | None
    unfound: object = None
    unknown: tuple = ()

    def asks(self, changed):
        """The (plan, cases) pairs whose order keys (cases.search.query.order_keys) its
        check asks: its plan's of the changed cases and of its last; and, of a search that
        found nothing as written, that plan's of the changed cases."""
        asks = [(self.plan, [*changed, *filter(None, [self.last])])]
        if self.unfound is not None:
            asks.append((self.unfound, list(changed)))
        return asks

    def touched_by(self, changes, using, found=None, mended=frozenset()):
        """Whether changed cases not shown on the page change it: if one came into or
        left the matches, or one it found or finds changed what lists count it by (the
        counts change), or if one the page's filters keep now ranks above its last case;
        or if the search as written now finds one, or one has a word like a word the search
        lacked (Changes.have_words_like). `found`: the order keys of its `asks`, in their
        order, if asked already; `mended`: changed cases on the page whose place on it is
        weighed where it is mended."""
        from cases.search.query import order_keys  # it imports the search rules

        changed = changes.cases
        asks = self.asks(changed)
        found = list(found) if found is not None else [None] * len(asks)

        def keys_of(number):
            if found[number] is None:
                plan, pks = asks[number]
                found[number] = order_keys(plan, pks, self.ordering, using)
            return found[number]

        if self.unfound is not None and keys_of(1):
            return True
        if self.unknown and changes.have_words_like(self.unknown, using):
            return True
        keys = keys_of(0)
        for pk in changed - mended:
            found_before, found_now = bool(self.matched >> pk & 1), pk in keys
            if found_before != found_now or (found_now and pk in changes.listed):
                return True
            if self.listed >> pk & 1 and (
                self.last not in keys or ranks_before(keys[pk], keys[self.last], self.ordering)
            ):
                return True
        return False


def ranks_before(a, b, ordering):
    """Whether values `a` come before `b` in `ordering` ("-name": descending)."""
    for x, y, name in zip(a, b, ordering, strict=True):
        if x != y:
            return x > y if name.startswith("-") else x < y
    return False
