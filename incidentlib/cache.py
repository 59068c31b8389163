"""The shared cache's backend: Django's Redis cache, keeping one redis-py client a server.

Django's backend makes a new client for each operation (RedisCacheClient.get_client), and
making one fills its table of response callbacks: about 0.2 ms, a tenth of the CPU a cached
page's hit takes, which reads the cache once and often writes it once. A redis-py client is
safe to share between threads (each command takes a connection from its pool), and its pool
starts afresh in a forked process.
"""

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient


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


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = KeptClientsCacheClient
