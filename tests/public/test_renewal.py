"""A change of a few cases renews, after its commit, the cached pages that show them
(cases.renewal): readers then get hits, each the page a fresh render makes."""

import logging

import pytest
from django.core.cache import cache
from django.db import transaction

from cases import renewal
from cases.caching import page_key, read_entry
from cases.editorial import transitions as workflow
from cases.models import Case
from tests.page_cache import fresh
from tests.public.test_caching import shared_redis  # noqa: F401 (a fixture)
from tests.public.test_case_links import linked_library  # noqa: F401 (a fixture)
from tests.workflow import approve_edit

pytestmark = pytest.mark.django_db

# IL-0501's own pages; IL-0502's, which lists it among its similar cases; the list.
OWN, OWN_JSON, OWN_KOREAN = "/en/cases/IL-0501/", "/en/cases/IL-0501.json", "/ko/cases/IL-0501/"
SIMILAR, LIST = "/en/cases/IL-0502/", "/en/cases/"
# IL-0503's page, which IL-0502 relates, and which shows IL-0502's title.
RELATED = "/en/cases/IL-0503/"
PAGES = (OWN, OWN_JSON, OWN_KOREAN, SIMILAR, LIST, RELATED)


@pytest.fixture
def library(request):
    """IL-0502 relates IL-0503 and lists IL-0501 among its similar cases (test_case_links)."""
    return request.getfixturevalue("linked_library")


@pytest.fixture
def renewing(settings):
    settings.RENEW_PAGES_AFTER_CHANGE = 20
    settings.SITE_URL = "http://testserver"  # (the pages' own links name the site's address)


def read_all(client, pages=PAGES):
    for page in pages:
        assert client.get(page).status_code == 200


def corrected(case, people, capture, **fields):
    with capture(execute=True):
        approve_edit(case, *people, **fields)


@pytest.mark.parametrize("where", ["this process", "Redis"])
def test_after_a_correction_readers_find_every_page_that_shows_the_case_renewed(
    request, client, library, people, renewing, django_capture_on_commit_callbacks, where
):
    if where == "Redis":
        request.getfixturevalue("shared_redis")
    read_all(client)
    corrected(library["a"], people, django_capture_on_commit_callbacks, title_en="Alpha, fixed")
    answers = {page: client.get(page) for page in PAGES}
    # The finding (under load): the first reader of each page mended it or rendered it again,
    # on a readers' server, and was among the slowest answers of the second.
    assert {page: answer["X-Cache"] for page, answer in answers.items()} == dict.fromkeys(
        PAGES, "hit"
    )
    for page in (OWN, SIMILAR, LIST):
        assert "Alpha, fixed" in answers[page].content.decode()
    for page, answer in answers.items():
        assert answer.content == fresh(client, page), page


def test_a_correction_renews_the_pages_that_link_the_case(
    client, library, people, renewing, django_capture_on_commit_callbacks
):
    read_all(client)
    corrected(library["b"], people, django_capture_on_commit_callbacks, title_en="Bravo, fixed")
    response = client.get(RELATED)
    assert response["X-Cache"] == "hit" and "Bravo, fixed" in response.content.decode()
    assert client.get(SIMILAR)["X-Cache"] == "hit"


def test_a_renewal_leaves_alone_the_pages_nobody_asked_for(
    client, library, people, renewing, django_capture_on_commit_callbacks
):
    read_all(client, [SIMILAR])
    corrected(library["a"], people, django_capture_on_commit_callbacks, title_en="Alpha, fixed")
    assert read_entry(page_key(SIMILAR)[0])[0] is not None
    for page in (OWN, OWN_JSON, LIST):
        assert read_entry(page_key(page)[0]) == (None, None), page


def test_a_renewal_asks_for_no_more_pages_than_its_limit_most_recently_shown_first(
    client, library, settings, renewing
):
    read_all(client)
    settings.RENEW_PAGES_AFTER_CHANGE = 2
    renewed = renewal.renew_pages({library["a"].pk})
    assert len(renewed.answers) == 2
    # (nothing changed: each page renewed is found still good)
    assert set(renewed.answers.values()) == {"hit"}
    assert list(renewed.answers) == [LIST, SIMILAR]


def test_a_case_keeps_the_pages_that_showed_it_last(client, library, renewing):
    pages = [f"{LIST}?page=1&n={n}" for n in range(renewal.SHOWN_ON_KEPT + 5)]
    read_all(client, pages)
    noted = cache.get(renewal.shown_on_key(library["a"].pk))
    assert len(noted) == renewal.SHOWN_ON_KEPT
    assert list(noted[-3:]) == pages[-3:] and pages[0] not in noted


def test_a_rolled_back_change_renews_nothing(
    client, library, people, renewing, django_capture_on_commit_callbacks
):
    read_all(client)
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        approve_edit(library["a"], *people, title_en="Alpha, fixed")
        raise RuntimeError
    assert callbacks == []
    response = client.get(SIMILAR)
    assert response["X-Cache"] == "hit" and "Alpha, fixed" not in response.content.decode()


def test_a_renewal_that_fails_leaves_the_change_made_and_its_pages_to_readers(
    client,
    library,
    people,
    renewing,
    monkeypatch,
    caplog,
    django_capture_on_commit_callbacks,
):
    read_all(client)

    def cache_away(case_pks):
        raise ConnectionError("the cache is away")

    monkeypatch.setattr(renewal, "pages_showing", cache_away)
    with caplog.at_level(logging.ERROR, logger="cases.renewal"):
        corrected(library["a"], people, django_capture_on_commit_callbacks, title_en="Alpha, fixed")
    assert "Renewing the pages of cases" in caplog.text
    assert Case.objects.get(public_id="IL-0501").title_en == "Alpha, fixed"
    response = client.get(SIMILAR)
    assert response["X-Cache"] == "mended" and "Alpha, fixed" in response.content.decode()


def test_without_renewal_readers_renew_the_pages(
    client, library, people, django_capture_on_commit_callbacks
):
    read_all(client)
    corrected(library["a"], people, django_capture_on_commit_callbacks, title_en="Alpha, fixed")
    assert client.get(SIMILAR)["X-Cache"] == "mended"
    assert client.get(OWN)["X-Cache"] == "miss"


def test_a_withdrawal_renews_the_case_s_own_page_as_gone(
    client, library, people, renewing, django_capture_on_commit_callbacks
):
    _editor, reviewer = people
    read_all(client)
    with django_capture_on_commit_callbacks(execute=True):
        workflow.case_withdraw(case=library["a"], user=reviewer, note="Retracted.")
    response = client.get(OWN)
    assert response.status_code == 410 and response["X-Cache"] == "hit"
    assert response.content == fresh(client, OWN)
