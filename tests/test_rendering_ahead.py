"""A large import renders the most-read pages before it commits (cases.rendering_ahead): the
cache gets them as it commits, never if it rolls back, and readers find them at once."""

import io

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection, transaction
from django.utils import translation

from bench.processes import rendered_ahead_of
from cases import rendering_ahead
from cases.caching import page_key, public_version, read_entry, rendering_lock
from cases.catalogue import sharing
from cases.editorial import transitions as workflow
from cases.exchange.importer import CaseImporter
from cases.exchange.reading import Input
from cases.models import ContentVersion
from cases.rendering_ahead import most_read, share_reads
from cases.routers import ReadReplicaMiddleware, _public_read
from incidentlib.cache import STAGED_KEPT
from tests.factories import CaseFactory, UserFactory
from tests.public.test_caching import REDIS_URL as TEST_REDIS_URL
from tests.public.test_caching import shared_redis  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

LIST, KOREAN_LIST, CASE = "/en/cases/", "/ko/cases/", "/en/cases/IL-0001/"


@pytest.fixture
def rendering(settings, monkeypatch):
    """Pages rendered ahead; every read shared at once; every import a change of all."""
    settings.RENDER_AHEAD_PAGES = 10
    monkeypatch.setattr(rendering_ahead, "READS_SHARED_EVERY", 1)
    monkeypatch.setattr("cases.exchange.importer.MOST_CASES", 0)


@pytest.fixture
def read_pages(client, rendering):
    return pages_read(client)


def pages_read(client):
    CaseFactory(public_id="IL-0001", title_en="Alpha")
    CaseFactory(public_id="IL-0002", title_en="Beta")
    for _read in range(3):
        for page in (LIST, KOREAN_LIST, CASE):
            assert client.get(page).status_code == 200
    return client


def import_seed(seed_case, write_json):
    path = write_json("import.json", seed_case)
    return CaseImporter([Input(str(path), path, json_lines=False)]).run()


def assert_the_next_change_shows_as_rendered_afresh(client, capture_on_commit_callbacks):
    """After a change that rendered ahead and did not commit: the next change takes the
    number it would have had, and the list shows that change alone, as a process that
    never saw the other renders it (its counts too)."""
    with capture_on_commit_callbacks(execute=True):
        workflow.case_withdraw(
            case=CaseFactory._meta.model.objects.get(public_id="IL-0002"),
            user=UserFactory(role="reviewer"),
            note="Retracted.",
        )
    shown = client.get(LIST).content.decode()
    assert "IL-0585" not in shown and "IL-0002" not in shown and "IL-0001" in shown
    cache.clear()
    rendering_ahead.forget_rendered_ahead()
    assert client.get(LIST).content.decode() == shown


def test_reads_are_registered_most_read_first(read_pages):
    read_pages.get(LIST)
    assert [path for path, _host, _secure in most_read()][:1] == [LIST]
    assert {path for path, _host, _secure in most_read()} == {LIST, KOREAN_LIST, CASE}


def test_older_reads_count_for_less():
    share_reads({("/old/", "testserver", False): 10}, now=0)
    share_reads({("/new/", "testserver", False): 3}, now=60 * 60)  # six half-lives on
    assert [path for path, _host, _secure in most_read()] == ["/new/", "/old/"]


def test_the_register_keeps_only_the_most_read(monkeypatch):
    monkeypatch.setattr(rendering_ahead, "MOST_READ_KEPT", 2)
    share_reads({(f"/{n}/", "testserver", False): n for n in range(1, 6)}, now=0)
    assert [path for path, _host, _secure in most_read()] == ["/5/", "/4/"]


