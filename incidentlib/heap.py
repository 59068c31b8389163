"""An app server's long-lived heap kept out of the garbage collector's full passes.

A full collection walks every container object the process holds. A warmed worker holds
well over a hundred thousand that live as long as it does (the apps, URL patterns,
templates, the facet index), so each full pass paused a worker for 108 to 322 ms under
load, all four workers within seconds of each other (they allocate alike): the slowest
answers of every `make load` row (bench/RESULTS.md). `gc.freeze()` moves what is alive
into a generation the collector never walks, so later passes walk only what came since.

Once a process has served settings.HEAP_FREEZE_AFTER requests (warmed: its templates
loaded, its index built), and again every HEAP_FREEZE_EVERY requests after (a new index
after an import, caches grown), it collects what is garbage now and freezes the rest.
The first of those collections is one full pass at the end of a request; the later ones
walk only what came since the last freeze. Freezing keeps nothing alive: a frozen object
is still freed when nothing refers to it; only a reference cycle among frozen objects
that becomes garbage later stays until the process ends (app servers recycle their
workers: gunicorn's --max-requests). 0 turns it off (the tests: each test's objects are
not a server's).
"""

import gc
import threading

from django.conf import settings

_lock = threading.Lock()
_served = 0


def request_finished(**_kwargs):
    """Count a request served; freeze the heap when its turn comes."""
    global _served
    first, every = settings.HEAP_FREEZE_AFTER, settings.HEAP_FREEZE_EVERY
    if not first:
        return
    with _lock:
        _served += 1
        due = _served == first or (_served > first and every and (_served - first) % every == 0)
    if due:
        freeze()


def freeze():
    gc.collect()  # (what is garbage now is freed, not frozen)
    gc.freeze()


def reset():
    """Forget the count and thaw the heap (tests)."""
    global _served
    with _lock:
        _served = 0
    gc.unfreeze()
