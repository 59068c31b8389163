"""A reader ends the list at "Check your own system": reads the questions its cases raise,
opens a case that raises one, and takes the questions away as Markdown, in both languages."""

import re
import shutil
from pathlib import Path

import pytest

from tests.browser.conftest import PHONE

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path("/tmp/check-shots")


def keep(path, name):
    """The screenshot, kept where this change's reviewer looks too."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, SHOTS / f"{name}.png")


def test_the_whole_library_asks_about_its_recurring_factors_with_their_follow_ups(
    page, bundled_site, screenshot
):
    page.goto(f"{bundled_site}/en/cases/")
    check = page.locator("section.check")
    counts = [
        int(re.search(r"(\d+) cases?", text)[1])
        for text in check.locator(".check-factor").all_inner_texts()
    ]
    assert counts == sorted(counts, reverse=True) and counts[0] >= 2
    assert check.locator(".check-follow-ups li").count() >= 1
    # A follow-up links the case that took it.
    source = check.locator(".check-follow-ups a.check-source").first
    assert re.fullmatch(r"IL-\d{4,}", source.inner_text())
    keep(screenshot(page, "check-all-en-desktop"), "check-all-en-desktop")
    check.screenshot(path=str(SHOTS / "check-all-en-section.png"))


def test_reader_checks_their_own_system_from_the_filtered_list(page, bundled_site, screenshot):
    page.goto(f"{bundled_site}/en/cases/?org=hugging-face")
    check = page.locator("section.check")
    check.scroll_into_view_if_needed()
    assert check.get_by_role("heading", level=2).inner_text() == "Check your own system"
    questions = check.locator(".check-question-text").all_inner_texts()
    assert questions and all(q.endswith("?") for q in questions)
    # Both Hugging Face cases had overlapping failures: asked first, as the taxonomy asks.
    assert questions[0] == (
        "If two unrelated failures hit at once, could your team tell them apart and work on both?"
    )
    keep(screenshot(page, "check-en-desktop"), "check-en-desktop")
    SHOTS.mkdir(parents=True, exist_ok=True)
    check.screenshot(path=str(SHOTS / "check-en-section.png"))

    markdown_href = check.get_by_role("link", name="These questions as Markdown").get_attribute(
        "href"
    )
    assert markdown_href == "/en/check.md?org=hugging-face"
    exported = page.request.get(f"{bundled_site}{markdown_href}")
    assert exported.headers["content-type"] == "text/markdown; charset=utf-8"
    text = exported.text()
    assert text.startswith("# Check your own system")
    assert all(f"## {q}" in text for q in questions)

    first = check.locator("a.check-case").first
    case_id = first.inner_text()
    first.click()
    page.wait_for_url(re.compile(rf"/en/cases/{case_id}/$"))
    assert case_id in page.locator("body").inner_text()

    page.goto(f"{bundled_site}/ko/cases/?org=hugging-face")
    check = page.locator("section.check")
    assert check.get_by_role("heading", level=2).inner_text() == "내 시스템에도 있는지 확인하기"
    korean = check.locator(".check-question-text").all_inner_texts()
    assert len(korean) == len(questions)
    assert all(re.search("[가-힣]", q) for q in korean)
    keep(screenshot(page, "check-ko-desktop"), "check-ko-desktop")
    check.screenshot(path=str(SHOTS / "check-ko-section.png"))

    # On a phone the section fits the screen's width: nothing to scroll sideways.
    page.set_viewport_size(PHONE)
    box = check.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    check.screenshot(path=str(SHOTS / "check-ko-phone-section.png"))
