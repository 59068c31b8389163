"""A reader's query: planned (cases.search.parsing), matched against cases and ranked
(cases.search.matching); and the terms and organisations it names, offered as filters."""

import re

from django.db import connections
from django.db.models import OuterRef, Subquery

from cases.rules import LANGUAGES

from .matching import apply_plan
from .parsing import MAX_CLAUSES, clean_query, parse

__all__ = ["clean_query", "matching_entries", "query_words", "search", "suggested_filters"]


def query_words(query):
    """The words a query searches for (none: a query of punctuation, which lists all)."""
    return [word for clause in parse(query).clauses for word in clause.own.words][: MAX_CLAUSES * 4]


def matching_entries(plan, using, *, few=False):
    """The search entries of the public cases that `plan` finds, with their `relevance`
    (`few`: to be narrowed to a few cases by key, cases.search.matching.apply_plan)."""
    from cases.models import SearchEntry

    entries = SearchEntry.objects.using(using).public_for_search()
    return apply_plan(entries, plan, connections[using].vendor, few=few)


# The SQL of a plan's matches, by (plan, ordering, database): a cached search page asks
# order_keys of its plan after every change, in every process, and building the query
# took ten times as long as running it (2 ms against 0.1).
_found_sql = {}
FOUND_SQL_KEPT = 1024


def _found(plan, ordering, using):
    """(sql, params) selecting the case id and `ordering`'s columns of every public case
    `plan` finds."""
    key = (plan, tuple(ordering), using)
    found = _found_sql.get(key)
    if found is None:
        columns = [name.lstrip("-") for name in ordering]
        rows = matching_entries(plan, using, few=True).values_list("case_id", *columns)
        found = rows.query.sql_with_params()
        if len(_found_sql) >= FOUND_SQL_KEPT:
            _found_sql.clear()
        _found_sql[key] = found
    return found


def order_keys(plan, pks, ordering, using):
    """{pk: its values of `ordering`'s columns} for the public cases among `pks` that
    `plan` finds (`relevance` is the plan's)."""
    pks = list(dict.fromkeys(pks))
    if not pks:
        return {}
    sql, params = _found(plan, ordering, using)
    # Both databases push the outer condition into the query it wraps: an index lookup of
    # these cases, never a scan of every match.
    marks = ", ".join(["%s"] * len(pks))
    with connections[using].cursor() as cursor:
        cursor.execute(
            f"SELECT * FROM ({sql}) found WHERE found.case_id IN ({marks})",  # noqa: S608 (only placeholders)
            [*params, *pks],
        )
        return {pk: tuple(values) for pk, *values in cursor.fetchall()}


# Asks of order_keys_together in one query: SQLite allows 500 terms of a UNION.
TOGETHER = 64


def order_keys_together(asks, ordering, using):
    """order_keys of several plans, each over its own cases, in one query for each
    TOGETHER of them: [{pk: values}] in the order of `asks`, (plan, pks) pairs."""
    found = [{} for _ in asks]
    asked = [(number, plan, list(dict.fromkeys(pks))) for number, (plan, pks) in enumerate(asks)]
    asked = [each for each in asked if each[2]]
    for first in range(0, len(asked), TOGETHER):
        parts, params = [], []
        for number, plan, pks in asked[first : first + TOGETHER]:
            sql, plan_params = _found(plan, ordering, using)
            marks = ", ".join(["%s"] * len(pks))
            parts.append(
                f"SELECT {int(number)} AS ask, found.* FROM ({sql}) found "  # noqa: S608 (placeholders)
                f"WHERE found.case_id IN ({marks})"
            )
            params += [*plan_params, *pks]
        with connections[using].cursor() as cursor:
            cursor.execute(" UNION ALL ".join(parts), params)
            for number, pk, *values in cursor.fetchall():
                found[number][pk] = tuple(values)
    return found


def search(queryset, query, plan=None):
    """The cases of `queryset` that the query's plan finds, annotated with their
    `relevance`. `plan` is the query's, with names and corrections, if already made.

    The list reads its searches from the entries themselves (cases.catalogue.query), whose
    rows are narrow; this is the same search for any queryset of cases."""
    plan = parse(query) if plan is None else plan
    entries = matching_entries(plan, queryset.db)
    return queryset.filter(pk__in=entries.values("case_id")).annotate(
        relevance=Subquery(entries.filter(case_id=OuterRef("pk")).values("relevance")[:1])
    )


def suggested_filters(query, terms, organisations):
    """Terms and organisations whose label or alias appears in the query.

    Latin-script labels must appear as whole words (so "DNS" does not match inside
    "DNSSEC"); Korean labels may appear inside a word, because particles attach to them.
    """
    text = query.casefold()
    if not text:
        return []
    found = []
    for term in terms:
        names = [getattr(term, f"label_{lang}") or "" for lang in LANGUAGES]
        names += term.alias_list("en") + term.alias_list("ko")
        if any(mentions(text, name) for name in names):
            found.append(term)
    found += [org for org in organisations if mentions(text, org.name)]
    return found


def mentions(text, name):
    name = name.casefold().strip()
    # Most names are not in the query at all: settle those without a regular expression,
    # for a list's search asks this of every term and organisation, hundreds of names,
    # more than `re` keeps compiled.
    if len(name) < 2 or name not in text:
        return False
    if name.isascii():
        return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None
    return name in text
