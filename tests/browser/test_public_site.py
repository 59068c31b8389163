import re

import pytest

from tests.browser.conftest import PHONE

pytestmark = pytest.mark.django_db(transaction=True)


def listed_titles(page):
    return page.locator(".case-card .case-title").all_inner_texts()


def facet_link(page, facet, label):
    return page.locator(f"section.facet[aria-labelledby='facet-{facet}'] a.facet-value").filter(
        has=page.locator(".facet-label", has_text=re.compile(f"^{re.escape(label)}$"))
    )


def test_reader_filters_by_clicking_removes_a_chip_switches_language_and_opens_a_case(
    page, bundled_site, screenshot
):
    page.goto(f"{bundled_site}/en/cases/")
    everything = page.locator(".results-heading .count").inner_text()

    facet_link(page, "org", "Hugging Face").click()
    page.wait_for_url(re.compile(r"org=hugging-face"))
    facet_link(page, "contributing", "Overlapping failures").click()
    page.wait_for_url(re.compile(r"contributing=overlapping-failures"))
    assert page.locator(".results-heading .count").inner_text() == "2 cases"
    # Two years' columns are drawn at the size of fifteen's, not stretched to the column.
    assert page.locator(".chart-years svg").bounding_box()["height"] < 160
    assert page.locator(".chip .chip-value").all_inner_texts() == [
        "Overlapping failures",
        "Hugging Face",
    ]
    screenshot(page, "list-filtered-en-desktop")

    page.get_by_role("link", name="Remove filter Organisation: Hugging Face").click()
    page.wait_for_url(lambda url: "org=" not in url)
    assert page.locator(".chip .chip-value").all_inner_texts() == ["Overlapping failures"]
    assert page.locator(".results-heading .count").inner_text() != everything

    page.get_by_role("link", name="한국어").click()
    page.wait_for_url(re.compile(r"/ko/cases/\?contributing=overlapping-failures$"))
    assert page.locator("html").get_attribute("lang") == "ko"
    assert page.locator(".chip .chip-value").all_inner_texts() == ["장애 중첩"]
    assert "검색어 없이 필터만 적용한 목록입니다." in page.locator(".list-explainer").inner_text()

    first_title = listed_titles(page)[0]
    page.locator(".case-card .case-title a").first.click()
    page.wait_for_url(re.compile(r"/ko/cases/IL-\d{4,}/$"))
    assert page.locator("h1").inner_text() == first_title


def test_search_offers_a_suggested_filter(page, bundled_site):
    page.goto(f"{bundled_site}/en/cases/")
    page.get_by_label("Search cases").fill("HDFS checkpoint")
    page.get_by_role("button", name="Search").click()
    page.wait_for_url(re.compile(r"q=HDFS\+checkpoint"))
    suggestion = page.locator(".suggestions a.chip-suggested", has_text="Shared filesystem")
    suggestion.click()
    page.wait_for_url(re.compile(r"component=shared-filesystem"))
    assert "Shared filesystem" in page.locator(".chip .chip-value").all_inner_texts()


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_screenshots_of_the_list_and_a_case(browser, bundled_site, screenshot, language, width):
    options = {"viewport": PHONE, "is_mobile": True} if width == "phone" else {}
    context = browser.new_context(**options)
    page = context.new_page()
    page.goto(f"{bundled_site}/{language}/cases/")
    assert page.locator(".case-card").count() >= 15
    # Nothing is wider than the screen (no sideways scrolling on a phone).
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    screenshot(page, f"list-{language}-{width}")
    page.goto(f"{bundled_site}/{language}/cases/IL-0585/")
    assert page.locator("h1").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    whole = screenshot(page, f"case-{language}-{width}")
    provenance = page.locator(".provenance")
    assert provenance.is_visible()
    provenance.screenshot(path=str(whole.with_name(f"case-provenance-{language}-{width}.png")))
    context.close()


def test_keyboard_reaches_the_search_and_the_skip_link(page, bundled_site):
    page.goto(f"{bundled_site}/en/cases/")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    page.keyboard.press("Enter")
    # A same-page jump updates the URL after the key press returns.
    page.wait_for_url(re.compile(r"#main$"))
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.type") == "search"
