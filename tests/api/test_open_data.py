"""The bulk file and the change feed: built after changes by the worker, never by a
request; a mirror following the feed ends with the public library."""

import gzip
import hashlib
import json
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from cases import open_data
from cases.editorial import transitions as workflow
from cases.models import BulkBuild, Case
from cases.tasks import rebuild_open_data
from tests.factories import CaseFactory
from tests.worker import let_time_pass, run_worker, waiting_tasks
from tests.workflow import approve_edit

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def own_storage(settings, tmp_path):
    settings.STORAGES = {
        **settings.STORAGES,
        "open_data": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path / "open-data")},
        },
    }
    from django.core.files.storage import storages

    storages._storages.pop("open_data", None)
    yield
    storages._storages.pop("open_data", None)


def cases(*numbers):
    return [CaseFactory(public_id=f"IL-{number:04d}") for number in numbers]


def public_change(case, **fields):
    """A change the public sees, through the path every writer takes."""
    from cases.caching import public_content_changed
    from cases.catalogue.changes import states_before

    before = states_before([case.pk])
    Case.objects.filter(pk=case.pk).update(**fields)
    public_content_changed(before)


def drained(response):
    """The body; read to its end, a file response closes its file."""
    if response.streaming:
        return b"".join(response.streaming_content)
    return response.content


def bulk_lines(client):
    response = client.get("/api/v1/cases.jsonl.gz")
    assert response.status_code == 200
    data = drained(response)
    return response, data, [json.loads(line) for line in gzip.decompress(data).splitlines()]


def mirror(client, since=None, mirrored=None):
    """Follow the change feed as a mirror does: (its ids now public, the next since)."""
    mirrored = set(mirrored or ())
    url = "/api/v1/changes" + (f"?since={since}" if since else "")
    while url:
        body = client.get(url).json()
        for change in body["changes"]:
            if change["state"] == "published":
                mirrored.add(change["id"])
            else:
                mirrored.discard(change["id"])
        url = body["next"]
    return mirrored, body["until"]


def test_before_the_first_build_the_bulk_file_asks_to_come_back(client):
    response = client.get("/api/v1/cases.jsonl.gz")
    assert response.status_code == 503
    assert response["Retry-After"]
    assert client.get("/api/v1/changes").status_code == 503