def test_after_an_import_the_most_read_pages_are_in_the_cache_at_once(
    read_pages, seed_case, write_json, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        result = import_seed(seed_case, write_json)
    assert result.rendered_ahead.rendered == 3 and result.rendered_ahead.failed == 0
    # The finding (make load, during an import): every page was rendered by the readers
    # who asked for it in the seconds after the commit, and they waited for it.
    for page in (LIST, KOREAN_LIST):
        response = read_pages.get(page)
        assert response["X-Cache"] == "hit"
        assert "IL-0585" in response.content.decode()
    rendered_ahead = read_pages.get(LIST).content
    cache.clear()
    rendering_ahead.forget_rendered_ahead()
    assert read_pages.get(LIST)["X-Cache"] == "miss"
    assert read_pages.get(LIST).content == rendered_ahead


def test_an_import_that_rolls_back_leaves_the_cache_and_the_process_as_they_were(
    read_pages, seed_case, write_json, monkeypatch, django_capture_on_commit_callbacks
):
    before = read_pages.get(LIST).content.decode()

    render = rendering_ahead.render_ahead

    def render_then_fail(using):
        render(using)
        raise RuntimeError("the import failed after rendering ahead")

    monkeypatch.setattr(rendering_ahead, "render_ahead", render_then_fail)
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError):
        import_seed(seed_case, write_json)
    response = read_pages.get(LIST)
    assert response["X-Cache"] == "hit" and response.content.decode() == before
    assert "IL-0585" not in response.content.decode()
    # The next change takes the number the import's would have had: nothing this process
    # remembered of that content (its index counted IL-0585) is taken for this one's.
    assert_the_next_change_shows_as_rendered_afresh(read_pages, django_capture_on_commit_callbacks)


def test_a_page_that_fails_to_render_ahead_is_left_and_the_import_commits(
    read_pages, seed_case, write_json, monkeypatch, django_capture_on_commit_callbacks
):
    def broken(*args, **kwargs):
        with connection.cursor() as cursor:  # (on PostgreSQL, the transaction would abort)
            cursor.execute("SELECT * FROM no_such_table")

    monkeypatch.setattr("cases.public.views.render_case", broken)
    with django_capture_on_commit_callbacks(execute=True):
        result = import_seed(seed_case, write_json)
    assert result.rendered_ahead.failed == 1 and result.rendered_ahead.rendered == 2
    assert CaseFactory._meta.model.objects.filter(public_id="IL-0585").exists()
    monkeypatch.undo()
    response = read_pages.get(CASE)
    assert response.status_code == 200 and response["X-Cache"] == "miss"


def test_pages_render_ahead_under_the_imports_statement_limit_not_the_publics(
    read_pages, seed_case, write_json, settings, django_capture_on_commit_callbacks
):
    if connection.vendor != "postgresql":
        pytest.skip("statement timeouts are PostgreSQL's")
    settings.PUBLIC_STATEMENT_TIMEOUT_MS = 1  # every public page's queries would be cut
    with django_capture_on_commit_callbacks(execute=True):
        result = import_seed(seed_case, write_json)
    assert result.rendered_ahead.failed == 0 and result.rendered_ahead.rendered == 3
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('statement_timeout')")
        assert cursor.fetchone()[0] != "1ms"


def test_nothing_is_rendered_ahead_where_it_is_off(
    read_pages, seed_case, write_json, settings, django_capture_on_commit_callbacks
):
    settings.RENDER_AHEAD_PAGES = 0
    with django_capture_on_commit_callbacks(execute=True):
        result = import_seed(seed_case, write_json)
    assert result.rendered_ahead.rendered == 0
    assert read_pages.get(LIST)["X-Cache"] == "miss"


def test_the_importing_threads_language_is_its_own_after_rendering_korean_pages(
    client, rendering, seed_case, write_json, django_capture_on_commit_callbacks
):
    CaseFactory(public_id="IL-0001")
    assert client.get(KOREAN_LIST).status_code == 200
    with translation.override("en"), django_capture_on_commit_callbacks(execute=True):
        result = import_seed(seed_case, write_json)
        # (an import uploaded in the admin goes on to answer its editor in English)
        assert translation.get_language() == "en"
    assert result.rendered_ahead.rendered == 1


