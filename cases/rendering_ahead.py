"""A change of everything renders the most-read pages before it commits.

After a large import every cached page is renewed at once (cases.caching): the app
servers' workers all render the pages readers ask for in the same seconds, and readers
wait for them (at 50,000 cases, the 80 most-read pages and their searches took over four
seconds of one process). So the import renders them itself, inside its transaction, where
it already sees the content as it will be; with its priority (cases.exchange.priority),
on the CPU readers leave. What it renders reaches the shared cache only as the
transaction commits (`writes_seen_when_committed`): a rolled-back import leaves the cache
as it was, and no reader ever gets a page of content that is not yet public. With Redis it
is serialised and stored before the commit, under names no reader asks for, and the commit
only renames it into place: the niced import does next to nothing while readers wait.

Which pages: each process counts the pages it serves (`note_read`) and adds its counts now
and then to a register in the shared cache, where older reads count for less. Only where
the app servers share a cache (Redis): an importer's own memory is no use to them.
Limits: settings.RENDER_AHEAD_PAGES pages, RENDER_AHEAD_SECONDS in all.
"""

import heapq
import io
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import unquote_to_bytes

from django.conf import settings
from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.handlers.base import BaseHandler
from django.core.handlers.wsgi import WSGIRequest
from django.db import transaction
from django.utils import translation

# Set in the WSGI environ of a page rendered ahead: a key no HTTP header can become (they
# arrive as HTTP_...). Its request reads the primary and runs under the import's limits.
RENDERED_AHEAD = "incidentlib.rendered_ahead"

MOST_READ_KEY = "public-most-read"
MOST_READ_KEPT = 1_000  # pages the register keeps
MOST_READ_TIMEOUT = 24 * 60 * 60
READS_SHARED_EVERY = 500  # reads a process counts before it adds them to the register
HALF_LIFE = 10 * 60  # seconds after which a read counts half as much
READS_COUNTED_HERE = 5_000  # distinct pages a process counts before it shares early

_reads = Counter()  # (path, host, secure) -> reads here since last shared
_reads_lock = threading.Lock()


def note_read(request, full_path):
    """Count a page an anonymous reader was served."""
    if not settings.RENDER_AHEAD_PAGES:
        return
    page = (full_path, request.get_host(), request.is_secure())
    with _reads_lock:
        _reads[page] += 1
        due = _reads.total() >= READS_SHARED_EVERY or len(_reads) >= READS_COUNTED_HERE
        counted = dict(_reads) if due else None
        if due:
            _reads.clear()
    if counted:
        share_reads(counted)


def share_reads(counted, now=None):
    """Add a process's counts to the shared register. Two processes adding at once may
    lose one's counts: it only ranks pages, and the next reads count again."""
    cache = caches[DEFAULT_CACHE_ALIAS]
    now = time.time() if now is None else now
    shared = cache.get(MOST_READ_KEY)
    merged = {}
    if shared is not None:
        at, reads = shared
        weight = 0.5 ** (max(0.0, now - at) / HALF_LIFE)
        merged = {page: count * weight for page, count in reads.items()}
    for page, count in counted.items():
        merged[page] = merged.get(page, 0) + count
    kept = dict(heapq.nlargest(MOST_READ_KEPT, merged.items(), key=lambda item: item[1]))
    cache.set(MOST_READ_KEY, (now, kept), MOST_READ_TIMEOUT)


def most_read():
    """The pages of the register, most read first: (path, host, secure)."""
    shared = caches[DEFAULT_CACHE_ALIAS].get(MOST_READ_KEY)
    if shared is None:
        return []
    _at, reads = shared
    return sorted(reads, key=lambda page: -reads[page])


# --- cache writes the public sees as the transaction commits ------------------------------


class _Gone:
    pass


GONE = _Gone()


