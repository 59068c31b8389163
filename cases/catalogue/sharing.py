"""A facet index built once for every process, where they share a cache (Redis).

After a change of everything (a relabelled term, a large import) every process needs a new
index at once: at 100,000 cases 0.4 to 0.7 s each to build, while the pages they render
wait. With a shared cache the first process to need it builds it and puts it there, and
the others take it from there (milliseconds) instead of building their own; an import
builds it itself before it commits and shares it as it commits, so no process has to.
The index is keyed by the version it holds, so a process only ever takes the index of
the version it reads.
"""

from django.conf import settings
from django.core.cache import cache

from cases.caching import once_across_processes
from cases.rendering_ahead import writes_seen_when_committed

KEPT = 60 * 60  # seconds a shared index stays in the cache
WAIT = 5.0  # seconds a process waits for another's index before building its own
POLL = 0.02


def _key(using, version):
    return f"facet-index:{using}:{version}"


def shared_or_built(using, version, build):
    """The index of `version`: from the shared cache, or built by `build(using, version)`
    (and shared), or, while another process builds it, that process's."""
    if not settings.FACET_INDEX_SHARED:
        return build(using, version)
    key = _key(using, version)
    index = cache.get(key)
    if index is not None:
        return index
    lock = f"{key}:building"
    taken, index = once_across_processes(
        lock, hold=60, wait=WAIT, poll=POLL, ready=lambda: cache.get(key)
    )
    if index is not None:
        return index
    try:
        index = build(using, version)
        if taken:
            cache.set(key, index, KEPT)
    finally:
        if taken:
            cache.delete(lock)
    return index


def share_when_committed(using, version, build):
    """In the transaction that moved the version to `version` with a change of everything,
    after its writes: build the index as the transaction sees it, and share it as the
    transaction commits (never, if it rolls back)."""
    if not settings.FACET_INDEX_SHARED:
        return
    index = build(using, version)
    with writes_seen_when_committed(using):  # (and this process's pages rendered ahead)
        cache.set(_key(using, version), index, KEPT)
