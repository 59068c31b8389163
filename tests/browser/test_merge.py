"""Two people save one case at once: the second merges, part by part, in the browser."""

import pytest

from cases.models import Case
from tests.browser.editors import sign_in
from tests.factories import CaseFactory, CaseStepFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_second_save_merges_theirs_and_mine(browser, live_server, screenshot):
    base = live_server.url
    editor = UserFactory(username="eddie", role="editor")
    UserFactory(username="rita", role="reviewer")
    case = CaseFactory(
        status=Case.Status.DRAFT,
        published_at=None,
        created_by=editor,
        summary_en="A queue filled up.\n\nDeploys stalled.",
        summary_ko="큐가 가득 찼다.",
    )
    CaseStepFactory(case=case, position=0, text_en="Drained the queue.", text_ko="큐를 비웠다.")
    change = f"{base}/admin/cases/case/{case.pk}/change/"

    eddie, rita = sign_in(browser, base, "eddie"), sign_in(browser, base, "rita")
    eddie.goto(change)
    rita.goto(change)
    rita.fill("#id_title_en", "Queue backlog stalled every deploy")
    rita.click("input[name=_continue]")
    rita.wait_for_selector(".messagelist .success")

    eddie.fill("#id_summary_ko", "큐가 가득 차서 배포가 모두 멈췄다.")
    eddie.fill("#id_summary_en", "A queue filled up.\n\nEvery deploy stalled for an hour.")
    eddie.fill("#id_steps-0-text_ko", "큐를 비우고 다시 시작했다.")
    eddie.click("input[name=_continue]")
    eddie.wait_for_selector(".merge-table")
    rows = eddie.locator(".merge-row")
    parts = [rows.nth(i).get_attribute("data-part") for i in range(rows.count())]
    assert parts == ["title.en", "summary.en", "summary.ko", "remediation"]
    # Each side proposed where only one changed the part.
    assert eddie.locator("input[name='title.en'][value=theirs]").is_checked()
    assert eddie.locator("input[name='summary.ko'][value=mine]").is_checked()
    assert eddie.locator("input[name='summary.en'][value=mine]").is_checked()
    assert eddie.locator(".merge-row[data-part='summary.en'] .merge-mine mark").inner_text() == (
        "Every deploy stalled for an hour."
    )
    screenshot(eddie, "admin-merge-page")

    eddie.locator("button[name=_merge]").click()
    eddie.wait_for_selector(".messagelist .success")
    assert "merged" in eddie.locator(".messagelist").inner_text()
    case.refresh_from_db()
    assert case.title_en == "Queue backlog stalled every deploy"
    assert case.summary_en == "A queue filled up.\n\nEvery deploy stalled for an hour."
    assert case.summary_ko == "큐가 가득 차서 배포가 모두 멈췄다."
    assert case.steps.get().text_ko == "큐를 비우고 다시 시작했다."
    assert eddie.input_value("#id_title_en") == "Queue backlog stalled every deploy"
