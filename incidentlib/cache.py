"""The shared cache's backend: Django's Redis cache, keeping one redis-py client a server,
and able to stage writes that a commit then puts in place.

Django's backend makes a new client for each operation (RedisCacheClient.get_client), and
making one fills its table of response callbacks: about 0.2 ms, a tenth of the CPU a cached
page's hit takes, which reads the cache once and often writes it once. A redis-py client is
safe to share between threads (each command takes a connection from its pool), and its pool
starts afresh in a forked process.
"""

import secrets

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient

# Seconds a staged value waits to be put in place; a rolled-back change's go with them.
STAGED_KEPT = 15 * 60


class KeptClientsCacheClient(RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}  # id of a connection pool -> the client over it

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class StagedWrites:
    """Values already serialised and stored on the server under names no reader asks for.
    `put_in_place` renames them to their keys: one round trip, nothing serialised or sent
    but the names, so a process on a starved CPU (a niced import, just committed) does it
    in a moment while readers wait for it."""

    def __init__(self, client, moves):
        self.client = client
        self.moves = moves  # key -> (staged name, key as stored, timeout in seconds or None)

    def __contains__(self, key):
        return key in self.moves

    def forget(self, key):
        """Leave `key` out of the move (written again since); its staged value expires."""
        self.moves.pop(key, None)

    def put_in_place(self, then_delete=()):
        pipeline = self.client.pipeline(transaction=True)  # (readers see all of it or none)
        for staged, stored, timeout in self.moves.values():
            pipeline.rename(staged, stored)
            if timeout is None:
                pipeline.persist(stored)
            else:
                pipeline.expire(stored, timeout)
        if then_delete:
            pipeline.delete(*then_delete)
        # A staged value gone (kept past STAGED_KEPT) fails its rename alone: its page
        # is rendered again by its first reader.
        pipeline.execute(raise_on_error=False)
        self.moves = {}

    def discard(self):
        if self.moves:
            self.client.delete(*(staged for staged, _stored, _timeout in self.moves.values()))
            self.moves = {}


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = KeptClientsCacheClient

    def stage_many(self, entries, version=None):
        """Serialise and store `entries` ({key: (value, timeout)}) now, where no reader
        looks; the StagedWrites returned puts them under their keys. An entry whose
        timeout is 0 (a `set` that deletes) is not staged: `key in` the StagedWrites
        says which are."""
        client = self._cache.get_client(None, write=True)
        prefix = f"staged:{secrets.token_hex(8)}:"
        moves, pipeline = {}, client.pipeline(transaction=False)
        for key, (value, timeout) in entries.items():
            seconds = self.get_backend_timeout(timeout)
            if seconds == 0:
                continue
            stored = self.make_and_validate_key(key, version=version)
            pipeline.set(prefix + stored, self._cache._serializer.dumps(value), ex=STAGED_KEPT)
            moves[key] = (prefix + stored, stored, seconds)
        if moves:
            pipeline.execute()
        return StagedWrites(client, moves)
