"""The first pages of searches kept in the page cache, checked together after a change.

A cached search page is checked against each change by running its plan on the changed
cases (ShownSearch.touched_by): a query of its own, in the request that first asks for the
page after the change. With one change a second and a few dozen searches read often, those
requests were a few in a hundred, each slowed by its query on a busy machine: most of the
slowest answers under writes. Now the first request a process serves at a new version
checks every search page the process served lately, their plans over the changed cases in
one query (cases.search.query.order_keys_together), and says in the shared cache which are
still good; one process does it for each version (a lock in the cache). A page it did not
reach, or one whose check it could not settle, is checked by its next reader as before.
"""

import logging
import threading
from collections import OrderedDict

from django.conf import settings
from django.core.cache import cache
from django.core.signals import request_finished
from django.db import router
from django.dispatch import receiver

logger = logging.getLogger(__name__)

SEEN = 128  # the search pages a process remembers having served, the latest
LOCK_SECONDS = 60

_seen = OrderedDict()
_last = {"version": None}
_lock = threading.Lock()
_after_answer = threading.local()


def served(key):
    """Remember that this process served the search page cached under `key`."""
    with _lock:
        _seen[key] = None
        _seen.move_to_end(key)
        while len(_seen) > SEEN:
            _seen.popitem(last=False)


def forget():
    with _lock:
        _seen.clear()
        _last["version"] = None
    _after_answer.version = None


def check_ahead(version):
    """At the first request this process serves at `version`: the search pages it served
    lately, checked together, and those still good said so in the shared cache."""
    with _lock:
        if _last["version"] == version:
            return
        _last["version"] = version
        keys = list(_seen)
    if not keys:
        return
    from cases.caching import PAGE_FORMAT  # (it calls this)

    if not cache.add(f"search-checks:{PAGE_FORMAT}:{version}", True, LOCK_SECONDS):
        return  # another process checks them
    mark_good(keys, version)


def check_after_answer(version):
    """check_ahead(version) once this request's answer is sent. A server closes a response
    after writing it (PEP 3333) and Django then sends request_finished: the reader who
    comes first after a change no longer waits for the checks, tens of milliseconds on a
    busy machine and a tenth of the slowest answers under corrections (bench/RESULTS.md)."""
    _after_answer.version = version


@receiver(request_finished, dispatch_uid="cases.search_checks.after_answer")
def _check_after_answer(**kwargs):
    version = getattr(_after_answer, "version", None)
    if version is None:
        return
    _after_answer.version = None
    from incidentlib.middleware import statement_timeout  # (it imports the caching)

    try:  # (a public request's work, under its limit, on whatever connection is left)
        with statement_timeout(settings.PUBLIC_STATEMENT_TIMEOUT_MS):
            check_ahead(version)
    except Exception:  # (the answer is sent: the log is the only one left to tell)
        logger.exception("Checking the cached search pages at version %s failed", version)


def mark_good(keys, version):
    from cases.caching import PAGE_TIMEOUT, touch_arguments
    from cases.catalogue.change_log import changes_between
    from cases.models import ContentVersion
    from cases.search.query import order_keys_together

    using = router.db_for_read(ContentVersion)
    pending = []
    for key, about in cache.get_many(keys).items():
        _rendered, checked, shows, *_rest = about
        search = (shows or {}).get("search")
        if search is None or checked >= version:
            continue
        changes = changes_between(using, checked, version)
        if changes is None or not changes.cases or changes.cases & shows["cases"]:
            continue  # (everything changed, or a page to mend: its reader sees to it)
        pending.append((key, about, changes, search.asks(changes.cases)))
    good = {}
    for ordering in {about[2]["search"].ordering for _key, about, _changes, _asks in pending}:
        asked = [each for each in pending if each[1][2]["search"].ordering == ordering]
        found = iter(order_keys_together([a for *_, asks in asked for a in asks], ordering, using))
        for key, about, changes, asks in asked:
            shows = touch_arguments(about[2])
            keys_found = [next(found) for _ask in asks]
            if not changes.touch(**shows, using=using, search_found=keys_found):
                good[key] = (about[0], version, *about[2:])
    if good:
        cache.set_many(good, PAGE_TIMEOUT)
