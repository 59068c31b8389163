"""A reviewer finds an imported case that tells IL-1010's incident again, merges it from its
page, and readers of its old address land on IL-1010 in their language."""

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from cases.models import Case, CaseMerge
from tests.browser.editors import csp_reports, sign_in
from tests.exchange.test_import_duplicates import catalogue_case
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path("/tmp/dups-shots")


def shoot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_a_reviewer_merges_an_imported_duplicate_into_il_1010(browser, bundled_site, tmp_path):
    base = bundled_site
    path = tmp_path / "catalogue.json"
    path.write_text(json.dumps([catalogue_case("IL-5001")]), encoding="utf-8")
    out = io.StringIO()
    call_command("import_cases", str(path), stdout=out)
    assert "IL-5001 looks like IL-1010" in out.getvalue()
    UserFactory(username="rita", role="reviewer")
    absorbed = Case.objects.get(public_id="IL-5001")
    kept = Case.objects.get(public_id="IL-1010")

    rita = sign_in(browser, base, "rita")
    rita.goto(f"{base}/admin/cases/case/{absorbed.pk}/change/")
    notice = rita.locator("#duplicates")
    assert "This case may be a duplicate" in notice.inner_text()
    assert "IL-1010 — same source https://engineering.fb.com/" in notice.inner_text()
    shoot(rita, "admin-duplicate-notice")
    rita.locator(".workflow-panel").screenshot(path=str(SHOTS / "admin-duplicate-panel.png"))
    notice.locator("a.merge-duplicate").first.click()
    rita.wait_for_selector("form.combine-form")
    # The published case with the older id is offered as the one to keep.
    assert rita.locator(f"input[name=survivor][value='{kept.pk}']").is_checked()
    rita.fill("#combine-note", "The catalogue's telling of the same outage.")
    shoot(rita, "admin-combine-page")
    rita.click("form.combine-form input[type=submit]")
    rita.wait_for_selector(".messagelist .success")
    assert "IL-5001 was merged into IL-1010" in rita.locator(".messagelist").inner_text()
    assert rita.url.endswith(f"/admin/cases/case/{kept.pk}/change/")
    shoot(rita, "admin-after-combine")
    assert csp_reports(rita) == []
    assert CaseMerge.objects.get().survivor == kept

    reader = browser.new_page()
    reader.goto(f"{base}/ko/cases/IL-5001/")
    assert reader.url == f"{base}/ko/cases/IL-1010/"
    shoot(reader, "reader-ko-after-merge")
    reader.close()

    seoul = sign_in(browser, base, "rita", locale="ko-KR")
    seoul.goto(f"{base}/admin/cases/case/{absorbed.pk}/change/")
    assert "IL-1010에 병합되었습니다" in seoul.locator("#duplicates").inner_text()
    shoot(seoul, "admin-ko-absorbed-case")
    seoul.locator(".workflow-panel").screenshot(path=str(SHOTS / "admin-ko-absorbed-panel.png"))
