"""The shared cache's backend keeps one Redis client a server (incidentlib.cache): Django's
made one for every operation, a tenth of a cached page's hit."""

from concurrent.futures import ThreadPoolExecutor

from django.core.cache import caches

from tests.public.test_caching import shared_redis  # noqa: F401 (a fixture)


def test_every_operation_goes_through_the_one_client_kept(shared_redis):  # noqa: F811
    backend = caches["default"]._cache
    first = backend.get_client("a")
    caches["default"].set("a", 1)
    caches["default"].get_many(["a", "b"])
    assert backend.get_client("b") is first
    assert backend.get_client("a", write=True) is first  # one server: reads and writes


def test_threads_sharing_the_client_each_read_what_they_wrote(shared_redis):  # noqa: F811
    cache = caches["default"]

    def write_and_read(thread):
        for n in range(100):
            key = f"thread-{thread}-{n}"
            cache.set(key, (thread, n), 30)
            assert cache.get_many([key]) == {key: (thread, n)}
        return thread

    with ThreadPoolExecutor(8) as pool:
        assert sorted(pool.map(write_and_read, range(8))) == list(range(8))