class WritesOnCommit:
    """The default cache as this thread sees it while a transaction renders ahead: reads
    find this thread's own writes first, then the shared cache; `set`s reach the shared
    cache when the transaction commits, and never if it rolls back. What is only this
    render's business stays here: `add` (locks), `incr` (counters) and deletes."""

    def __init__(self, shared):
        self.shared = shared
        self.kept = {}  # key -> (value, timeout): for the shared cache on commit
        self.here = {}  # key -> value, or GONE: for this thread only
        self.staged = None  # what of `kept` is already on the server (`stage`)
        self.released = []  # keys deleted as the rest is in place (rendering locks)
        self.in_place_after = None  # seconds the commit took to put it all in place

    def _found(self, key):
        if key in self.here:
            return self.here[key]
        if key in self.kept:
            return self.kept[key][0]
        return None

    def get(self, key, default=None, version=None):
        if key in self.here or key in self.kept:
            found = self._found(key)
            return default if found is GONE or found is None else found
        return self.shared.get(key, default, version=version)

    def get_many(self, keys, version=None):
        keys = list(keys)
        here = {key for key in keys if key in self.here or key in self.kept}
        elsewhere = [key for key in keys if key not in here]
        found = self.shared.get_many(elsewhere, version=version) if elsewhere else {}
        for key in here:
            value = self._found(key)
            if value is not GONE and value is not None:
                found[key] = value
        return found

    def has_key(self, key, version=None):
        return self.get(key, GONE) is not GONE

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        self.here.pop(key, None)
        self._unstage(key)
        self.kept[key] = (value, timeout)

    def _unstage(self, key):
        if self.staged is not None:
            self.staged.forget(key)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        for key, value in data.items():
            self.set(key, value, timeout)
        return []

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        if self.has_key(key):
            return False
        self.here[key] = value
        return True

    def incr(self, key, delta=1, version=None):
        value = self.get(key)
        if value is None:
            raise ValueError(f"Key '{key}' not found")
        self.here[key] = value + delta
        return value + delta

    def delete(self, key, version=None):
        found = self.has_key(key)
        self._unstage(key)
        self.kept.pop(key, None)
        self.here[key] = GONE
        return found

    def delete_many(self, keys, version=None):
        for key in keys:
            self.delete(key)

    def close(self, **kwargs):
        pass

    def discard(self):
        self.discard_staged()
        self.kept.clear()
        self.here.clear()

    def stage(self):
        """Before the commit, where the shared cache can (incidentlib.cache.RedisCache):
        serialise what was written and store it on the server where no reader looks, so
        that the commit has only to put it in place. An import runs niced, and just after
        its commit readers of the new version wait for its pages: serialising them then,
        on the CPU readers leave, held them for seconds."""
        stage_many = getattr(self.shared, "stage_many", None)
        if stage_many is None or not self.kept:
            return
        self.discard_staged()
        self.staged = stage_many(self.kept)

    def discard_staged(self):
        if self.staged is not None:
            self.staged.discard()
            self.staged = None

    def release_when_in_place(self, keys):
        self.released.extend(keys)

    def commit(self):
        began = time.monotonic()
        staged = self.staged if self.staged is not None else ()
        by_timeout = {}
        for key, (value, timeout) in self.kept.items():
            if key not in staged:
                by_timeout.setdefault(timeout, {})[key] = value
        if self.staged is not None and not by_timeout:
            self.staged.put_in_place(then_delete=self._released_keys())
        else:
            if self.staged is not None:
                self.staged.put_in_place()
            for timeout, data in by_timeout.items():
                self.shared.set_many(data, timeout)
            if self.released:  # (last: a reader waiting on a lock then finds the page)
                self.shared.delete_many(self.released)
        self.in_place_after = time.monotonic() - began

    def _released_keys(self):
        """The locks as stored: a server-side script deletes them (staged writes only)."""
        return [self.shared.make_and_validate_key(key) for key in self.released]


class writes_seen_when_committed:
    """In a transaction of `using`: the default cache's writes made in this block are seen
    by this thread at once and by everyone else when the transaction commits. Nested, the
    inner block joins the outer."""

    def __init__(self, using):
        self.using = using
        self.installed = None

    def __enter__(self):
        current = caches[DEFAULT_CACHE_ALIAS]
        if isinstance(current, WritesOnCommit):
            return current
        self.installed = WritesOnCommit(current)
        caches[DEFAULT_CACHE_ALIAS] = self.installed
        transaction.on_commit(self.installed.commit, using=self.using)
        return self.installed

    def __exit__(self, *exc_info):
        if self.installed is not None:
            caches[DEFAULT_CACHE_ALIAS] = self.installed.shared
        return False


# --- rendering ------------------------------------------------------------------------------


@dataclass
class RenderedAhead:
    rendered: int = 0  # renewed by the change, rendered here
    kept: int = 0  # still good after it
    failed: int = 0
    seconds: float = 0.0
    discarded: bool = False  # another change took the version they were rendered for
    pages: list = field(default_factory=list)  # the paths rendered or kept
    writes: object = None  # the WritesOnCommit that shares them

    @property
    def in_place_after(self):
        """Seconds from the commit to its pages in the shared cache, once it committed:
        how long readers of the new version may wait for them."""
        return self.writes.in_place_after if self.writes is not None else None


class _NotRendered(Exception):
    pass


_handlers = threading.local()


def _handler():
    """The site's middleware and views, as a request would meet them. Called without the
    request signals a server sends: at their end Django closes a connection that is in a
    transaction, and this one is the import's."""
    handler = getattr(_handlers, "handler", None)
    if handler is None:
        handler = BaseHandler()
        handler.load_middleware()
        _handlers.handler = handler
    return handler


