"""A reader searches as they type: a misspelling corrected and said, the words marked in
each result, an organisation written in Hangul, a search no case has every word of."""

import re

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def search(page, site, language, words):
    page.goto(f"{site}/{language}/cases/")
    page.locator("input#q").fill(words)
    page.locator("input#q").press("Enter")
    page.wait_for_url(re.compile(r"[?&]q="))


def test_a_misspelled_search_is_corrected_and_its_words_are_marked(page, bundled_site, screenshot):
    search(page, bundled_site, "en", "cloudfare regular expresion")
    outcome = page.locator(".search-outcome").inner_text()
    assert "No case has “cloudfare”, “expresion”." in outcome
    assert "Showing results for cloudflare regular expression" in outcome
    first = page.locator(".case-card").first
    assert first.get_attribute("id") == "IL-1009"
    marks = [text.casefold() for text in first.locator("mark").all_inner_texts()]
    assert "cloudflare" in marks and "regular expression" in " ".join(marks)
    screenshot(page, "search-corrected-en")

    # The correction is a link to the corrected search.
    page.locator(".search-outcome a").first.click()
    page.wait_for_url(re.compile(r"q=cloudflare\+regular\+expression"))
    assert page.locator(".search-outcome").count() == 0
    assert page.locator(".case-card").first.get_attribute("id") == "IL-1009"


def test_a_korean_reader_finds_an_organisation_by_its_hangul_name(page, bundled_site, screenshot):
    search(page, bundled_site, "ko", "깃랩 데이터베이스")
    first = page.locator(".case-card").first
    assert first.get_attribute("id") == "IL-1011"
    assert "데이터베이스" in first.locator("mark").all_inner_texts()
    screenshot(page, "search-hangul-name-ko")


def test_a_search_no_case_has_every_word_of_lists_the_closest(page, bundled_site, screenshot):
    search(page, bundled_site, "en", "postmortem redis client bug chatgpt")
    screenshot(page, "search-partial-en")
    assert "No case has every word of your search." in page.locator(".search-outcome").inner_text()
    assert page.locator(".case-card").first.get_attribute("id") == "IL-1004"