def test_the_import_command_says_what_it_rendered_ahead(
    read_pages, seed_case, write_json, django_capture_on_commit_callbacks
):
    stdout = io.StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("import_cases", str(write_json("a.json", seed_case)), stdout=stdout)
    said = stdout.getvalue().splitlines()
    assert any(
        line.startswith("Most-read pages rendered before the commit: 3 (0 still good, 0 failed)")
        for line in said
    )
    assert said[-1].startswith("created 1")  # (still the last line, for scripts)
    # make load's import rows say it too (bench/load.py)
    assert rendered_ahead_of(stdout.getvalue()).startswith(
        "pages rendered ahead: 3 (0 still good, 0 failed) in "
    )


def test_make_load_says_so_of_an_import_that_rendered_nothing_ahead():
    assert rendered_ahead_of("created 3, updated 0\n") == "no page rendered ahead"


def test_a_page_rendered_ahead_reads_the_primary_where_readers_read_a_replica(settings):
    settings.READ_REPLICA_ENABLED = True
    seen = {}

    def view(request):
        seen[request.path] = _public_read.get()
        return None

    middleware = ReadReplicaMiddleware(view)
    reader = rendering_ahead.request_for(LIST, "testserver", False)
    del reader.META[rendering_ahead.RENDERED_AHEAD]
    for request in (reader, rendering_ahead.request_for(CASE, "testserver", False)):
        request.user = AnonymousUser()
        middleware(request)
    # (the transaction that renders it is the primary's: a replica has none of its rows)
    assert seen == {LIST: True, CASE: False}


def test_pages_rendered_for_a_version_another_change_took_are_not_kept(
    read_pages, seed_case, write_json, monkeypatch, django_capture_on_commit_callbacks
):
    render = rendering_ahead.render_ahead

    def render_while_another_changes(using):
        done = render(using)
        # Another change moves the version while the pages render (here, in this test's
        # one transaction; on a server, another's, committed first).
        ContentVersion.bump(using)
        return done

    monkeypatch.setattr(rendering_ahead, "render_ahead", render_while_another_changes)
    with django_capture_on_commit_callbacks(execute=True):
        result = import_seed(seed_case, write_json)
    assert result.rendered_ahead.discarded and result.rendered_ahead.rendered == 3
    response = read_pages.get(LIST)
    assert response["X-Cache"] == "miss" and "IL-0585" in response.content.decode()


def test_the_version_is_locked_only_after_the_pages_are_rendered(
    read_pages, seed_case, write_json, monkeypatch, django_capture_on_commit_callbacks
):
    render, seen = rendering_ahead.render_ahead, {}

    def render_and_look(using):
        seen["version while rendering"] = ContentVersion.current(using)
        seen["pages as of"] = public_version()
        return render(using)

    monkeypatch.setattr(rendering_ahead, "render_ahead", render_and_look)
    before = ContentVersion.current("default")
    with django_capture_on_commit_callbacks(execute=True):
        import_seed(seed_case, write_json)
    # (not yet moved, so not yet locked: an editor's approval meanwhile does not wait)
    assert seen == {"version while rendering": before, "pages as of": before + 1}
    assert ContentVersion.current("default") == before + 1
    assert read_pages.get(LIST)["X-Cache"] == "hit"


def test_readers_wait_for_the_pages_rendered_ahead_rather_than_render_them_again(
    read_pages, seed_case, write_json, django_capture_on_commit_callbacks
):
    key = page_key(LIST)[0]
    with django_capture_on_commit_callbacks(execute=False) as committing:
        import_seed(seed_case, write_json)
    version = ContentVersion.current("default")
    # Committed, and the pages not yet stored: a reader of the new version finds the lock
    # taken, and waits (cases.caching.rendered_by_another).
    assert cache.get(rendering_lock(key, version)) is True
    assert read_entry(key)[0][1] == version - 1
    for callback in committing:
        callback()
    assert cache.get(rendering_lock(key, version)) is None
    assert read_entry(key)[0][1] == version


def test_an_import_undone_by_the_transaction_around_it_is_forgotten_too(
    read_pages, seed_case, write_json, django_capture_on_commit_callbacks
):
    # (an import called inside a larger transaction: its own block ends well, and the
    # larger one rolls back after it)
    with pytest.raises(RuntimeError), transaction.atomic():
        assert import_seed(seed_case, write_json).rendered_ahead.rendered == 3
        raise RuntimeError("the request around the import failed after it")
    assert "IL-0585" not in read_pages.get(LIST).content.decode()
    assert_the_next_change_shows_as_rendered_afresh(read_pages, django_capture_on_commit_callbacks)


