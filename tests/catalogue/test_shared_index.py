"""Where processes share a cache, the facet index built after a change of everything is
built once and taken by the others; an import builds it before it commits."""

import io

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from cases.caching import public_content_changed, public_version
from cases.catalogue.facet_index import build, current_facet_index, forget
from cases.catalogue.sharing import share_when_committed
from tests.catalogue.test_following_changes import built_afresh_in, index_state
from tests.factories import CaseFactory
from tests.public.test_caching import shared_redis  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture
def shared(settings, shared_redis):  # noqa: F811
    settings.FACET_INDEX_SHARED = True


def as_another_process():
    """What a process that has never built an index sees next."""
    forget()
    with CaptureQueriesContext(connection) as queries:
        index = current_facet_index("default")
    return index, queries


def test_one_process_builds_the_index_after_a_change_of_everything_and_the_others_take_it(
    shared,
):
    CaseFactory.create_batch(3)
    public_content_changed()
    _first, queries = as_another_process()
    assert built_afresh_in(queries)
    taken, queries = as_another_process()
    assert not built_afresh_in(queries)
    assert index_state(taken) == index_state(build("default", public_version()))


def test_an_import_shares_the_index_it_built_as_it_commits(
    shared, seed_case, write_json, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr("cases.exchange.importer.MOST_CASES", 0)  # a change of everything
    CaseFactory()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("import_cases", str(write_json("a.json", seed_case)), stdout=io.StringIO())
    index, queries = as_another_process()
    assert not built_afresh_in(queries)
    assert index.version == public_version()
    assert index_state(index) == index_state(build("default", public_version()))


def test_a_transaction_that_rolls_back_shares_nothing(shared, django_capture_on_commit_callbacks):
    CaseFactory()
    with django_capture_on_commit_callbacks() as callbacks:
        try:
            with transaction.atomic():
                version = public_content_changed()
                share_when_committed("default", version, build)
                raise RuntimeError("the import fails")
        except RuntimeError:
            pass
    assert callbacks == []
    assert cache.get(f"facet-index:default:{version}") is None


def test_a_process_waits_for_the_index_another_is_building_and_takes_it(shared):
    import threading

    from cases.catalogue.sharing import shared_or_built

    CaseFactory.create_batch(2)
    version = public_content_changed()
    key = f"facet-index:default:{version}"
    built = build("default", version)
    cache.set(f"{key}:building", True)  # another process has begun to build it

    def another_process_finishes():
        cache.set(key, built)
        cache.delete(f"{key}:building")

    def never(using, version):
        raise AssertionError("built again while another process built it")

    timer = threading.Timer(0.05, another_process_finishes)
    timer.start()
    taken = shared_or_built("default", version, never)
    timer.join()
    assert index_state(taken) == index_state(built)
