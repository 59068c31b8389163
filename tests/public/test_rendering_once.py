"""A page that a change renewed is rendered once, not by every process that is asked for it
at the same moment: the others wait for its copy (cases.caching.rendered_by_another)."""

import hashlib
import threading

import pytest
from django.core.cache import cache

from cases.caching import PAGE_FORMAT, read_entry, store_entry
from cases.models import ContentVersion
from tests.factories import CaseFactory

pytestmark = pytest.mark.django_db

PAGE = "/en/cases/IL-0101/"


@pytest.fixture
def page_key():
    CaseFactory(public_id="IL-0101", title_en="Alpha")
    digest = hashlib.sha256(PAGE.encode()).hexdigest()
    key = f"public-page:{PAGE_FORMAT}:{digest}"
    return key, f"{key}:rendering:{ContentVersion.current('default')}"


def test_a_page_another_process_is_rendering_is_taken_from_it(client, page_key):
    key, lock = page_key
    rendered = client.get(PAGE)
    entry, _token = read_entry(key)
    cache.clear()
    cache.set(lock, True)  # another process has begun to render it

    def another_process_finishes():
        store_entry(key, entry)
        cache.delete(lock)

    timer = threading.Timer(0.05, another_process_finishes)
    timer.start()
    response = client.get(PAGE)
    timer.join()
    # The finding (under load): every process asked for a renewed page rendered it.
    assert response["X-Cache"] == "hit"
    assert response.content == rendered.content


def test_a_page_whose_renderer_never_finishes_is_rendered_after_a_wait(
    client, page_key, monkeypatch
):
    monkeypatch.setattr("cases.caching.RENDER_WAIT", 0.05)
    key, lock = page_key
    cache.set(lock, True)  # taken by a process that died
    response = client.get(PAGE)
    assert response.status_code == 200 and response["X-Cache"] == "miss"
    assert "Alpha" in response.content.decode()
    assert read_entry(key)[0] is not None and cache.get(lock) is None


def test_rendering_a_page_leaves_no_lock_behind_even_when_the_view_fails(
    client, page_key, monkeypatch
):
    _key, lock = page_key
    client.get(PAGE)
    assert cache.get(lock) is None

    def broken(*args, **kwargs):
        raise RuntimeError("the view failed")

    cache.clear()
    monkeypatch.setattr("cases.public.views.render_case", broken)
    client.raise_request_exception = False
    assert client.get(PAGE).status_code == 500
    assert cache.get(lock) is None


def test_a_page_whose_parts_two_processes_wrote_at_once_is_rendered_afresh(client, page_key):
    key, _lock = page_key
    client.get(PAGE)
    # Its content, as another process wrote it for another version at the same moment.
    cache.set(f"{key}:content", ("another rendering", b"<p>another version</p>"))
    response = client.get(PAGE)
    assert response["X-Cache"] == "miss" and "Alpha" in response.content.decode()
