import gc
import weakref

import pytest

from incidentlib import heap

pytestmark = pytest.mark.django_db


@pytest.fixture
def freezing(settings):
    heap.reset()
    settings.HEAP_FREEZE_AFTER = 3
    settings.HEAP_FREEZE_EVERY = 4
    yield settings
    heap.reset()


class Node:
    def __init__(self):
        self.other = None


def serve(client, count):
    for _ in range(count):
        assert client.get("/healthz").status_code == 200


def test_a_warmed_process_freezes_its_heap_and_full_collections_leave_it_aside(client, freezing):
    serve(client, 2)
    before = gc.get_freeze_count()  # (the interpreter's own few hundred)
    serve(client, 1)
    frozen = gc.get_freeze_count()
    assert frozen > before + 10_000  # the apps, the URL patterns, the templates
    # A full collection now walks only what came since.
    assert len(gc.get_objects()) < frozen


def test_what_came_since_is_frozen_in_its_turn(client, freezing):
    serve(client, 3)
    first = gc.get_freeze_count()
    kept = [[index] for index in range(5000)]  # long-lived, as a new index would be
    serve(client, 3)
    assert gc.get_freeze_count() < first + len(kept)
    serve(client, 1)
    assert gc.get_freeze_count() >= first + len(kept)


def test_garbage_is_freed_before_the_heap_is_frozen(client, freezing):
    serve(client, 2)
    one, two = Node(), Node()
    one.other, two.other = two, one  # a cycle: only the collector frees it
    gone = weakref.ref(one)
    del one, two
    gc.disable()  # (no collection but the freeze's own)
    try:
        serve(client, 1)
    finally:
        gc.enable()
    assert gone() is None


def test_a_process_set_not_to_freeze_never_does(client, settings):
    heap.reset()
    settings.HEAP_FREEZE_AFTER = 0
    before = gc.get_freeze_count()
    serve(client, 5)
    assert gc.get_freeze_count() <= before
