"""The anonymous page cache, its invalidation, and the read-replica router."""

import io
import os
import subprocess
import sys
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.core.cache import caches
from django.core.management import call_command
from django.db import connection, connections
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from cases.editorial import transitions as workflow
from cases.models import Case, ContentVersion, Vocabulary
from cases.routers import ReplicaRouter, _public_read
from tests.conftest import REPO
from tests.factories import CaseFactory, TermFactory, UserFactory

pytestmark = pytest.mark.django_db


def get_counting(client, url):
    with CaptureQueriesContext(connections["default"]) as queries:
        response = client.get(url)
    return response, [query["sql"] for query in queries]


def test_anonymous_pages_are_served_from_the_cache(client):
    CaseFactory(public_id="IL-0001", title_en="Cached case")
    first, first_queries = get_counting(client, "/en/cases/IL-0001/")
    second, second_queries = get_counting(client, "/en/cases/IL-0001/")
    assert first["X-Cache"] == "miss" and second["X-Cache"] == "hit"
    # A page from the cache asks the database one thing: the version of the content.
    assert len(first_queries) > 1
    assert len(second_queries) == 1 and ContentVersion._meta.db_table in second_queries[0]
    assert second.content == first.content
    for url in ("/en/cases/", "/en/cases.json", "/en/cases/IL-0001.json", "/en/graph.json"):
        client.get(url)
        assert client.get(url)["X-Cache"] == "hit", url


def test_staff_always_see_the_database(client):
    CaseFactory(public_id="IL-0001")
    client.force_login(UserFactory(role="editor"))
    client.get("/en/cases/")
    response = client.get("/en/cases/")
    assert "X-Cache" not in response


def test_approving_a_revision_is_seen_on_the_next_request(
    client, django_capture_on_commit_callbacks
):
    editor, reviewer = UserFactory(role="editor"), UserFactory(role="reviewer")
    case = CaseFactory(public_id="IL-0002", title_en="Before review")
    assert "Before review" in client.get("/en/cases/IL-0002/").content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        copy = workflow.case_start_revision(case=case, user=editor)
        Case.objects.filter(pk=copy.pk).update(title_en="After review", last_edited_by=editor)
        workflow.case_submit(case=copy, user=editor)
        workflow.case_approve(case=copy, user=reviewer)
    for url in ("/en/cases/IL-0002/", "/en/cases/", "/en/cases/IL-0002.json"):
        assert "After review" in client.get(url).content.decode(), url


def test_withdrawing_is_seen_on_the_next_request(client, django_capture_on_commit_callbacks):
    reviewer = UserFactory(role="reviewer")
    case = CaseFactory(public_id="IL-0003")
    assert client.get("/en/cases/IL-0003/").status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        workflow.case_withdraw(case=case, user=reviewer, note="Retracted.")
    assert client.get("/en/cases/IL-0003/").status_code == 410
    assert "IL-0003" not in client.get("/en/cases/").content.decode()


