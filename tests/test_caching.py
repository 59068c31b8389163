"""The anonymous page cache, its invalidation, and the read-replica router."""

import io

import pytest
from django.core.management import call_command
from django.db import connections
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from cases import workflow
from cases.models import Case, Vocabulary
from cases.routers import ReplicaRouter, _public_read
from tests.factories import CaseFactory, TermFactory, UserFactory

pytestmark = pytest.mark.django_db


def get_counting(client, url):
    with CaptureQueriesContext(connections["default"]) as queries:
        response = client.get(url)
    return response, len(queries)


def test_anonymous_pages_are_served_from_the_cache(client):
    CaseFactory(public_id="IL-0001", title_en="Cached case")
    first, first_queries = get_counting(client, "/en/cases/IL-0001/")
    second, second_queries = get_counting(client, "/en/cases/IL-0001/")
    assert first["X-Cache"] == "miss" and second["X-Cache"] == "hit"
    assert first_queries > 0 and second_queries == 0
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
    admin_client.force_login(UserFactory(role="editor"))
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

    client.force_login(UserFactory(role="editor"))
    with (
        CaptureQueriesContext(connections["default"]) as primary,
        CaptureQueriesContext(connections["replica"]) as replica,
    ):
        assert client.get("/admin/cases/case/").status_code == 200
        assert client.get("/en/cases/IL-0004/").status_code == 200
    assert len(replica) == 0 and len(primary) > 0
