"""What a reader's tools rely on in the pages' HTML: a favicon, heading order, a year chart
with its empty years, a BibTeX block a keyboard reaches."""

import datetime
import re
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders

from tests.factories import CaseFactory, OrganisationFactory

pytestmark = pytest.mark.django_db


def test_every_page_links_the_favicon_and_favicon_ico_answers(client):
    CaseFactory(public_id="IL-0001")
    for url in ("/en/cases/", "/ko/cases/", "/en/cases/IL-0001/", "/en/graph/"):
        html = client.get(url).content.decode()
        link = re.search(r'<link rel="icon" type="image/svg\+xml" href="([^"]+)">', html)
        assert link and link[1].endswith(".svg"), url
    response = client.get("/favicon.ico")
    assert response.status_code == 302
    assert response["Location"] == link[1]
    # Served from static/ (whitenoise; the browser tests fetch it from the live server).
    assert "<svg" in Path(finders.find("favicon.svg")).read_text()


def test_the_admin_sign_in_links_the_favicon_too(client):
    html = client.get("/admin/login/").content.decode()
    assert 'rel="icon"' in html
    assert re.search(r"<h1>[^<]+</h1>", html)  # and says what it is


def year_columns(client, query=""):
    html = client.get(f"/en/cases/{query}").content.decode()
    table = re.search(r'class="chart chart-years">.*?<table.*?</table>', html, re.S)[0]
    return re.findall(r'<th scope="row">(\d+)</th><td>(\d+)</td>', table)


def test_the_year_chart_shows_the_years_without_cases(client):
    meta = OrganisationFactory(slug="meta")
    for year in (2017, 2019, 2019, 2022):
        CaseFactory(org=meta, date=datetime.date(year, 6, 1))
    CaseFactory(date=datetime.date(2010, 1, 1))  # another organisation's, filtered away
    assert year_columns(client, "?org=meta") == [
        ("2017", "1"),
        ("2018", "0"),
        ("2019", "2"),
        ("2020", "0"),
        ("2021", "0"),
        ("2022", "1"),
    ]
    html = client.get("/en/cases/?org=meta").content.decode()
    bars = re.findall(
        r'<rect class="bar" x="[\d.]+" y="[\d.]+" width="18" height="([\d.]+)">', html
    )
    assert [float(height) > 0 for height in bars] == [True, False, True, False, False, True]


def test_a_case_page_s_headings_go_down_one_level_at_a_time(client):
    CaseFactory(public_id="IL-0001", symptoms_text_en="It broke.", lessons_en="Look first.")
    html = client.get("/en/cases/IL-0001/").content.decode()
    levels = [int(level) for level in re.findall(r"<h([1-6])[ >]", html)]
    assert levels[0] == 1 and levels.count(1) == 1
    assert all(later - earlier <= 1 for earlier, later in zip(levels, levels[1:], strict=False))
    assert levels.count(2) >= 5  # summary, symptoms, lessons, timeline, cite...


def test_the_bibtex_block_is_focusable_and_named(client):
    CaseFactory(public_id="IL-0001")
    html = client.get("/en/cases/IL-0001/").content.decode()
    pre = re.search(r'<pre class="bibtex"[^>]*>', html)[0]
    assert 'tabindex="0"' in pre and 'aria-label="BibTeX entry"' in pre
