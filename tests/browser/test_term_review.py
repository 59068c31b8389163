"""A reviewer imports free-form categories in the admin, sees which slugs map to terms and
which wait for review, labels and accepts one; a Korean reader then sees it, marked as
English (#23, point 1)."""

import json
import shutil
from pathlib import Path

import pytest

from cases.models import Term
from tests.browser.editors import sign_in
from tests.conftest import SEED
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path("/tmp/terms-shots")


@pytest.fixture
def shot(screenshot):
    SHOTS.mkdir(parents=True, exist_ok=True)

    def take(page, name):
        path = screenshot(page, name)
        shutil.copy(path, SHOTS / path.name)

    return take


def test_a_reviewer_sees_new_terms_labels_and_accepts_one(browser, bundled_site, shot):
    base = bundled_site
    UserFactory(username="rita", role="reviewer")
    seed = json.loads(SEED.read_text(encoding="utf-8"))
    post_mortem = {
        **seed,
        "id": "IL-9950",
        "title": {"en": "Region-wide outage after a config change", "ko": ""},
        "root_cause": "config-change",
        "components": ["aws", "us-east-1"],
        "symptoms": ["outage"],
        "related": [],
        "recurrence_of": None,
    }
    upload = {
        "name": "catalogue.jsonl",
        "mimeType": "application/jsonl",
        "buffer": (json.dumps(post_mortem, ensure_ascii=False) + "\n").encode(),
    }

    page = sign_in(browser, base, "rita")
    page.goto(f"{base}/admin/cases/case/import/")
    page.set_input_files("input[type=file]", files=[upload])
    page.get_by_role("button", name="Upload and check").click()
    page.wait_for_selector(".import-terms-new")
    mapped = page.locator(".import-terms-mapped").inner_text()
    assert "config-change" in mapped and "Configuration error" in mapped
    assert "outage" in mapped and "Service unavailable" in mapped
    new = page.locator(".import-terms-new tbody").inner_text()
    assert "aws" in new and "us-east-1" in new
    shot(page, "terms-import-preview")
    page.get_by_role("button", name="Import these cases").click()
    page.wait_for_selector(".messagelist .warning")
    assert "2 new term(s) wait for review" in page.locator(".messagelist").inner_text()

    reader = browser.new_page()
    reader.goto(f"{base}/ko/cases/IL-9950/")
    assert "Aws" not in reader.locator("main").inner_text()
    assert "설정 오류" in reader.locator("main").inner_text()  # the mapped cause

    page.goto(f"{base}/admin/")
    assert page.locator('[data-queue="terms"]').inner_text() == "2"
    page.get_by_role("link", name="New terms to review").click()
    page.wait_for_selector("#result_list")
    shot(page, "terms-admin-unreviewed")
    page.get_by_role("link", name="Aws").click()
    page.fill("#id_label_en", "Amazon Web Services")
    page.get_by_role("button", name="Save", exact=True).click()
    page.wait_for_selector("#result_list")
    assert Term.objects.get(slug="aws").reviewed is False  # labelled, not yet accepted
    page.goto(f"{base}/admin/cases/term/?reviewed__exact=0")
    row = page.locator("#result_list tr", has_text="Amazon Web Services")
    row.locator("input.action-select").check()
    page.select_option("select[name=action]", "accept_terms")
    page.locator("button[name=index]").click()
    page.wait_for_selector(".messagelist .success")
    shot(page, "terms-admin-accepted")

    reader.goto(f"{base}/ko/cases/IL-9950/")
    marked = reader.locator('span[lang="en"]', has_text="Amazon Web Services").first
    assert marked.is_visible()
    assert "(영어)" in reader.locator("main").inner_text()
    assert "us-east-1" not in reader.locator("main").inner_text().casefold()
    shot(reader, "terms-korean-case-english-label")
    reader.goto(f"{base}/ko/cases/?component=aws")
    assert reader.locator(".facet-label", has_text="Amazon Web Services").count() >= 1
    shot(reader, "terms-korean-list-english-label")
