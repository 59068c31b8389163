"""Anonymous public pages come from the cache until public content changes.

Every cached page's key carries a version number of the public content. Anything that
changes what the public sees (approving, withdrawing, importing, relabelling terms) bumps
that number once its transaction commits, so the next request renders afresh: a reader
never gets a stale case after the change. Old entries simply expire. The cache is Django's:
local memory by default, Redis (shared by every app server) when REDIS_URL is set.
"""

import functools
import hashlib

from django.core.cache import cache
from django.db import transaction
from django.http import HttpResponse
from django.utils.cache import patch_cache_control

VERSION_KEY = "public-content-version"
PAGE_TIMEOUT = 60 * 60
CACHED_STATUSES = {200, 404, 410}


def public_version():
    version = cache.get(VERSION_KEY)
    if version is None:
        cache.add(VERSION_KEY, 1, timeout=None)
        version = cache.get(VERSION_KEY, 1)
    return version


def _bump():
    try:
        cache.incr(VERSION_KEY)
    except ValueError:
        cache.set(VERSION_KEY, 2, timeout=None)


def public_content_changed():
    """Call where the public content changes; takes effect when the transaction commits."""
    transaction.on_commit(_bump)


def page_key(request):
    digest = hashlib.sha256(request.get_full_path().encode()).hexdigest()
    return f"public-page:{public_version()}:{digest}"


def cache_public_page(view):
    """Serve anonymous GET requests from the cache; staff always see the database."""

    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        if request.method not in ("GET", "HEAD") or request.user.is_authenticated:
            return view(request, *args, **kwargs)
        key = page_key(request)
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
        # Browsers and shared caches may keep a page briefly; ours is invalidated exactly.
        patch_cache_control(response, public=True, max_age=60)
        return response

    return wrapper
