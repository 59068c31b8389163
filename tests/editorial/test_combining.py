"""Merging a duplicate case into another (cases.editorial.combining): sources combined,
links re-pointed, the absorbed id answering 301 with the survivor in both languages and in
the JSON, both timelines recording it, the absorbed case public nowhere; and every refusal."""

import datetime
import xml.etree.ElementTree as ET

import pytest
from django.core.cache import cache

from cases import caching, open_data
from cases.editorial import transitions as workflow
from cases.editorial.combining import case_combine
from cases.editorial.revisions import case_start_revision
from cases.editorial.rights import WorkflowError
from cases.models import Case, CaseMerge, CaseRelation, CaseTransition, CaseVersion
from cases.search.text import refresh_search_text
from tests.factories import CaseFactory, OrganisationFactory, SourceFactory

pytestmark = pytest.mark.django_db


def fresh(case):
    return Case.objects.get(pk=case.pk)


@pytest.fixture
def pair():
    """IL-1010 (kept) and IL-5001 (the catalogue's telling of it), each linked to others."""
    meta = OrganisationFactory(name="Meta", slug="meta")
    kept = CaseFactory(
        public_id="IL-1010",
        org=meta,
        date=datetime.date(2021, 10, 4),
        title_en="A backbone command cut off Facebook's data centers",
    )
    other = CaseFactory(
        public_id="IL-5001",
        org=OrganisationFactory(name="Facebook", slug="facebook"),
        date=datetime.date(2021, 10, 4),
        title_en="Facebook outage of October 2021 zebra",
    )
    SourceFactory(case=kept, position=0, url="https://engineering.fb.com/2021/10/05/outage/")
    SourceFactory(case=other, position=0, url="http://engineering.fb.com/2021/10/05/outage?utm_x=1")
    SourceFactory(case=other, position=1, url="https://news.example.org/facebook-down")
    linking = CaseFactory(public_id="IL-0100")
    linking.related.add(other, through_defaults={"position": 0})
    linked = CaseFactory(public_id="IL-0101")
    other.related.add(linked, through_defaults={"position": 0})
    other.related.add(kept, through_defaults={"position": 1})  # becomes no self-link
    recurrence = CaseFactory(public_id="IL-0102", recurrence_of=other)
    refresh_search_text(Case.objects.all())
    return kept, other, linking, linked, recurrence


def test_merge_combines_sources_and_repoints_links(pair, reviewer):
    kept, other, linking, linked, recurrence = pair
    survivor, added = case_combine(absorbed=other, survivor=kept, user=reviewer)
    assert added == 1  # the same page, spelled otherwise, is not added twice
    assert [s.url for s in survivor.sources.order_by("position")] == [
        "https://engineering.fb.com/2021/10/05/outage/",
        "https://news.example.org/facebook-down",
    ]
    assert fresh(kept).title_en == "A backbone command cut off Facebook's data centers"
    assert set(CaseRelation.objects.values_list("from_case__public_id", "to_case__public_id")) == {
        ("IL-0100", "IL-1010"),
        ("IL-1010", "IL-0101"),
    }
    assert fresh(recurrence).recurrence_of_id == kept.pk
    assert fresh(other).status == Case.Status.WITHDRAWN
    assert CaseMerge.objects.get().absorbed_public_id == "IL-5001"


def test_the_absorbed_id_answers_301_with_the_survivor_in_both_languages(client, pair, reviewer):
    kept, other, *_ = pair
    assert client.get("/en/cases/IL-5001/").status_code == 200  # cached as it was
    case_combine(absorbed=other, survivor=kept, user=reviewer)
    for language in ("en", "ko"):
        response = client.get(f"/{language}/cases/IL-5001/")
        assert response.status_code == 301
        assert response["Location"] == f"/{language}/cases/IL-1010/"
    response = client.get("/en/cases/IL-5001.json")
    assert response.status_code == 301 and response["Location"] == "/en/cases/IL-1010.json"
    api = client.get("/api/v1/cases/IL-5001")
    assert api.status_code == 301
    assert api["Location"].endswith("/api/v1/cases/IL-1010")
    assert api.json() == {"id": "IL-5001", "status": "merged", "merged_into": "IL-1010"}


