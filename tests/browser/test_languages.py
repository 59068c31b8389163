"""A case page in a language the case is not written in, in a real browser: the reader sees
the notice at the top, in the page's language, and the English text under it."""

import pytest

from tests.browser.conftest import PHONE
from tests.factories import CaseFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_the_korean_page_of_an_english_only_case_says_so_first(
    browser, live_server, screenshot, viewport
):
    CaseFactory(
        public_id="IL-4700",
        title_en="Resolver outage took the API down",
        title_ko="",
        summary_en="The **resolvers** failed for an hour.",
        summary_ko="",
        lessons_en="Keep a second resolver.",
    )
    options = {"locale": "ko-KR"} | ({"viewport": PHONE} if viewport == "phone" else {})
    context = browser.new_context(**options)
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{live_server.url}/ko/cases/IL-4700/")
    notice = page.get_by_role("note").filter(has_text="아직 한국어로 작성되지 않아")
    assert notice.is_visible()
    title = page.locator("h1#case-title")
    assert title.get_attribute("lang") == "en"
    # The notice is right under the title, before the case's facts.
    assert notice.bounding_box()["y"] > title.bounding_box()["y"]
    assert notice.bounding_box()["y"] < page.locator(".case-meta").bounding_box()["y"]
    canonical = page.locator('link[rel="canonical"]').get_attribute("href")
    assert canonical == f"{live_server.url}/en/cases/IL-4700/"
    screenshot(page, f"languages-ko-fallback-{viewport}")
    context.close()