def test_an_import_is_seen_on_the_next_request(
    client, seed_case, write_json, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        call_command("import_cases", str(write_json("a.json", seed_case)), stdout=io.StringIO())
    client.get("/en/cases/IL-0585/")
    seed_case["title"]["en"] = "A corrected title"
    with django_capture_on_commit_callbacks(execute=True):
        call_command("import_cases", str(write_json("a.json", seed_case)), stdout=io.StringIO())
    assert "A corrected title" in client.get("/en/cases/IL-0585/").content.decode()


def test_relabelling_a_term_in_the_admin_is_seen(client, django_capture_on_commit_callbacks):
    term = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="dns", label_en="DNS")
    CaseFactory(with_terms=[term])
    assert "Name resolution" not in client.get("/en/cases/").content.decode()
    admin_client = client.__class__()
    admin_client.force_login(UserFactory(role="reviewer"))  # the public sees the term
    data = {
        "vocabulary": "component",
        "slug": "dns",
        "label_en": "Name resolution",
        "label_ko": "이름 해석",
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(f"/admin/cases/term/{term.pk}/change/", data)
    assert response.status_code == 302
    assert "Name resolution" in client.get("/en/cases/").content.decode()


def test_browsers_and_cdns_ask_again_and_get_304_until_the_content_changes(client):
    reviewer = UserFactory(role="reviewer")
    case = CaseFactory(public_id="IL-0007")
    listed = client.get("/en/cases/")
    assert "no-cache" in listed["Cache-Control"] and "public" in listed["Cache-Control"]
    again = client.get("/en/cases/", headers={"if-none-match": listed["ETag"]})
    assert again.status_code == 304 and again["ETag"] == listed["ETag"]
    assert "no-cache" in again["Cache-Control"]
    other_page = client.get("/ko/cases/", headers={"if-none-match": listed["ETag"]})
    assert other_page.status_code == 200
    workflow.case_withdraw(case=case, user=reviewer, note="Retracted.")
    after = client.get("/en/cases/", headers={"if-none-match": listed["ETag"]})
    assert after.status_code == 200 and after["ETag"] != listed["ETag"]
    assert "IL-0007" not in after.content.decode()


def memory_of(process):
    """The settings of one app process's own memory cache."""
    backend = "django.core.cache.backends.locmem.LocMemCache"
    return {"default": {"BACKEND": backend, "LOCATION": f"test-{process}"}}


def test_a_change_made_by_another_process_is_seen_on_the_next_request(client):
    reviewer = UserFactory(role="reviewer")
    case = CaseFactory(public_id="IL-0005")
    try:
        with override_settings(CACHES=memory_of("worker-1")):
            assert client.get("/en/cases/IL-0005/").status_code == 200
            assert "IL-0005" in client.get("/en/cases/").content.decode()
        with override_settings(CACHES=memory_of("worker-2")):
            workflow.case_withdraw(case=case, user=reviewer, note="Retracted.")
        with override_settings(CACHES=memory_of("worker-1")):
            assert client.get("/en/cases/IL-0005/").status_code == 410
            assert "IL-0005" not in client.get("/en/cases/").content.decode()
    finally:
        for process in ("worker-1", "worker-2"):
            with override_settings(CACHES=memory_of(process)):
                caches["default"].clear()


REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


@pytest.fixture
def shared_redis():
    """Redis as several app servers share it (a database of its own, emptied around the
    test); skipped where no Redis answers."""
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
    except redis.ConnectionError:
        pytest.skip(f"no Redis at {REDIS_URL}")
    backend = "incidentlib.cache.RedisCache"
    with override_settings(CACHES={"default": {"BACKEND": backend, "LOCATION": REDIS_URL}}):
        caches["default"].clear()
        yield redis.Redis.from_url(REDIS_URL)
        caches["default"].clear()


def test_pages_cached_in_redis_are_shared_and_renewed_after_a_change(client, shared_redis):
    reviewer = UserFactory(role="reviewer")
    case = CaseFactory(public_id="IL-0006")
    assert client.get("/en/cases/IL-0006/")["X-Cache"] == "miss"
    assert any(b"public-page" in key for key in shared_redis.scan_iter())
    assert client.get("/en/cases/IL-0006/")["X-Cache"] == "hit"
    workflow.case_withdraw(case=case, user=reviewer, note="Retracted.")
    assert client.get("/en/cases/IL-0006/").status_code == 410


def test_a_cache_shared_with_another_database_never_serves_its_pages(client, shared_redis):
    CaseFactory(public_id="IL-0007", title_en="From the first database")
    page = "/en/cases/IL-0007/"
    assert "From the first database" in client.get(page).content.decode()
    # The library starts again on a new database (same name, same Redis): its version row is
    # made afresh, its content differs, and it moves on as changes come.
    ContentVersion.objects.all().delete()
    Case.objects.filter(public_id="IL-0007").update(title_en="From the second database")
    for _change in range(10):
        ContentVersion.bump("default")
        # The finding: at the old database's number, its page was served as this one's.
        assert "From the second database" in client.get(page).content.decode()


def database_url():
    """The URL of the test database, for another process to use."""
    name = connection.settings_dict["NAME"]
    if connection.vendor == "sqlite":
        return f"sqlite:///{name}"
    return urlunsplit(urlsplit(os.environ["DATABASE_URL"])._replace(path=f"/{name}"))


def manage_in_another_process(*args):
    env = {**os.environ, "DATABASE_URL": database_url()}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    subprocess.run(
        [sys.executable, "manage.py", *args], cwd=REPO, env=env, check=True, capture_output=True
    )


@pytest.mark.django_db(transaction=True)
def test_an_import_run_from_the_shell_is_seen_by_the_running_site(client, seed_case, write_json):
    manage_in_another_process("import_cases", str(write_json("a.json", seed_case)))
    assert "HDFS" in client.get("/en/cases/IL-0585/").content.decode()  # now cached
    seed_case["title"]["en"] = "A title corrected from the shell"
    manage_in_another_process("import_cases", str(write_json("a.json", seed_case)))
    assert "corrected from the shell" in client.get("/en/cases/IL-0585/").content.decode()


# --- the replica router ----------------------------------------------------------


def test_router_sends_only_public_reads_to_the_replica(settings):
    router = ReplicaRouter()
    settings.READ_REPLICA_ENABLED = True
    assert router.db_for_read(Case) == "default"
    token = _public_read.set(True)
    try:
        assert router.db_for_read(Case) == "replica"
        assert router.db_for_write(Case) == "default"
        settings.READ_REPLICA_ENABLED = False
        assert router.db_for_read(Case) == "default"
    finally:
        _public_read.reset(token)
    assert router.allow_migrate("replica", "cases") is False
    assert router.allow_migrate("default", "cases") is True


@pytest.mark.django_db(transaction=True, databases=["default", "replica"])
@override_settings(READ_REPLICA_ENABLED=True)
def test_anonymous_pages_read_the_replica_and_staff_the_primary(client):
    CaseFactory(public_id="IL-0004", title_en="Replicated")
    with (
        CaptureQueriesContext(connections["default"]) as primary,
        CaptureQueriesContext(connections["replica"]) as replica,
    ):
        response = client.get("/en/cases/IL-0004/")
    assert response.status_code == 200 and "Replicated" in response.content.decode()
    assert len(replica) > 0 and len(primary) == 0
    # The version too: a replica that lags keys its pages by the content it holds.
    assert ContentVersion._meta.db_table in replica[0]["sql"]

    client.force_login(UserFactory(role="editor"))
    with (
        CaptureQueriesContext(connections["default"]) as primary,
        CaptureQueriesContext(connections["replica"]) as replica,
    ):
        assert client.get("/admin/cases/case/").status_code == 200
        assert client.get("/en/cases/IL-0004/").status_code == 200
    assert len(replica) == 0 and len(primary) > 0
