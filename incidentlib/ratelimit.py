"""How often one address may use something: the API, the forms readers send.

A fixed window per address and scope, counted in the shared cache (Redis in production, so
every worker counts together; each process's own memory otherwise). The window starts at
an address's first request and its count goes with it: a client told to wait `Retry-After`
seconds finds a fresh window then.
"""

import time
from dataclasses import dataclass

from django.core.cache import cache

from incidentlib.security import client_ip

KEY_PREFIX = "ratelimit"


@dataclass(frozen=True)
class Limit:
    """At most `requests` in `seconds` from one address."""

    scope: str
    requests: int
    seconds: int

    def wait(self, request):
        """Counts this request; the seconds to wait if it is one too many, else 0."""
        address = client_ip(request) or "unknown"
        key = f"{KEY_PREFIX}:{self.scope}:{address}"
        now = int(time.time())
        # The window's start and count are written by its first request only (add).
        started = cache.get_or_set(f"{key}:start", now, self.seconds)
        cache.add(f"{key}:count", 0, self.seconds)
        try:
            count = cache.incr(f"{key}:count")
        except ValueError:  # the count expired between add() and incr()
            cache.set(f"{key}:count", 1, self.seconds)
            count = 1
        if count <= self.requests:
            return 0
        return max(1, int(started) + self.seconds - now)


def too_many(response, seconds):
    """A 429 response saying when to try again."""
    response.status_code = 429
    response["Retry-After"] = str(seconds)
    return response
