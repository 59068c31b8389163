"""A reviewer imports cases in the admin (upload, dry run, confirm), meets a bad file's
problems, and exports two cases."""

import json

import pytest

from cases.models import Case
from tests.browser.editors import sign_in
from tests.conftest import SEED
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def case_line(case):
    return json.dumps(case, ensure_ascii=False) + "\n"


def jsonl_file(name, *cases):
    return {
        "name": name,
        "mimeType": "application/jsonl",
        "buffer": "".join(case_line(case) for case in cases).encode(),
    }


def test_a_reviewer_imports_checks_a_bad_file_and_exports(
    browser, bundled_site, screenshot, tmp_path
):
    base = bundled_site
    UserFactory(username="rita", role="reviewer")
    seed = json.loads(SEED.read_text(encoding="utf-8"))

    def new_case(case_id, title):
        return {**seed, "id": case_id, "title": title, "related": [], "recurrence_of": None}

    changed = {
        **seed,
        "title": {"en": "Philly GPU jobs failed (revised)", "ko": seed["title"]["ko"]},
    }
    good = jsonl_file(
        "library.jsonl",
        new_case(
            "IL-9901", {"en": "Queue backlog stalled deploys", "ko": "큐 적체로 배포가 멈췄다"}
        ),
        changed,
        new_case(
            "IL-9902", {"en": "Certificate expired at midnight", "ko": "인증서가 자정에 만료됐다"}
        ),
    )

    page = sign_in(browser, base, "rita")
    page.goto(f"{base}/admin/cases/case/")
    screenshot(page, "admin-case-list-import-export")
    page.get_by_role("link", name="Import cases").click()
    page.wait_for_selector("input[type=file]")
    page.set_input_files("input[type=file]", files=[good])
    screenshot(page, "admin-import-upload")
    page.get_by_role("button", name="Upload and check").click()

    page.wait_for_selector(".import-counts")
    assert page.locator(".import-created .import-count").inner_text() == "2"
    assert page.locator(".import-updated .import-count").inner_text() == "1"
    assert page.locator(".import-group-created .import-ids").inner_text() == "IL-9901, IL-9902"
    assert page.locator(".import-group-updated .import-ids").inner_text() == "IL-0585"
    screenshot(page, "admin-import-report")
    assert not Case.objects.filter(public_id="IL-9901").exists()  # nothing yet
    page.get_by_role("button", name="Import these cases").click()

    page.wait_for_selector(".messagelist .success")
    assert "2 created, 1 updated" in page.locator(".messagelist").inner_text()
    screenshot(page, "admin-import-done-message")
    page.get_by_role("link", name="Show the imported cases").click()
    page.wait_for_selector("#result_list")
    listed = page.locator("#result_list").inner_text()
    for text in ("IL-9901", "IL-9902", "IL-0585", "Certificate expired at midnight"):
        assert text in listed
    assert "IL-1001" not in listed
    screenshot(page, "admin-import-done-list")
    assert Case.objects.get(public_id="IL-0585").title_en == "Philly GPU jobs failed (revised)"

    bad = jsonl_file(
        "bad.jsonl",
        {**new_case("IL-9903", {"en": "Fine title", "ko": ""}), "date": "last tuesday"},
        {**new_case("IL-9904", {"en": "", "ko": ""}), "severity": "apocalyptic"},
        "not a case",
    )
    page.goto(f"{base}/admin/cases/case/import/")
    page.set_input_files("input[type=file]", files=[bad])
    page.get_by_role("button", name="Upload and check").click()
    page.wait_for_selector(".import-problems")
    rows = [
        [cell.strip() for cell in row.split("\t")]
        for row in page.locator(".import-problems tbody tr").all_inner_texts()
    ]
    as_found = {(row[1], row[2]) for row in rows}
    assert ("IL-9903", "date") in as_found
    assert ("IL-9904", "title") in as_found and ("IL-9904", "severity") in as_found
    assert any(row[0] == "line 3" and "a case must be a JSON object" in row[3] for row in rows)
    assert page.get_by_role("button", name="Import these cases").count() == 0
    assert page.get_by_role("link", name="Upload a corrected file").is_visible()
    screenshot(page, "admin-import-problems")
    assert not Case.objects.filter(public_id__in=["IL-9903", "IL-9904"]).exists()

    page.goto(f"{base}/admin/cases/case/")
    for case_id in ("IL-9901", "IL-9902"):
        row = page.locator("#result_list tr", has=page.get_by_role("link", name=case_id))
        row.locator("input.action-select").check()
    page.select_option("select[name=action]", "export_selected")
    with page.expect_download() as download_info:
        page.locator("button[name=index]").click()
    download = download_info.value
    assert download.suggested_filename.startswith("incident-library-")
    assert download.suggested_filename.endswith("-2-cases.jsonl")
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    exported = [json.loads(line) for line in saved.read_text(encoding="utf-8").splitlines()]
    assert [case["id"] for case in exported] == ["IL-9901", "IL-9902"]
    assert exported[1]["title"]["ko"] == "인증서가 자정에 만료됐다"
