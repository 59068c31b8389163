"""Anonymous public pages come from the cache until public content changes.

Every cached page's key carries the version of the public content (ContentVersion).
Anything that changes what the public sees (approving, withdrawing, importing, relabelling
terms) bumps that number in its own transaction, so the next request renders afresh: a
reader never gets a stale case after the change. Old entries simply expire. The cache is
Django's: local memory by default, Redis (shared by every app server) when REDIS_URL is set.

The version is read from the database each request, from the one the page is read from:
every process, however its cache is kept, sees a change made by any other, and a replica
that lags keys its pages by the version of the content it actually holds.
"""

import functools
import hashlib
from contextvars import ContextVar

from django.core.cache import cache
from django.db import InterfaceError, OperationalError, router
from django.http import HttpResponse
from django.utils.cache import get_conditional_response, patch_cache_control
from django.utils.http import quote_etag

from .models import ContentVersion

PAGE_TIMEOUT = 60 * 60
CACHED_STATUSES = {200, 404, 410}


# The version a cached view read as it began: its page and everything it caches on the way
# (the terms) are keyed alike, for one query.
_request_version = ContextVar("public_version", default=None)


# The version this process read last. While the database is away nothing is published (and
# a process cut off from it could not tell), so the pages cached at that version are still
# served; only pages that need the database answer 503.
_last_read = {}


def public_version():
    version = _request_version.get()
    if version is not None:
        return version
    try:
        version = ContentVersion.current(using=router.db_for_read(ContentVersion))
    except (OperationalError, InterfaceError):
        version = _last_read.get("version")
        if version is None:
            raise
        return version
    _last_read["version"] = version
    return version


def public_content_changed():
    """Call in the transaction that changes what the public sees, after its other
    writes: the new version is visible exactly when the change is, and its row stays
    locked until the commit (taken last, two changes cannot deadlock over it).
    """
    ContentVersion.bump(router.db_for_write(ContentVersion))


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


def cached_response(request, version, view, *args, **kwargs):
    digest = hashlib.sha256(request.get_full_path().encode()).hexdigest()
    key = f"public-page:{version}:{digest}"
    cached = cache.get(key)
    if cached is not None:
        status, content_type, content = cached
        response = HttpResponse(content, status=status, content_type=content_type)
        response["X-Cache"] = "hit"
    else:
        response = view(request, *args, **kwargs)
        if hasattr(response, "render"):
            response.render()
        if response.status_code in CACHED_STATUSES and not response.streaming:
            cache.set(
                key,
                (response.status_code, response["Content-Type"], response.content),
                PAGE_TIMEOUT,
            )
        response["X-Cache"] = "miss"
    # Browsers and shared caches (a CDN) may keep the page but must ask again before they
    # show it: while the content has not changed, the page's ETag gets a 304, for a query.
    response["ETag"] = quote_etag(f"{version}-{digest[:32]}")
    patch_cache_control(response, public=True, no_cache=True)
    return get_conditional_response(request, etag=response["ETag"], response=response)
