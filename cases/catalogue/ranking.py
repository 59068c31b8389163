"""A search's matches, and the first of them in the list's order, kept for the version of
the public content they were found in, as the facet index is.

A search that matches most of a large library costs the database most of its time: at
100,000 cases it visits every match to rank it. Readers repeat searches (the same words,
another page, another facet), and until the content changes the answer is the same: so
each process keeps the last searches' matches (a set) with the first HEAD of them in
order, and pages and facets are taken from them in memory. A page past the kept head is
asked of the database (cases.catalogue.query). A change moves the content version, and
the version is part of the key: no reader is answered from before a change (the promise
of cases.caching). What is kept is bounded by the number of keys held.

Only the head is ordered: sorting every match of a broad search cost more than finding
them (at 100,000 matches 100 ms against 45), choosing the first thousand a tenth of that.

After a change of a few cases, a search kept at an earlier version follows it rather than
be ranked again (`followed`): the changed cases leave the matches and the head, and those
the search still finds come back in, at their place in the head by their ordering values,
which the head keeps. Each new case renews every search it matches; ranking each afresh
cost the readers more than any other part of that change.
"""

import threading
from array import array
from collections import OrderedDict
from dataclasses import dataclass

from django.db import connections

from cases.catalogue.facet_index import CaseSet, bit_set

# Matches kept in order for each search: fifty pages of the list.
HEAD = 1000
# Keys held per process (each set counts as many as it matches, at most a bit each; each
# ordered key 8 bytes): a few megabytes.
MAX_KEPT = 2_000_000


