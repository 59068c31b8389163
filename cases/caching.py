"""Anonymous public pages come from the cache until a change can have changed them.

Anything that changes what the public sees (approving, withdrawing, importing, relabelling
terms) bumps the version of the public content (ContentVersion) in its own transaction,
and says which cases it changed (cases.catalogue.changes). A cached page carries the
version it was last known good at and what it shows: the cases on it, whether it counts
or sorts the public cases (a list), the similar cases it lists (a case page).
A request that reads a newer version keeps the page only if no change since touched what
it shows, and renders it afresh otherwise: a reader never gets a stale page after a
change, and a change costs readers only the pages it changed. A page that says nothing of
what it shows, and any page after a change of everything, is rendered afresh. The cache is
Django's: local memory by default, Redis (shared by every app server) when REDIS_URL is set.

The version is read from the database each request, from the one the page is read from:
every process, however its cache is kept, sees a change made by any other, and a replica
that lags keys its pages by the version of the content it actually holds.
"""

import functools
import hashlib
import secrets
import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from django.core.cache import cache
from django.db import InterfaceError, OperationalError, router, transaction
from django.http import HttpResponse
from django.utils.cache import get_conditional_response, patch_cache_control
from django.utils.http import quote_etag

from .models import ContentVersion
from .rendering_ahead import RENDERED_AHEAD, forget_if_rolled_back, note_read

PAGE_TIMEOUT = 60 * 60
# The form of a cached entry, in its key: a release that changes it never reads an older
# release's entries from a shared cache (it would fail on them), it renders afresh. Moved
# too by a release whose pages change for everyone (5: every page links the API, the
# suggestion form and, on a case, "Report a problem"; 6: a Korean page marks a term's
# label shown in English; 7: a case's organisation links its page; 8: what a page can be
# mended in is kept as one part: a case page's links, a list's cards and check, its JSON's
# entries).
PAGE_FORMAT = 8
CACHED_STATUSES = {200, 404, 410}
# A process rendering a page says so for at most this long; others wait for its copy up to
# RENDER_WAIT seconds (a page takes tens of milliseconds), then render it themselves.
RENDER_LOCK_SECONDS = 5
RENDER_WAIT = 1.0
RENDER_POLL = 0.005


# The version a cached view read as it began: its page and everything it caches on the way
# (the terms) are keyed alike, for one query.
_request_version = ContextVar("public_version", default=None)


# The version this process read last. While the database is away nothing is published (and
# a process cut off from it could not tell), so the pages cached at that version are still
# served; only pages that need the database answer 503.
_last_read = {}


@contextmanager
def reading_as_of(version):
    """Pages rendered in this block are of `version` (one a change is about to make:
    cases.rendering_ahead)."""
    token = _request_version.set(version)
    try:
        yield
    finally:
        _request_version.reset(token)


def public_version():
    version = _request_version.get()
    if version is not None:
        return version
    forget_if_rolled_back()  # (a change this thread rendered ahead for: its number comes again)
    try:
        version = ContentVersion.current(using=router.db_for_read(ContentVersion))
    except (OperationalError, InterfaceError):
        version = _last_read.get("version")
        if version is None:
            raise
        return version
    _last_read["version"] = version
    return version


def public_content_changed(before=None):
    """Call in the transaction that changes what the public sees, after its other
    writes: the new version is visible exactly when the change is, and its row stays
    locked until the commit (taken last, two changes cannot deadlock over it).

    `before`, from cases.catalogue.changes.states_before, names the cases changed and
    their states before: pages that show none of them are kept. Without it the change is
    one of everything. Returns the new version.
    """
    from cases.catalogue.changes import record  # it imports the models
    from cases.open_data import rebuild_soon

    using = router.db_for_write(ContentVersion)
    version = ContentVersion.bump(using)
    record(version, before, using)
    transaction.on_commit(rebuild_soon, using=using)  # the bulk data and the change feed
    return version


@dataclass
class PageShows:
    """What a page shows, as its view declares it with `page_shows`."""

    cases: set = field(default_factory=set)
    listing: bool = False
    filters: list | None = None
    counted: bool = True
    similar: object = None  # a cases.catalogue.changes.SimilarShown
    search: object = None  # a cases.catalogue.changes.ShownSearch
    mendable: object = None  # a LinkedBlock, CardsBlock or EntriesBlock
    declared: bool = False

    def frozen(self):
        """What Changes.touch is asked of the page, or None: anything may change it."""
        if not self.declared:
            return None
        return {
            "cases": frozenset(self.cases),
            "listing": self.listing,
            "filters": self.filters,
            "counted": self.counted,
            "similar": self.similar,
            "search": self.search,
            "mendable": self.mendable,
        }


def touch_arguments(shows):
    """What Changes.touch is asked of a page whose frozen PageShows is `shows`: all but
    the part it can be mended in, which says where that part lies, not what it shows."""
    return {name: value for name, value in shows.items() if name != "mendable"}


_page_shows = ContextVar("page_shows", default=None)


