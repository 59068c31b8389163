"""The shared cache's backend (incidentlib.cache) keeps one Redis client a server: Django's
made one for every operation, a tenth of a cached page's hit. It stages writes that a
commit puts in place without serialising them then."""

from concurrent.futures import ThreadPoolExecutor

from django.core.cache import caches

from cases.rendering_ahead import WritesOnCommit
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


def test_staged_values_are_seen_only_once_put_in_place_with_their_timeouts(shared_redis):  # noqa: F811
    cache = caches["default"]
    cache.set("page", "old", 30)
    staged = cache.stage_many({"page": ("new", 300), "kept": ("always", None), "gone": (1, 0)})
    assert cache.get("page") == "old" and cache.get("kept") is None
    assert "page" in staged and "gone" not in staged  # (a timeout of 0 deletes: not staged)
    cache.set("lock", True, 30)
    staged.put_in_place(then_delete=[cache.make_and_validate_key("lock")])
    assert cache.get_many(["page", "kept", "lock"]) == {"page": "new", "kept": "always"}
    assert 30 < shared_redis.ttl(cache.make_and_validate_key("page")) <= 300
    assert shared_redis.ttl(cache.make_and_validate_key("kept")) == -1  # (no expiry)
    assert not list(shared_redis.scan_iter("staged:*"))


def test_discarded_staged_values_are_deleted_and_never_put_in_place(shared_redis):  # noqa: F811
    cache = caches["default"]
    staged = cache.stage_many({"page": ("new", 300)})
    staged.discard()
    staged.put_in_place()
    assert cache.get("page") is None and not list(shared_redis.scan_iter("staged:*"))


def test_a_key_written_again_after_staging_is_committed_as_last_written(shared_redis):  # noqa: F811
    cache = caches["default"]
    writes = WritesOnCommit(cache)
    writes.set("page", "first", 300)
    writes.set("index", "built", 300)
    writes.stage()
    writes.set("page", "second", 300)  # (the import's version taken: made again)
    writes.delete("index")
    assert writes.get("page") == "second" and writes.get("index") is None
    writes.commit()
    assert cache.get_many(["page", "index"]) == {"page": "second"}
