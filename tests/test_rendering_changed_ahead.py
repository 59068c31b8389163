"""A change of a few cases (an approval, a withdrawal, a small import) renders the most-read
pages it changed before it commits (cases.rendering_ahead.render_changed_ahead): readers find
them in the cache as it commits; pages it did not change are left alone."""

import pytest
from django.core.cache import cache
from django.db import transaction

from cases import rendering_ahead
from cases.caching import page_key, read_entry, rendering_lock
from cases.editorial import transitions as workflow
from cases.models import Case, ContentVersion
from tests.factories import CaseFactory, UserFactory
from tests.workflow import approve_edit

pytestmark = pytest.mark.django_db

LIST, CASE, OTHER = "/en/cases/", "/en/cases/IL-0001/", "/en/cases/IL-0002/"


@pytest.fixture
def read_pages(client, settings, monkeypatch):
    settings.RENDER_AHEAD_PAGES = 10
    monkeypatch.setattr(rendering_ahead, "READS_SHARED_EVERY", 1)
    CaseFactory(public_id="IL-0001", title_en="Alpha")
    CaseFactory(public_id="IL-0002", title_en="Beta")
    for _read in range(2):
        for page in (LIST, CASE, OTHER):
            assert client.get(page).status_code == 200
    return client


@pytest.fixture
def people():
    return UserFactory(role="editor"), UserFactory(role="reviewer")


def rendered_at(page):
    entry, _token = read_entry(page_key(page)[0])
    return entry[0]


def correct_alpha(people):
    editor, reviewer = people
    return approve_edit(Case.objects.get(public_id="IL-0001"), editor, reviewer, title_en="Gamma")


def test_after_a_correction_the_most_read_pages_it_changed_are_in_the_cache_at_once(
    read_pages, people, django_capture_on_commit_callbacks
):
    before = ContentVersion.current("default")
    with django_capture_on_commit_callbacks(execute=True):
        correct_alpha(people)
    # The finding (make load, one correction a second): each page a correction changed was
    # rendered by the readers who asked for it first, and the others waited for them.
    for page in (LIST, CASE):
        response = read_pages.get(page)
        assert response["X-Cache"] == "hit"
        assert "Gamma" in response.content.decode()
    # A page the correction did not change is left as it was, for readers to keep.
    assert rendered_at(OTHER) == before


def test_a_page_no_reader_has_in_the_cache_is_not_rendered_for_them(
    read_pages, people, django_capture_on_commit_callbacks
):
    cache.delete_many([page_key(CASE)[0]])
    with django_capture_on_commit_callbacks(execute=True):
        correct_alpha(people)
    assert read_entry(page_key(CASE)[0]) == (None, None)
    assert read_pages.get(LIST)["X-Cache"] == "hit"


def test_a_change_that_rolls_back_after_rendering_leaves_the_cache_and_the_process_as_they_were(
    read_pages, people, django_capture_on_commit_callbacks
):
    before = read_pages.get(LIST).content.decode()
    with pytest.raises(RuntimeError), transaction.atomic():
        workflow.case_withdraw(
            case=Case.objects.get(public_id="IL-0001"), user=people[1], note="Retracted."
        )
        raise RuntimeError("the reviewer's request failed after the withdrawal")
    response = read_pages.get(LIST)
    assert response["X-Cache"] == "hit" and response.content.decode() == before
    # The next change takes the number the rolled-back one had: nothing this process
    # remembered of that content (an index without IL-0001) is taken for this one's.
    with django_capture_on_commit_callbacks(execute=True):
        workflow.case_withdraw(
            case=Case.objects.get(public_id="IL-0002"), user=people[1], note="Retracted."
        )
    shown = read_pages.get(LIST).content.decode()
    assert "IL-0002" not in shown and "IL-0001" in shown


def test_readers_of_the_new_version_wait_for_the_pages_the_change_rendered(
    read_pages, people, django_capture_on_commit_callbacks
):
    key = page_key(CASE)[0]
    with django_capture_on_commit_callbacks(execute=False) as committing:
        correct_alpha(people)
    version = ContentVersion.current("default")
    assert cache.get(rendering_lock(key, version)) is True
    assert cache.get(rendering_lock(page_key(OTHER)[0], version)) is None
    for callback in committing:
        callback()
    assert cache.get(rendering_lock(key, version)) is None
    assert rendered_at(CASE) == version


def test_a_change_renders_nothing_ahead_past_its_budget(
    read_pages, people, settings, django_capture_on_commit_callbacks
):
    settings.RENDER_AHEAD_CHANGE_SECONDS = 0
    before = ContentVersion.current("default")
    with django_capture_on_commit_callbacks(execute=True):
        correct_alpha(people)
    assert rendered_at(CASE) == before
    response = read_pages.get(CASE)
    assert response["X-Cache"] == "miss" and "Gamma" in response.content.decode()


def test_a_search_the_change_renews_is_rendered_ahead(
    read_pages, people, django_capture_on_commit_callbacks
):
    search = "/en/cases/?q=gamma"
    for _read in range(2):
        assert read_pages.get(search).status_code == 200
    assert "IL-0001" not in read_pages.get(search).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        correct_alpha(people)
    response = read_pages.get(search)
    assert response["X-Cache"] == "hit" and "IL-0001" in response.content.decode()
