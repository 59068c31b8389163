"""Each process's memory of what recent versions of the public content changed
(cases.catalogue.changes writes it): read once a version, joined into spans of versions,
and asked by every page checked after a change (cases.caching), the facet index and the
rankings that follow changes, and the cards of lists."""

import json
import threading

from django.db import connections

from cases.catalogue import shown_texts
from cases.catalogue.changes import KEEP_VERSIONS, Changes, forget_window_edges
from cases.models import PublicChange


class ChangeLog:
    """Each process's memory of the rows of recent versions, read once each."""

    def __init__(self, keep=4096):
        self.keep = keep
        self._versions = {}  # (alias, version) -> tuple of rows, or None for "everything"
        # (alias, old, new) -> Changes: the cards of a list, rendered together, and the
        # pages checked at one version all ask for the same span, and a span of many
        # versions costs as many to join.
        self._spans = {}
        self._lock = threading.Lock()

    def between(self, using, old, new):
        """Changes after version `old` up to `new`, or None if one of them changed
        everything or is no longer known."""
        if old is None or new < old or new - old > KEEP_VERSIONS:
            return None
        span = (using, old, new)
        if span in self._spans:
            return self._spans[span]
        changes = self._joined(using, old, new)
        if len(self._spans) >= self.keep:
            self._spans.clear()
        self._spans[span] = changes
        return changes

    def _joined(self, using, old, new):
        wanted = range(old + 1, new + 1)
        missing = [v for v in wanted if (using, v) not in self._versions]
        if missing:
            self._read(using, missing[0], missing[-1])
        cases, own, listed, listed_as = set(), set(), set(), []
        touched = {code: set() for code in shown_texts.LANGUAGE_CODES}
        for version in wanted:
            rows = self._versions.get((using, version))
            if rows is None:
                return None
            for case_id, listing, facets, neighbour, languages in rows:
                cases.add(case_id)
                if not neighbour:
                    own.add(case_id)
                    # (its terms, which a card shows, are no text: a change of what lists
                    # count it by touches every language)
                    every = languages is None or listing
                    for code in touched if every else languages.split():
                        touched[code].add(case_id)
                if listing:
                    listed.add(case_id)
                    listed_as += facets
        return Changes(
            frozenset(cases),
            frozenset(listed),
            tuple(listed_as),
            frozenset(cases - own),
            tuple((code, frozenset(found)) for code, found in touched.items()),
        )

    def _read(self, using, first, last):
        found = {}
        with connections[using].cursor() as cursor:
            cursor.execute(
                "SELECT version, case_id, listing, facets, neighbour, languages "
                f"FROM {PublicChange._meta.db_table} WHERE version BETWEEN %s AND %s",
                [first, last],
            )
            for version, case_id, listing, facets, neighbour, languages in cursor.fetchall():
                facets = json.loads(facets) if isinstance(facets, str) else facets
                if len(facets) == 2 and facets[0] is None and facets[1] is not None:
                    facets = [None, {**facets[1], "arrived": True}]  # (SimilarShown)
                found.setdefault(version, []).append(
                    (case_id, listing, tuple(filter(None, facets)), bool(neighbour), languages)
                )
        with self._lock:
            for version in range(first, last + 1):
                rows = found.get(version)
                # A version without rows is pruned or from before the log; with a row
                # without a case it changed everything.
                if rows is None or any(row[0] is None for row in rows):
                    self._versions[(using, version)] = None
                else:
                    self._versions[(using, version)] = tuple(rows)
            if len(self._versions) > self.keep:
                for key in sorted(self._versions)[: len(self._versions) - self.keep]:
                    del self._versions[key]

    def clear(self):
        with self._lock:
            self._versions.clear()
            self._spans.clear()


log = ChangeLog()


def forget():
    """Drop this process's memory of versions (tests: a rolled-back database may reuse a
    version number, and its terms' ids)."""
    log.clear()
    forget_window_edges()


def changes_between(using, old, new):
    """What the public content's versions after `old` up to `new` changed (Changes), or
    None where that is not known: then anything may have changed."""
    if old == new:
        return Changes(frozenset(), frozenset(), ())
    return log.between(using, old, new)