def test_the_merge_is_recorded_in_both_timelines(pair, reviewer):
    kept, other, *_ = pair
    case_combine(absorbed=other, survivor=kept, user=reviewer, note="One incident.")
    absorbed_steps = CaseTransition.objects.filter(public_id="IL-5001")
    assert [(t.action, t.from_status, t.to_status) for t in absorbed_steps] == [
        ("incidentlib.case.merged", "published", "withdrawn")
    ]
    assert "Merged into IL-1010" in absorbed_steps.get().note
    assert "One incident." in absorbed_steps.get().note
    kept_step = CaseTransition.objects.get(public_id="IL-1010")
    assert kept_step.action == "incidentlib.case.absorbed" and "IL-5001" in kept_step.note
    assert kept_step.user == reviewer
    version = CaseVersion.objects.filter(public_id="IL-1010").order_by("-number").first()
    assert len(version.data["sources"]) == 2 and "IL-5001" in version.reason


def test_the_absorbed_case_is_public_nowhere(client, pair, reviewer, settings, tmp_path):
    settings.STORAGES = {
        **settings.STORAGES,
        "open_data": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path / "open-data")},
        },
    }
    kept, other, *_ = pair
    open_data.build()
    case_combine(absorbed=other, survivor=kept, user=reviewer)
    cache.clear()
    caching._known_good.clear()
    for address in ("/en/cases/", "/en/feed.atom", "/sitemap.xml", "/ko/cases/"):
        page = client.get(address).content.decode()
        assert "IL-5001" not in page and "IL-1010" in page, address
    assert "IL-5001" not in client.get("/en/cases/?q=zebra").content.decode()
    ET.fromstring(client.get("/sitemap.xml").content)  # still a sitemap
    listed = [c["id"] for c in client.get("/api/v1/cases").json()["results"]]
    assert "IL-5001" not in listed and "IL-1010" in listed
    open_data.build()
    changes = {c["id"]: c for c in client.get("/api/v1/changes").json()["changes"]}
    assert changes["IL-5001"]["state"] == "merged"
    assert changes["IL-5001"]["merged_into"] == "IL-1010"


def test_a_case_merged_before_follows_its_survivor_into_the_next_merge(client, pair, reviewer):
    kept, other, *_ = pair
    case_combine(absorbed=other, survivor=kept, user=reviewer)
    third = CaseFactory(public_id="IL-0900")
    case_combine(absorbed=kept, survivor=third, user=reviewer)
    response = client.get("/en/cases/IL-5001/")
    assert response.status_code == 301 and response["Location"] == "/en/cases/IL-0900/"


# --- refusals ---------------------------------------------------------------------------


def refused(**kwargs):
    with pytest.raises(WorkflowError) as caught:
        case_combine(**kwargs)
    return str(caught.value)


def test_a_case_is_never_merged_into_itself(pair, reviewer):
    kept, *_ = pair
    assert "itself" in refused(absorbed=kept, survivor=kept, user=reviewer)


def test_only_who_may_merge_cases_merges_them(pair, editor):
    kept, other, *_ = pair
    assert "right" in refused(absorbed=other, survivor=kept, user=editor)
    assert fresh(other).status == Case.Status.PUBLISHED


def test_never_into_a_withdrawn_case(pair, reviewer):
    kept, other, *_ = pair
    workflow.case_withdraw(case=kept, user=reviewer, note="wrong")
    assert "withdrawn" in refused(absorbed=other, survivor=fresh(kept), user=reviewer)


def test_never_into_or_from_an_absorbed_case_and_one_of_two_concurrent_merges_wins(pair, reviewer):
    kept, other, *_ = pair
    stale_kept, stale_other = fresh(kept), fresh(other)
    case_combine(absorbed=other, survivor=kept, user=reviewer)
    # The second merge was begun from the pages as they were: it sees the first under lock.
    assert "already" in refused(absorbed=stale_kept, survivor=stale_other, user=reviewer)
    assert "already" in refused(absorbed=stale_other, survivor=stale_kept, user=reviewer)
    assert CaseMerge.objects.count() == 1


def test_a_published_case_is_not_merged_into_a_draft(pair, reviewer):
    kept, other, *_ = pair
    draft = CaseFactory(public_id="IL-0200", status=Case.Status.DRAFT, published_at=None)
    assert "published" in refused(absorbed=other, survivor=draft, user=reviewer)
    survivor, _added = case_combine(absorbed=draft, survivor=kept, user=reviewer)
    assert survivor == kept


def test_not_while_a_pending_revision_would_undo_it(pair, reviewer):
    kept, other, *_ = pair
    case_start_revision(case=kept, user=reviewer)
    assert "pending revision" in refused(absorbed=other, survivor=kept, user=reviewer)


def test_an_absorbed_case_cannot_be_reopened(pair, reviewer):
    kept, other, *_ = pair
    case_combine(absorbed=other, survivor=kept, user=reviewer)
    assert workflow.available_transitions(reviewer, fresh(other)) == []
    with pytest.raises(WorkflowError):
        workflow.case_reopen(case=fresh(other), user=reviewer)
