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
"""

import threading
from array import array
from collections import OrderedDict
from dataclasses import dataclass

from django.db import connections

from cases.catalogue.facet_index import CaseSet

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
        size = len(ranked.order) + 1 + len(ranked.matched) // 64
        if size > self.limit:
            return
        with self._lock:
            if key in self._entries:
                return
            self._entries[key] = ranked
            self._kept += size
            while self._kept > self.limit:
                _key, dropped = self._entries.popitem(last=False)
                self._kept -= len(dropped.order) + 1 + len(dropped.matched) // 64

    def clear(self):
        with self._lock:
            self._entries.clear()
            self._kept = 0


kept = RankedCache()


def order_by_sql(ordering):
    return ", ".join(
        f'"{name.lstrip("-")}" {"DESC" if name.startswith("-") else "ASC"}' for name in ordering
    )


def ranked_matches(index, rows, ordering, key):
    """The matches of `rows` (a queryset of dicts with `id` and the ordering's columns),
    with the first HEAD in `ordering`, from what this process keeps for `key` at the
    index's version, or found by one query."""
    full_key = (index.using, index.version, key, tuple(ordering))
    ranked = kept.get(full_key)
    if ranked is not None:
        return ranked
    sql, params = rows.query.sql_with_params()
    connection = connections[rows.db]
    order = order_by_sql(ordering)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # Each in one array, read in C: a row for each of 100,000 matches costs ten
            # times more. The matches are found once (materialized as f).
            cursor.execute(
                f"WITH f AS MATERIALIZED ({sql}) SELECT (SELECT array_agg(id) FROM f), "
                f"(SELECT array_agg(id ORDER BY {order}) FROM "
                f"(SELECT * FROM f ORDER BY {order} LIMIT {HEAD}) AS head)",
                params,
            )
            keys, head = cursor.fetchone()
            keys, head = keys or [], head or []
        else:
            cursor.execute(f"SELECT id FROM ({sql}) AS f ORDER BY {order}", params)
            keys = head = [pk for (pk,) in cursor.fetchall()]
    ranked = Ranked(index.cases(keys), array("q", head), len(head) == len(keys))
    kept.put(full_key, ranked)
    return ranked