def page_shows(
    *,
    cases=(),
    listing=False,
    filters=None,
    counted=True,
    similar=None,
    search=None,
    mendable=None,
):
    """Say, in a cached view, what its page shows: the primary keys of the cases whose
    content it shows; whether it lists the public cases (`listing`), only those its
    `filters` select if given (cases.catalogue.paging.facet_filters), with each facet
    value's count if `counted`; the similar cases it lists (a cases.catalogue.changes.
    SimilarShown); the search whose first page it is (a ShownSearch); and the part of it
    that can be mended after a change of the cases it shows there (`mendable`: a case
    page's cases.public.case_links.LinkedBlock, a list's cases.catalogue.list_blocks.
    CardsBlock, a list JSON's EntriesBlock).
    Its cached copy then outlives the changes that touch none of these (Changes.touch).
    A view that never calls this is rendered afresh after every change."""
    shows = _page_shows.get()
    if shows is not None:
        shows.declared = True
        shows.cases.update(cases)
        shows.listing = shows.listing or listing
        shows.filters, shows.counted = filters, counted
        if similar is not None:
            shows.similar = similar
        if search is not None:
            shows.search = search
        if mendable is not None:
            shows.mendable = mendable


def cache_public_page(view):
    """Serve anonymous GET requests from the cache; staff always see the database."""

    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        if request.method not in ("GET", "HEAD") or request.user.is_authenticated:
            return view(request, *args, **kwargs)
        version = public_version()
        token = _request_version.set(version)
        try:
            return cached_response(request, version, view, *args, **kwargs)
        finally:
            _request_version.reset(token)

    return wrapper


def still_good(entry, version, *, but=frozenset()):
    """Whether a cached entry, last known good at its version, is good at `version`; with
    `but`, whether it is if the changes of those cases are left aside (a page to mend)."""
    rendered, checked, shows, *_page = entry
    if checked == version:
        return True
    if shows is None:
        return False
    shows = touch_arguments(shows)
    shows["cases"] = shows["cases"] - but
    from cases.catalogue.change_log import changes_between  # it imports the models

    using = router.db_for_read(ContentVersion)
    changes = changes_between(using, checked, version)
    if changes is None:
        return False
    since_rendered = None
    if shows.get("similar") is not None:  # (its spare room is for every case since)
        since_rendered = changes_between(using, rendered, version)
    listed = since_rendered.listed_as if since_rendered is not None else None
    return not changes.touch(**shows, using=using, listed_since_rendered=listed, mended=but)


# An entry is kept as two values: what it is (small, written again when a change leaves it
# good) and its content (written once), both with a token of that rendering; a pair whose
# tokens differ, written by two processes at once, is no entry.
def read_entry(key):
    """(entry, token): entry as (rendered, checked, shows, status, content_type, content),
    or (None, None)."""
    found = cache.get_many([key, f"{key}:content"])
    about, content = found.get(key), found.get(f"{key}:content")
    if about is None or content is None or about[-1] != content[0]:
        return None, None
    return (*about[:-1], content[1]), content[0]


def store_entry(key, entry):
    """Keep an entry; its token."""
    rendered, checked, shows, status, content_type, content = entry
    token = secrets.token_hex(8)
    cache.set_many(
        {
            key: (rendered, checked, shows, status, content_type, token),
            f"{key}:content": (token, content),
        },
        PAGE_TIMEOUT,
    )
    return token


# Each process remembers the version it last found each entry good at, and says so in the
# shared cache only now and then: after a change nearly every hit finds its entry good, and
# writing that back each time cost as much as the hit itself. An entry known good at an
# older version is checked from there, over more versions' changes, in memory.
_known_good = {}  # key -> (token, version)
KNOWN_GOOD_KEYS = 20_000
SHARE_GOOD_AFTER = 32  # versions


def last_known_good(key, entry, token):
    """The entry, with the latest version it is known good at, here or in the cache."""
    rendered, checked, *rest = entry
    here = _known_good.get(key)
    if here is not None and here[0] == token and here[1] > checked:
        return (rendered, here[1], *rest)
    return entry


def forget_versions():
    """Drop this process's memory of versions: the last read, and which entries were good
    at which (a version number a rolled-back transaction used is used again)."""
    from cases.catalogue import search_checks

    _known_good.clear()
    _last_read.clear()
    search_checks.forget()


def mark_checked(key, entry, token, version, shared_at):
    """Say an entry is good at `version`: here, and in the shared cache if that says so of
    a version long past, or if the check asked the database (a search's)."""
    rendered, _checked, shows, status, content_type, _content = entry
    if len(_known_good) >= KNOWN_GOOD_KEYS:
        _known_good.clear()
    _known_good[key] = (token, version)
    if version - shared_at >= SHARE_GOOD_AFTER or (shows or {}).get("search") is not None:
        cache.set(key, (rendered, version, shows, status, content_type, token), PAGE_TIMEOUT)


