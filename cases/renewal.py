"""A change of a few cases renews the cached pages that show them, after its commit, in
the process that made it.

After a correction the first reader of each page that shows the corrected case mends it
or renders it again (cases.caching), on a reader's app server and while other readers
wait behind it: under load those answers were most of the slowest one in a hundred. So
the change's own process, an editors' app server below the readers' priority, asks for
those pages itself as soon as the change is committed, through the page cache as an
anonymous reader would: each is mended, rendered again or found still good exactly as
a reader's request would find it, and readers then get hits. A reader who comes first
does the work as before; the renewal then finds the page good. Nothing is rendered
before the commit, so no page shows content that is not yet public.

Which pages: each process that renders a page whole notes, under each case the page
shows, the page's path (`remember_shown`), at most SHOWN_ON_KEPT paths a case, the most
recent last. It is a hint kept in the shared cache: two processes noting at once may lose
one's path, and that page is then left to its readers. Only pages still in the cache are
asked for. Limits: settings.RENEW_PAGES_AFTER_CHANGE pages a change (0: off; on where
the app servers share a cache), and a change of everything (an import) renders ahead of
its commit instead (cases.rendering_ahead).
"""

import logging
import time
from dataclasses import dataclass, field
from functools import partial
from urllib.parse import urlsplit

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import translation

logger = logging.getLogger(__name__)

SHOWN_ON_KEPT = 48


def shown_on_key(case_pk):
    from cases.caching import PAGE_FORMAT

    return f"public-shown-on:{PAGE_FORMAT}:{case_pk}"


def remember_shown(full_path, case_pks):
    """Note that the page at `full_path`, just rendered and cached, shows these cases."""
    if not settings.RENEW_PAGES_AFTER_CHANGE or not case_pks:
        return
    keys = [shown_on_key(pk) for pk in case_pks]
    found = cache.get_many(keys)
    noted = {}
    for key in keys:
        paths = found.get(key, ())
        if full_path not in paths:
            noted[key] = (*paths[-(SHOWN_ON_KEPT - 1) :], full_path)
    if noted:
        from cases.caching import PAGE_TIMEOUT

        cache.set_many(noted, PAGE_TIMEOUT)


def renew_when_committed(case_pks, using):
    """In the transaction of a change of these cases: renew their pages once it commits."""
    if settings.RENEW_PAGES_AFTER_CHANGE and case_pks:
        transaction.on_commit(partial(renew_pages, frozenset(case_pks)), using=using)


@dataclass
class Renewed:
    """What a renewal found, by the page cache's answer: "mended", "miss" (rendered whole),
    "hit" (still good, or renewed by a reader first)."""

    answers: dict = field(default_factory=dict)  # path -> X-Cache
    failed: int = 0
    seconds: float = 0.0


def pages_showing(case_pks):
    """The cached pages that show any of these cases, as noted, most recent first."""
    from cases.caching import page_key

    found = cache.get_many([shown_on_key(pk) for pk in sorted(case_pks)])
    paths = []
    for noted in found.values():
        paths.extend(path for path in reversed(noted) if path not in paths)
    paths = paths[: settings.RENEW_PAGES_AFTER_CHANGE]
    keys = {page_key(path)[0]: path for path in paths}
    cached = cache.get_many(list(keys))  # (what each entry is, not its content)
    return [path for key, path in keys.items() if key in cached]


def renew_pages(case_pks):
    """Ask for the cached pages that show these cases, as a reader would. Never raises:
    the change is committed, and a page left unrenewed is renewed by its first reader."""
    from cases.rendering_ahead import handler, request_for

    renewed = Renewed()
    began = time.monotonic()
    try:
        address = urlsplit(settings.SITE_URL)
        host, secure = address.netloc, address.scheme == "https"
        with translation.override(translation.get_language()):  # (each page sets its own)
            for path in pages_showing(case_pks):
                response = handler().get_response(request_for(path, host, secure, after=True))
                if response.status_code >= 500:
                    renewed.failed += 1
                else:
                    renewed.answers[path] = response.get("X-Cache", "")
    except Exception:  # (an unreachable cache, say: readers renew the pages)
        logger.exception("Renewing the pages of cases %s failed", sorted(case_pks))
        renewed.failed += 1
    renewed.seconds = time.monotonic() - began
    return renewed
