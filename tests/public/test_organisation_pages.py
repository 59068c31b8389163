"""An organisation's public page: its public cases as the list shows them, its aliases,
Korean name and links; old slugs of merged organisations answer 301 (issue #23, point 2)."""

import re

import pytest
from django.core.cache import cache

from cases.editorial.names import organisation_merge
from cases.models import Case
from tests.factories import CaseFactory, CaseStepFactory, OrganisationFactory
from tests.pages import listed_ids, text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def meta(library):
    org = library["c"].org
    org.aliases_en = "Facebook\nMeta Platforms"
    org.aliases_ko = "페이스북"
    org.name_ko = "메타"
    org.links = ["https://about.meta.com/", "https://en.wikipedia.org/wiki/Meta_Platforms"]
    org.save()
    return org


def test_the_page_shows_the_organisation_and_its_public_cases(client, meta):
    response = client.get("/en/organisations/meta/")

    assert response.status_code == 200
    assert listed_ids(response) == ["IL-0003", "IL-0004"]
    text = text_of(response)
    assert "Meta" in text and "Facebook" in text and "Meta Platforms" in text
    html = response.content.decode()
    assert 'href="https://about.meta.com/"' in html
    assert 'href="https://en.wikipedia.org/wiki/Meta_Platforms"' in html
    assert "BGP withdrawal took the backbone down" in text
    assert "A draft nobody may see" not in text
    # Its cases, filtered in the list, a click away.
    assert 'href="/en/cases/?org=meta"' in html


def test_the_korean_page_shows_the_korean_name_and_aliases(client, meta):
    response = client.get("/ko/organisations/meta/")

    assert response.status_code == 200
    assert re.search(r"<h1[^>]*>\s*메타\s*</h1>", response.content.decode())
    text = text_of(response)
    assert "페이스북" in text
    # The page's own words are Korean too.
    assert "다른 이름" in text and "영어 이름" in text and "Also known as" not in text


def test_without_a_korean_name_the_korean_page_shows_the_english_one_marked(client, library):
    response = client.get("/ko/organisations/hugging-face/")

    assert re.search(r'<h1[^>]*lang="en"[^>]*>\s*Hugging Face\s*</h1>', response.content.decode())


def test_an_organisation_only_drafts_name_has_no_page(client, library):
    draft_only = library["draft"].org
    assert client.get(f"/en/organisations/{draft_only.slug}/").status_code == 404
    assert client.get("/en/organisations/no-such-organisation/").status_code == 404
    assert client.get("/en/organisations/Not%20a%20slug/").status_code == 404


def test_a_merged_organisations_old_page_and_filter_lead_to_the_survivor(client, meta):
    facebook = OrganisationFactory(slug="facebook", name="Facebook")
    CaseFactory(public_id="IL-0009", org=facebook)
    organisation_merge(survivor=meta, others=[facebook])

    page = client.get("/en/organisations/facebook/")
    assert page.status_code == 301
    assert page["Location"] == "/en/organisations/meta/"
    listed = client.get("/en/cases/?org=facebook&severity=critical")
    assert listed.status_code == 301
    assert listed["Location"] == "/en/cases/?org=meta&severity=critical"
    assert "IL-0009" in listed_ids(client.get("/en/organisations/meta/"))


def test_the_index_lists_public_organisations_with_their_counts(client, library):
    response = client.get("/en/organisations/")

    assert response.status_code == 200
    text = text_of(response)
    assert "Hugging Face" in text and "Meta" in text
    html = response.content.decode()
    assert 'href="/en/organisations/meta/"' in html
    assert library["draft"].org.name not in text


def test_case_pages_and_cards_link_the_organisation_page(client, library):
    assert 'href="/en/organisations/meta/"' in client.get("/en/cases/IL-0003/").content.decode()
    assert 'href="/en/organisations/meta/"' in client.get("/en/cases/").content.decode()


def test_a_change_of_the_organisation_shows_at_once(client, meta, reviewer):
    from cases.editorial.names import name_save

    client.get("/en/organisations/meta/")
    meta.aliases_en = "Facebook\nThe Facebook"
    name_save(obj=meta, user=reviewer)
    assert "The Facebook" in text_of(client.get("/en/organisations/meta/"))
    CaseFactory(public_id="IL-0010", org=meta, title_en="A newly published case")
    # (a case published by the workflow bumps the content; the factory does not)
    from cases.caching import public_content_changed

    public_content_changed()
    assert "IL-0010" in listed_ids(client.get("/en/organisations/meta/"))


def test_the_page_costs_the_same_queries_however_many_cases(
    client, meta, django_assert_max_num_queries
):
    def queries():
        cache.clear()
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as captured:
            assert client.get("/en/organisations/meta/").status_code == 200
        return len(captured.captured_queries)

    client.get("/en/organisations/meta/")  # the facet index, built once
    few = queries()
    for n in range(20, 45):
        case = CaseFactory(public_id=f"IL-{n:04d}", org=meta)
        CaseStepFactory(case=case)
    with django_assert_max_num_queries(few):
        cache.clear()
        assert client.get("/en/organisations/meta/").status_code == 200
    assert Case.objects.filter(org=meta).count() > 20


def test_the_sitemap_lists_public_organisations_pages(client, library):
    xml = client.get("/sitemap.xml").content.decode()

    assert "/en/organisations/meta/" in xml and "/ko/organisations/meta/" in xml
    assert f"/organisations/{library['draft'].org.slug}/" not in xml


def test_the_lists_organisation_chip_and_facet_speak_korean(client, meta):
    html = client.get("/ko/cases/?org=meta").content.decode()

    assert 'href="/ko/organisations/meta/"' in html
    assert re.search(r'class="chip-value"><a href="/ko/organisations/meta/"[^>]*>메타</a>', html)