def once_across_processes(lock, *, hold, wait, poll, ready):
    """Whether this process is to do work that every process needs at the same moment
    (build an index, render a renewed page), or another is doing it. (True, None): this
    process took `lock` in the shared cache, for `hold` seconds at most; it does the work,
    shares what it made and deletes the lock. (False, made): another holds the lock; once
    it is gone, within `wait` seconds (asked every `poll`), `made` is `ready()`, what the
    other shared, or None: then do the work anyway."""
    if cache.add(lock, True, hold):
        return True, None
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        time.sleep(poll)
        if cache.get(lock) is None:
            return False, ready()
    return False, None


def rendered_by_another(lock, key, version):
    """(entry, token) another process rendered for this version, if one is rendering it
    (its `lock` taken); (None, None) if this process is to render the page, holding the
    lock if it could take it. Readers of a page that a change renewed ask for it at once,
    in every process: one renders it and the others take its copy, rather than all of them
    render it at once."""

    def good():
        entry, token = read_entry(key)
        return (entry, token) if entry is not None and still_good(entry, version) else None

    _taken, rendered = once_across_processes(
        lock, hold=RENDER_LOCK_SECONDS, wait=RENDER_WAIT, poll=RENDER_POLL, ready=good
    )
    return rendered or (None, None)


def mended_entry(key, entry, token, version):
    """(entry, token, answer) of a page whose mendable part (PageShows.mendable) was all
    a change touched: "mended", that part rendered again and kept; or "hit", the entry as
    it was, if the part shows nothing the change changed (the links of its cases). (None,
    None, None) if the page is to be rendered whole."""
    from cases.catalogue.change_log import changes_between

    rendered, checked, shows, status, content_type, content = entry
    part = (shows or {}).get("mendable")
    if part is None:
        return None, None, None
    changes = changes_between(router.db_for_read(ContentVersion), checked, version)
    aside = part.set_aside(changes) if changes is not None else None
    if not aside or not still_good(entry, version, but=aside):
        return None, None, None
    if not part.changed_by(changes):
        return entry, token, "hit"
    made = part.mend(content, version, changes)
    if made is None:
        return None, None, None
    content, part = made
    entry = (rendered, version, {**shows, "mendable": part}, status, content_type, content)
    return entry, store_entry(key, entry), "mended"


def page_key(full_path):
    """(the key of a page's entry, the digest of its path)"""
    digest = hashlib.sha256(full_path.encode()).hexdigest()
    return f"public-page:{PAGE_FORMAT}:{digest}", digest


def rendering_lock(key, version):
    return f"{key}:rendering:{version}"


def cached_response(request, version, view, *args, **kwargs):
    from cases.catalogue import search_checks  # (it imports the models)

    if RENDERED_AHEAD not in request.META:  # (ahead of a change: not yet committed)
        search_checks.check_after_answer(version)
    full_path = request.get_full_path()
    key, digest = page_key(full_path)
    lock = rendering_lock(key, version)
    entry, token = read_entry(key)
    answer = "hit"
    if entry is not None:
        shared_at = entry[1]
        entry = last_known_good(key, entry, token)
        if not still_good(entry, version):
            entry, token, answer = mended_entry(key, entry, token, version)
            shared_at = version if answer == "mended" else shared_at
    if entry is None:
        entry, token = rendered_by_another(lock, key, version)
        answer, shared_at = "hit", version
    if entry is not None:
        rendered, checked, shows, status, content_type, content = entry
        if checked != version:
            mark_checked(key, entry, token, version, shared_at)
        # A mended page is a new page: browsers must not keep their copy of the old.
        rendered = getattr((shows or {}).get("mendable"), "mended", None) or rendered
        response = HttpResponse(content, status=status, content_type=content_type)
        response["X-Cache"] = answer
        searched = (shows or {}).get("search") is not None
    else:
        shows = PageShows()
        declaring = _page_shows.set(shows)
        try:
            response = view(request, *args, **kwargs)
            if hasattr(response, "render"):
                response.render()
            if response.status_code in CACHED_STATUSES and not response.streaming:
                store_entry(
                    key,
                    (
                        version,
                        version,
                        shows.frozen(),
                        response.status_code,
                        response["Content-Type"],
                        response.content,
                    ),
                )
        finally:
            _page_shows.reset(declaring)
            cache.delete(lock)  # (another's, if this one waited in vain: no harm)
        rendered = version
        response["X-Cache"] = "miss"
        searched = shows.search is not None
    if searched:
        search_checks.served(key)  # (checked with the others it served after a change)
    if response.status_code == 200 and RENDERED_AHEAD not in request.META:
        note_read(request, full_path)  # (which pages a large import renders ahead)
    # Browsers and shared caches (a CDN) may keep the page but must ask again before they
    # show it: while the page has not changed, its ETag gets a 304, for a query or two.
    response["ETag"] = quote_etag(f"{rendered}-{digest[:32]}")
    patch_cache_control(response, public=True, no_cache=True)
    return get_conditional_response(request, etag=response["ETag"], response=response)
