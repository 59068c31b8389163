"""A reader goes from a case to its organisation's page, and reads it in Korean (#23, 2)."""

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path("/tmp/orgs-shots")


def test_a_reader_clicks_from_a_case_to_its_organisations_page(page, bundled_site, screenshot):
    page.goto(f"{bundled_site}/en/cases/?org=meta")
    page.locator(".case-card .case-title a").first.click()
    page.wait_for_url(re.compile(r"/en/cases/IL-\d{4,}/$"))

    page.locator(".case-page .case-meta a", has_text="Meta").click()

    page.wait_for_url(re.compile(r"/en/organisations/meta/$"))
    assert page.locator("h1").inner_text() == "Meta"
    facts = page.locator(".organisation-facts").inner_text()
    assert "메타" in facts and "Facebook" in facts
    assert page.locator(".organisation-links a").first.get_attribute("href").startswith("https://")
    assert page.locator(".case-card").count() == 2
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "organisation-meta-en.png"), full_page=True)
    screenshot(page, "organisation-en-desktop")

    page.get_by_role("link", name="한국어").click()
    page.wait_for_url(re.compile(r"/ko/organisations/meta/$"))
    assert page.locator("h1").inner_text() == "메타"
    assert "다른 이름" in page.locator(".organisation-facts").inner_text()
    page.screenshot(path=str(SHOTS / "organisation-meta-ko.png"), full_page=True)

    page.get_by_role("link", name="목록에서 이 사례들을 거르고 검색하기").click()
    page.wait_for_url(re.compile(r"/ko/cases/\?org=meta$"))
    assert page.locator(".case-card").count() == 2
