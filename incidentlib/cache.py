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


# Renames every staged value named in the hash KEYS[1] (staged name -> "key<TAB>timeout",
# -1: none) to its key, with its timeout; then deletes the hash and the keys in ARGV. On the
# server, in one call: the caller sends two names and a few more, however many there are.
PUT_IN_PLACE = """
local moves = redis.call('HGETALL', KEYS[1])
for i = 1, #moves, 2 do
  local tab = string.find(moves[i + 1], '\t', 1, true)
  local key = string.sub(moves[i + 1], 1, tab - 1)
  local timeout = tonumber(string.sub(moves[i + 1], tab + 1))
  if redis.call('EXISTS', moves[i]) == 1 then
    redis.call('RENAME', moves[i], key)
    if timeout < 0 then redis.call('PERSIST', key) else redis.call('EXPIRE', key, timeout) end
  end
end
redis.call('DEL', KEYS[1])
for i = 1, #ARGV do redis.call('DEL', ARGV[i]) end
"""


class StagedWrites:
    """Values already serialised and stored on the server under names no reader asks for,
    and the list of their moves beside them. `put_in_place` has the server rename them to
    their keys: one call whose size does not grow with them, so a process on a starved CPU
    (a niced import, just committed) does it in a moment while readers wait for it. (A
    script that names keys it was not given: Redis itself, not Redis Cluster.)"""

    def __init__(self, client, moves_name, staged):
        self.client = client
        self.moves_name = moves_name  # the hash of moves, on the server
        self.staged = staged  # key -> its staged name

    def __contains__(self, key):
        return key in self.staged

    def forget(self, key):
        """Leave `key` out of the move (written again since)."""
        name = self.staged.pop(key, None)
        if name is not None:
            self.client.pipeline().hdel(self.moves_name, name).delete(name).execute()

    def put_in_place(self, then_delete=()):
        if not self.staged:
            if then_delete:
                self.client.delete(*then_delete)
            return
        # A staged value gone (kept past STAGED_KEPT) is left out: its page is rendered
        # again by its first reader.
        self.client.eval(PUT_IN_PLACE, 1, self.moves_name, *then_delete)
        self.staged = {}

    def discard(self):
        if self.staged:
            self.client.delete(self.moves_name, *self.staged.values())
            self.staged = {}


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
        staged, moves, pipeline = {}, {}, client.pipeline(transaction=False)
        for key, (value, timeout) in entries.items():
            seconds = self.get_backend_timeout(timeout)
            if seconds == 0:
                continue
            stored = self.make_and_validate_key(key, version=version)
            staged[key] = prefix + stored
            pipeline.set(staged[key], self._cache._serializer.dumps(value), ex=STAGED_KEPT)
            moves[staged[key]] = f"{stored}\t{-1 if seconds is None else seconds}"
        if moves:
            pipeline.hset(prefix + "moves", mapping=moves)
            pipeline.expire(prefix + "moves", STAGED_KEPT)
            pipeline.execute()
        return StagedWrites(client, prefix + "moves", staged)