@dataclass(frozen=True)
class Ranked:
    """The cases a search matches (a CaseSet) and the first of them in the list's order
    (all of them when `complete`)."""

    matched: CaseSet
    order: array
    complete: bool
    values: tuple = ()  # the ordering's values of each key in `order`, as `comparable`

    def page(self, selection, offset, limit):
        """The keys of one page of `selection` (a subset of the matches) in order, or None
        if the kept head holds too few of them to tell."""
        if selection == self.matched:
            if self.complete or offset + limit <= len(self.order):
                return list(self.order[offset : offset + limit])
            return None
        wanted = selection.bits.to_bytes((selection.bits.bit_length() + 7) // 8, "little")
        size = len(wanted)
        keys, skipped = [], 0
        for pk in self.order:
            byte = pk >> 3
            if byte < size and wanted[byte] >> (pk & 7) & 1:
                if skipped < offset:
                    skipped += 1
                    continue
                keys.append(pk)
                if len(keys) == limit:
                    return keys
        return keys if self.complete else None


class RankedCache:
    def __init__(self, limit=MAX_KEPT):
        self.limit = limit
        self._entries = OrderedDict()
        self._kept = 0
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            ranked = self._entries.get(key)
            if ranked is not None:
                self._entries.move_to_end(key)
            return ranked

    def put(self, key, ranked):
        size = size_of(ranked)
        if size > self.limit:
            return
        with self._lock:
            if key in self._entries:
                return
            self._entries[key] = ranked
            self._kept += size
            while self._kept > self.limit:
                _key, dropped = self._entries.popitem(last=False)
                self._kept -= size_of(dropped)

    def forget(self, key):
        with self._lock:
            dropped = self._entries.pop(key, None)
            if dropped is not None:
                self._kept -= size_of(dropped)

    def clear(self):
        with self._lock:
            self._entries.clear()
            self._kept = 0


def size_of(entry):
    """Keys an entry holds: a Ranked, or (version, Ranked)."""
    ranked = entry[1] if isinstance(entry, tuple) else entry
    return len(ranked.order) + 1 + len(ranked.matched) // 64


kept = RankedCache()
# The last ranking of each search this process made or followed, at its version: what a
# search asked for again after a change follows. Bounded as `kept` is, by its keys.
latest = RankedCache()


def forget():
    """Drop every search this process keeps (tests: a rolled-back database reuses version
    numbers)."""
    kept.clear()
    latest.clear()


def comparable(values):
    """A head key's ordering values as both SQL rows and Python compare them: a date as its
    ISO text (SQLite's rows give the text, PostgreSQL's a date)."""
    return tuple(value if isinstance(value, int | float | str) else str(value) for value in values)


def followed(ranked, index, changed, found, ordering):
    """`ranked` after a change of the cases `changed` (primary keys): `found` gives the
    ordering values of those the search still finds ({pk: values}). The head stays the
    first of the matches in order: a case that ranks past its last, when the head does not
    hold every match, stays out of it."""
    from cases.catalogue.changes import ranks_before  # it imports the models

    changed_bits = bit_set(changed)
    public_found = index.cases(found).bits  # less any not public in this version's index
    matched = CaseSet((ranked.matched.bits & ~changed_bits) | public_found)
    head = [
        (pk, values)
        for pk, values in zip(ranked.order, ranked.values, strict=True)
        if not changed_bits >> pk & 1
    ]
    for pk, values in found.items():
        if not public_found >> pk & 1:
            continue
        values = comparable(values)
        at = next(
            (n for n, (_pk, other) in enumerate(head) if ranks_before(values, other, ordering)),
            len(head),
        )
        if at < len(head) or ranked.complete:
            head.insert(at, (pk, values))
    if not ranked.complete:  # a case that left it leaves the head short, not wrong
        head = head[:HEAD]
    return Ranked(
        matched,
        array("q", [pk for pk, _values in head]),
        ranked.complete,
        tuple(values for _pk, values in head),
    )


def order_by_sql(ordering):
    return ", ".join(
        f'"{name.lstrip("-")}" {"DESC" if name.startswith("-") else "ASC"}' for name in ordering
    )


def ranked_matches(index, rows, ordering, key, follow=None):
    """The matches of `rows` (a queryset of dicts with `id` and the ordering's columns),
    with the first HEAD in `ordering`, from what this process keeps for `key` at the
    index's version; or, given `follow` (pks -> {pk: ordering values} of those of them the
    search finds), its last ranking here followed over the changes since; or found by one
    query."""
    from cases.catalogue.change_log import changes_between  # it imports the models
    from cases.catalogue.changes import MOST_CASES

    ordering = tuple(ordering)
    full_key = (index.using, index.version, key, ordering)
    ranked = kept.get(full_key)
    if ranked is not None:
        return ranked
    last_key = (index.using, key, ordering)
    last = latest.get(last_key)
    changes = None
    if follow is not None and last is not None:
        changes = changes_between(index.using, last[0], index.version)
    if changes is not None and len(changes.cases) <= MOST_CASES:
        ranked = followed(last[1], index, changes.cases, follow(changes.cases), ordering)
    else:
        ranked = ranked_afresh(rows, ordering, index)
    kept.put(full_key, ranked)
    latest.forget(last_key)
    latest.put(last_key, (index.version, ranked))
    return ranked


def ranked_afresh(rows, ordering, index):
    sql, params = rows.query.sql_with_params()
    connection = connections[rows.db]
    order = order_by_sql(ordering)
    columns = ", ".join(f'"{name.lstrip("-")}"' for name in ordering)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # Each in one array, read in C: a row for each of 100,000 matches costs ten
            # times more. The matches are found once (materialized as f); the head's
            # ordering values come as one JSON array (a date as its ISO text).
            cursor.execute(
                f"WITH f AS MATERIALIZED ({sql}) SELECT (SELECT array_agg(id) FROM f), "
                f"(SELECT json_agg(json_build_array(id, {columns}) ORDER BY {order}) FROM "
                f"(SELECT * FROM f ORDER BY {order} LIMIT {HEAD}) AS head)",
                params,
            )
            keys, head = cursor.fetchone()
            keys, head = keys or [], head or []
        else:
            cursor.execute(f"SELECT id, {columns} FROM ({sql}) AS f ORDER BY {order}", params)
            head = cursor.fetchall()
            keys = [row[0] for row in head]
    return Ranked(
        index.cases(keys),
        array("q", [row[0] for row in head]),
        len(head) == len(keys),
        tuple(comparable(row[1:]) for row in head),
    )