def request_for(path, host, secure):
    path_only, _, query = path.partition("?")
    environ = {
        "REQUEST_METHOD": "GET",
        "SCRIPT_NAME": "",
        "PATH_INFO": unquote_to_bytes(path_only).decode("iso-8859-1"),
        "QUERY_STRING": query,
        "SERVER_NAME": host,  # (Django reads the host from HTTP_HOST)
        "SERVER_PORT": "443" if secure else "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": host,
        "wsgi.url_scheme": "https" if secure else "http",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.errors": sys.stderr,
        "wsgi.version": (1, 0),
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        RENDERED_AHEAD: True,
    }
    return WSGIRequest(environ)


def render_ahead(using):
    """In the transaction that changes everything, before its change
    (`changed_with_pages_ahead`): render the most-read pages as the transaction leaves the
    content, each as an anonymous reader would be served it, through the page cache. A page
    that fails is left for a reader to render; its failure (a statement cut, say) is undone
    to a savepoint, and the import goes on."""
    done = RenderedAhead()
    if not settings.RENDER_AHEAD_PAGES:
        return done
    began = time.monotonic()
    deadline = began + settings.RENDER_AHEAD_SECONDS
    # (each page activates its language: the import's own, an admin's say, comes back after)
    with writes_seen_when_committed(using), translation.override(translation.get_language()):
        for path, host, secure in most_read()[: settings.RENDER_AHEAD_PAGES]:
            if time.monotonic() > deadline:
                break
            try:
                with transaction.atomic(using=using):
                    response = _handler().get_response(request_for(path, host, secure))
                    if response.status_code >= 500:
                        raise _NotRendered
            except _NotRendered:
                done.failed += 1
                continue
            done.pages.append(path)
            if response.get("X-Cache") == "miss":
                done.rendered += 1
            else:
                done.kept += 1
    done.seconds = time.monotonic() - began
    return done


def changed_with_pages_ahead(using, *, prepare, change):
    """The last step of a transaction that changes everything: `prepare(version)` (the
    shared facet index) and the most-read pages, made as of the version `change()` will
    move the content to, and then that change. They are made before it, because from the
    change to the commit the version's row is locked, and the rendering, at the import's
    low priority on a busy machine, can take many seconds that editors' approvals would
    wait. If another change took that version meanwhile, nothing made is kept.
    Returns (version, RenderedAhead)."""
    from cases.caching import reading_as_of
    from cases.models import ContentVersion

    expect_rolled_back_or_committed(using)
    with writes_seen_when_committed(using) as writes:
        expected = ContentVersion.current(using) + 1
        with reading_as_of(expected):
            prepare(expected)
            done = render_ahead(using)
        writes.stage()
        version = change()
        if version != expected:
            writes.discard()
            forget_rendered_ahead()
            done.discarded = True
            prepare(version)
        else:
            hold_until_stored(writes, done.pages, version)
    done.writes = writes
    return version, done


def hold_until_stored(writes, paths, version):
    """Between the commit and the moment its pages are in the shared cache, readers of
    the new version would find the old pages and render them all again: as the commit
    approaches, this process takes their rendering locks (cases.caching.rendered_by_another),
    and readers wait for its copies instead. The locks go as the pages are put in place
    (in the same round trip, where the pages were staged); after a rollback they lapse on
    their own."""
    from cases.caching import RENDER_LOCK_SECONDS, page_key, rendering_lock

    locks = [rendering_lock(page_key(path)[0], version) for path in paths]
    if not locks:
        return
    writes.shared.set_many(dict.fromkeys(locks, True), RENDER_LOCK_SECONDS)
    writes.release_when_in_place(locks)


def forget_rendered_ahead():
    """After a transaction that rendered ahead did not commit: this process's memory of
    the version it would have made (its index, searches, pages known good) goes, for the
    next change takes that version's number."""
    from cases.caching import forget_versions
    from cases.catalogue.facet_index import forget

    forget()
    forget_versions()


# Transactions of this thread that rendered ahead and have not yet committed: alias -> the
# callback their commit runs. A rollback drops the callback (whether of the transaction or
# of an outer one, later), and the next look finds it gone.
_uncommitted = threading.local()


def expect_rolled_back_or_committed(using):
    """Say that the transaction of `using` is rendering ahead: if it does not commit, this
    process forgets what it rendered (`forget_if_rolled_back`)."""
    forget_if_rolled_back()  # (an earlier one's, not yet looked at)
    pending = _uncommitted.__dict__
    if using in pending:  # (this transaction's, still waiting for its commit)
        return

    def committed():
        pending.pop(using, None)

    pending[using] = committed
    transaction.on_commit(committed, using=using)


def forget_if_rolled_back():
    """Forget the versions of transactions that rendered ahead and rolled back. Cheap
    enough for every request: a look at this thread's (nearly always empty) pending ones."""
    pending = _uncommitted.__dict__
    if not pending:
        return
    from django.db import connections

    for using, committed in list(pending.items()):
        waiting = connections[using].run_on_commit
        if not any(callback is committed for _savepoints, callback, _robust in waiting):
            del pending[using]
            forget_rendered_ahead()
