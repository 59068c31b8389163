"""The site on a 390-pixel phone: what a reader sees first, and filters behind a button."""

import re

import pytest

from tests.browser.conftest import PHONE

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def phone(browser):
    context = browser.new_context(viewport=PHONE, is_mobile=True, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


def bottom(locator):
    box = locator.bounding_box()
    return box["y"] + box["height"]


@pytest.mark.parametrize("language", ["en", "ko"])
def test_on_a_phone_the_search_box_and_the_first_case_are_on_the_first_screen(
    phone, bundled_site, screenshot, language
):
    phone.goto(f"{bundled_site}/{language}/cases/")
    search = phone.locator("input#q")
    first_case = phone.locator(".case-card").first
    assert bottom(search) <= PHONE["height"]
    assert bottom(first_case) <= PHONE["height"]
    # The filters wait behind their button.
    assert not phone.locator(".facet").first.is_visible()
    screenshot(phone, f"phone-list-{language}-closed", full_page=False)


def test_on_a_phone_a_search_s_first_result_is_on_the_first_screen(phone, bundled_site):
    phone.goto(f"{bundled_site}/en/cases/?q=checkpoint")
    first_result = phone.locator(".case-card").first
    assert first_result.locator("mark").first.is_visible()  # where the words occur
    assert bottom(first_result) <= PHONE["height"]


def test_on_a_phone_the_filters_open_from_a_button_and_work(phone, bundled_site, screenshot):
    phone.goto(f"{bundled_site}/en/cases/")
    button = phone.locator(".facets-toggle > summary")
    assert button.inner_text().strip() == "Filters"
    hugging_face = phone.locator("section.facet[aria-labelledby='facet-org'] a.facet-value").filter(
        has_text="Hugging Face"
    )
    assert not hugging_face.is_visible()

    button.focus()  # by keyboard, as well as by touch
    phone.keyboard.press("Enter")
    assert hugging_face.is_visible()
    screenshot(phone, "phone-list-en-open", full_page=False)
    hugging_face.click()
    phone.wait_for_url(re.compile(r"org=hugging-face"))

    # A choice made, the panel closes again to leave the results in sight, and says so.
    assert phone.locator(".facets-toggle > summary").inner_text().strip() == "Filters (1 selected)"
    assert not phone.locator(".facet").first.is_visible()
    assert bottom(phone.locator(".case-card").first) <= PHONE["height"]
    phone.goto(f"{bundled_site}/ko/cases/?org=hugging-face")
    assert phone.locator(".facets-toggle > summary").inner_text().strip() == "필터 (1개 선택)"


def test_on_a_phone_the_dates_and_order_open_from_a_button(phone, bundled_site):
    phone.goto(f"{bundled_site}/en/cases/")
    date_from = phone.get_by_label("From", exact=True)
    assert not date_from.is_visible()
    phone.get_by_text("Dates and order").click()
    date_from.fill("2024-01-01")
    phone.get_by_role("button", name="Search").click()
    phone.wait_for_url(re.compile(r"from=2024-01-01"))
    assert all(year >= "2024" for year in phone.locator(".case-card time").all_inner_texts())


def test_screenshots_on_a_phone(phone, bundled_site, screenshot):
    phone.goto(f"{bundled_site}/en/cases/IL-0585/")
    screenshot(phone, "phone-case-en", full_page=False)
    phone.goto(f"{bundled_site}/ko/graph/?tab=component")
    phone.wait_for_function("() => document.getElementById('graph-canvas').dataset.ready > 0")
    phone.locator("#graph-canvas").scroll_into_view_if_needed()
    screenshot(phone, "phone-graph-ko", full_page=False)


def test_on_a_desktop_the_filters_stay_open_beside_the_list(page, bundled_site, screenshot):
    page.goto(f"{bundled_site}/en/cases/")
    assert page.locator(".facet").first.is_visible()
    panel, results = (
        page.locator(".facets").bounding_box(),
        page.locator(".list-main").bounding_box(),
    )
    assert panel["x"] > results["x"] + results["width"]  # to its right, as before
    assert bottom(page.locator("input#q")) < 200
    # the dates and order too, without a button
    assert page.get_by_label("From", exact=True).is_visible()
    assert not page.get_by_text("Dates and order").is_visible()
    screenshot(page, "desktop-list-en", full_page=False)


def test_the_filters_open_on_a_phone_without_javascript(browser, bundled_site):
    context = browser.new_context(viewport=PHONE, is_mobile=True, java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{bundled_site}/en/cases/")
    assert not page.locator(".facet").first.is_visible()
    page.locator(".facets-toggle > summary").click()
    assert page.locator(".facet").first.is_visible()
    context.close()