def test_the_bulk_file_holds_every_public_case_with_its_digest(client):
    cases(1, 2, 3)
    CaseFactory(public_id="IL-0800", status=Case.Status.DRAFT, published_at=None)
    open_data.build()
    response, data, lines = bulk_lines(client)
    assert [case["id"] for case in lines] == ["IL-0001", "IL-0002", "IL-0003"]
    info = client.get("/api/v1/bulk").json()
    assert info["sha256"] == hashlib.sha256(data).hexdigest() == response["ETag"].strip('"')
    assert info["cases"] == 3 and info["size"] == len(data)
    assert "max-age" in response["Cache-Control"]
    assert response["Content-Digest"].startswith("sha-256=:")
    again = client.get("/api/v1/cases.jsonl.gz", HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304
    head = client.head("/api/v1/cases.jsonl.gz")  # a mirror checks before it downloads
    assert head.status_code == 200 and head.content == b""
    assert head["ETag"] == response["ETag"] and head["Content-Length"] == str(len(data))


def test_a_request_never_builds(client, django_assert_max_num_queries):
    CaseFactory()
    open_data.build()
    CaseFactory()  # not yet built
    for url in ("/api/v1/cases.jsonl.gz", "/api/v1/bulk", "/api/v1/changes"):
        with django_assert_max_num_queries(3):
            drained(client.get(url))
    assert BulkBuild.objects.count() == 1


def test_a_mirror_following_the_feed_ends_with_the_public_library(client, editor, reviewer):
    first, second, third = cases(1, 2, 3)
    open_data.build()
    mirrored, until = mirror(client)
    assert mirrored == {"IL-0001", "IL-0002", "IL-0003"}

    workflow.case_withdraw(case=second, user=reviewer, note="Not an incident.")
    approve_edit(third, editor, reviewer, title_en="Renamed")
    new = CaseFactory(public_id="IL-0004", status=Case.Status.IN_REVIEW, published_at=None)
    workflow.case_approve(case=new, user=reviewer)
    open_data.build()
    body = client.get(f"/api/v1/changes?since={until}").json()
    changed = {change["id"]: change["state"] for change in body["changes"]}
    assert changed == {"IL-0002": "withdrawn", "IL-0003": "published", "IL-0004": "published"}
    mirrored, _until = mirror(client, until, mirrored)
    assert mirrored == set(Case.objects.public().values_list("public_id", flat=True))
    _response, _data, lines = bulk_lines(client)
    assert {case["id"]: case["title"]["en"] for case in lines}["IL-0003"] == "Renamed"


def test_a_change_the_public_does_not_see_is_not_in_the_feed(client, editor):
    case = CaseFactory()
    open_data.build()
    _mirrored, until = mirror(client)
    workflow.case_start_revision(case=case, user=editor)  # a draft of an edit: not public
    public_change(case)  # and a change that changed nothing of its exchange form
    open_data.build()
    assert client.get(f"/api/v1/changes?since={until}").json()["changes"] == []


def test_a_reopened_or_deleted_case_leaves_the_mirror(client, reviewer):
    kept, reopened, deleted = cases(1, 2, 3)
    open_data.build()
    mirrored, until = mirror(client)
    workflow.case_withdraw(case=reopened, user=reviewer, note="Wrong organisation.")
    workflow.case_reopen(case=Case.objects.get(pk=reopened.pk), user=reviewer)
    public_change(deleted)
    Case.objects.filter(pk=deleted.pk).delete()
    public_change(kept)  # a change of a kept case's links, say
    open_data.build()
    mirrored, _until = mirror(client, until, mirrored)
    assert mirrored == {"IL-0001"}


def test_the_feed_pages_without_missing_or_repeating(client, settings, monkeypatch):
    from cases.api import open_data as feed

    monkeypatch.setattr(feed, "CHANGES_PER_PAGE", 4)
    CaseFactory.create_batch(10)
    open_data.build()  # every record at the same time: pages split one moment
    mirrored, _until = mirror(client)
    assert len(mirrored) == 10


@pytest.mark.parametrize("since", ["yesterday", "2026-13-01", "2026-01-01T00:00:00", "'; drop"])
def test_a_bad_since_is_told_how_to_write_it(client, since):
    CaseFactory()
    open_data.build()
    response = client.get("/api/v1/changes", {"since": since})
    assert response.status_code == 400
    assert "ISO 8601" in response.json()["detail"]


def test_since_takes_a_date(client):
    CaseFactory()
    open_data.build()
    today = timezone.now().date()
    assert client.get(f"/api/v1/changes?since={today - timedelta(days=1)}").json()["changes"]
    assert not client.get(f"/api/v1/changes?since={today + timedelta(days=1)}").json()["changes"]


def test_a_build_with_nothing_new_writes_no_file(client):
    CaseFactory()
    first = open_data.build()
    assert open_data.build() is None  # the same version
    public_change(Case.objects.get())  # a version with no change to the exchange form
    again = open_data.build()
    assert again.pk == first.pk and again.sha256 == first.sha256


@override_settings(OPEN_DATA_REBUILD=True, OPEN_DATA_REBUILD_DELAY=10)
def test_changes_enqueue_one_build_in_a_little_while_which_the_worker_runs(
    client, reviewer, django_capture_on_commit_callbacks
):
    library = cases(1, 2, 3)
    open_data.build()
    for case in library:
        with django_capture_on_commit_callbacks(execute=True):
            workflow.case_withdraw(case=case, user=reviewer, note="Duplicate.")
    waiting = list(waiting_tasks().filter(task_path=rebuild_open_data.module_path))
    assert len(waiting) == 1
    assert waiting[0].run_after > timezone.now() + timedelta(seconds=5)
    run_worker()
    assert BulkBuild.objects.count() == 1  # not due yet
    let_time_pass(timedelta(seconds=11))
    run_worker()
    build = BulkBuild.objects.latest()
    assert build.cases == 0
    assert {c["state"] for c in client.get("/api/v1/changes").json()["changes"]} == {"withdrawn"}


@pytest.mark.django_db(transaction=True)
def test_two_builds_at_once_write_one(client):
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection, connections

    if connection.vendor != "postgresql":
        pytest.skip("SQLite lets one writer in at a time by itself")
    cases(1, 2, 3)

    def build_in_own_connection():
        try:
            return open_data.build()
        finally:
            connections.close_all()

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda _n: build_in_own_connection(), range(2)))
    assert sum(result is not None for result in results) == 1
    assert BulkBuild.objects.count() == 1
    assert mirror(client)[0] == {"IL-0001", "IL-0002", "IL-0003"}