# --- with the shared cache of several app servers (Redis) ---------------------------------


@pytest.fixture
def read_pages_shared(shared_redis, client, rendering, settings):  # noqa: F811
    """read_pages, with the pages (and the facet index) in Redis: where the commit puts
    staged pages in place."""
    settings.FACET_INDEX_SHARED = True
    return pages_read(client)


def shared():
    """The Redis database read_pages_shared puts the pages in."""
    import redis

    return redis.Redis.from_url(TEST_REDIS_URL)


def staged_names():
    return list(shared().scan_iter("staged:*"))


def forbidden(what):
    def fail(*args, **kwargs):
        raise AssertionError(what)

    return fail


def test_an_imports_commit_serialises_nothing_it_only_puts_staged_pages_in_place(
    read_pages_shared,
    seed_case,
    write_json,
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    # The finding (an import niced to 19 under make load's readers): its commit serialised
    # and sent 80 pages and the facet index, 6 MB, on the CPU readers left: 1.7 s, while
    # readers of the new version waited for them.
    key = page_key(LIST)[0]
    with django_capture_on_commit_callbacks(execute=False) as committing:
        import_seed(seed_case, write_json)
    version = ContentVersion.current("default")
    assert staged_names()  # (stored before the commit, where no reader looks)
    assert read_entry(key)[0][1] == version - 1
    with monkeypatch.context() as patched:
        patched.setattr(cache._cache._serializer, "dumps", forbidden("serialising at the commit"))
        for callback in committing:
            callback()
    assert read_entry(key)[0][1] == version and b"IL-0585" in read_entry(key)[0][5]
    assert cache.get(rendering_lock(key, version)) is None
    assert not staged_names()
    assert read_pages_shared.get(LIST)["X-Cache"] == "hit"


def test_pages_put_in_place_keep_the_cache_timeout_they_were_written_with(
    read_pages_shared,
    seed_case,
    write_json,
    django_capture_on_commit_callbacks,
):
    with django_capture_on_commit_callbacks(execute=True):
        import_seed(seed_case, write_json)
    version = ContentVersion.current("default")
    index = cache.make_and_validate_key(f"facet-index:default:{version}")
    assert 0 < shared().ttl(index) <= sharing.KEPT
    assert not staged_names()


def test_a_rolled_back_imports_staged_pages_lapse_and_readers_never_see_them(
    read_pages_shared,
    seed_case,
    write_json,
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    before = read_pages_shared.get(LIST).content
    change = rendering_ahead.changed_with_pages_ahead

    def change_then_fail(*args, **kwargs):
        change(*args, **kwargs)
        raise RuntimeError("the import failed after staging its pages")

    monkeypatch.setattr("cases.exchange.importer.changed_with_pages_ahead", change_then_fail)
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError):
        import_seed(seed_case, write_json)
    names = staged_names()
    assert names and all(0 < shared().ttl(name) <= STAGED_KEPT for name in names)
    assert read_pages_shared.get(LIST).content == before
    assert_the_next_change_shows_as_rendered_afresh(
        read_pages_shared, django_capture_on_commit_callbacks
    )


def test_pages_staged_for_a_version_another_change_took_are_deleted(
    read_pages_shared,
    seed_case,
    write_json,
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    render = rendering_ahead.render_ahead

    def render_while_another_changes(using):
        done = render(using)
        ContentVersion.bump(using)  # (as in the test above, without Redis)
        return done

    monkeypatch.setattr(rendering_ahead, "render_ahead", render_while_another_changes)
    with django_capture_on_commit_callbacks(execute=True):
        result = import_seed(seed_case, write_json)
    assert result.rendered_ahead.discarded
    assert not staged_names()
    response = read_pages_shared.get(LIST)
    assert response["X-Cache"] == "miss" and "IL-0585" in response.content.decode()
