"""The case form fits: its sections fold, short fields are short, the id is proposed,
durations are typed as people write them, documentation links are a list of links, it
fits a 1366-pixel screen and a phone, and leaving it with unsaved changes asks first."""

import datetime

import pytest

from cases.exchange.serialize import case_to_exchange
from cases.models import Case, Organisation, Source, Vocabulary
from tests.browser.conftest import PHONE
from tests.browser.editors import sign_in
from tests.factories import CaseFactory, CaseStepFactory, SourceFactory, TermFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

# The add form measured 4,215 pixels at 1280×900 before its sections folded.
MOST_ADD_FORM_HEIGHT = 1_800
LAPTOP = {"width": 1366, "height": 768}
OPEN_EVERY_SECTION = "document.querySelectorAll('#case_form details').forEach(d => d.open = true)"
PAGE_OVERFLOW = "document.documentElement.scrollWidth - window.innerWidth"


def section(page, heading):
    """A folding section of the form, opened."""
    details = page.locator("#case_form details", has=page.locator("summary", has_text=heading))
    if not details.evaluate("d => d.open"):
        details.locator("summary").click()
    return details


@pytest.fixture
def full_case():
    """A case with something in every section, sources and steps included."""
    editor = UserFactory(username="eddie", role="editor")
    case = CaseFactory(
        public_id="IL-0700",
        status=Case.Status.DRAFT,
        published_at=None,
        created_by=editor,
        impact_scope_en="All deploys in one region",
        impact_scope_ko="한 리전의 모든 배포",
        detected_after=datetime.timedelta(minutes=12),
        resolved_after=datetime.timedelta(hours=3, minutes=15),
        docs=["https://example.org/docs/queues", "https://example.org/docs/deploys"],
        with_terms=[TermFactory(vocabulary=Vocabulary.COMPONENT, slug="queue")],
    )
    for position in range(3):
        SourceFactory(
            case=case,
            position=position,
            url=f"https://status.example-cloud.com/incidents/2025-03-01-queue-backlog-{position}",
            archived=f"https://web.archive.org/web/20250302000000/https://status.example-cloud"
            f".com/incidents/2025-03-01-queue-backlog-{position}",
        )
    CaseStepFactory(case=case, text_en="Drained the queue.", text_ko="큐를 비웠다.")
    return case


def test_the_add_form_is_at_most_1800_pixels_tall(browser, live_server, screenshot):
    UserFactory(username="eddie", role="editor")
    editor = sign_in(browser, live_server.url, "eddie")
    editor.goto(f"{live_server.url}/admin/cases/case/add/")
    height = editor.evaluate("document.documentElement.scrollHeight")
    screenshot(editor, "admin-case-add-form")
    assert height <= MOST_ADD_FORM_HEIGHT, height
    # The basics and the story are open; the rest folds.
    assert editor.locator("#id_title_en").is_visible()
    assert not editor.locator("#id_detected_after").is_visible()
    assert editor.input_value("#id_public_id") == "IL-0001"


# A browser without CSS `field-sizing` (Firefox, say): admin/js/case-form.js grows the box.
WITHOUT_FIELD_SIZING = """
const supports = CSS.supports.bind(CSS);
CSS.supports = (...args) => !String(args[0]).startsWith("field-sizing") && supports(...args);
"""


@pytest.mark.parametrize("sizing", ["css", "script"])
def test_a_text_box_grows_with_its_text(browser, live_server, sizing):
    UserFactory(username="eddie", role="editor")
    editor = sign_in(browser, live_server.url, "eddie")
    if sizing == "script":
        editor.context.add_init_script(WITHOUT_FIELD_SIZING)
    editor.goto(f"{live_server.url}/admin/cases/case/add/")
    if sizing == "script":
        editor.evaluate(
            "document.querySelectorAll('textarea').forEach(t => t.style.fieldSizing = 'fixed')"
        )
    summary = editor.locator("#id_summary_en")
    empty = summary.bounding_box()["height"]
    summary.fill("\n".join(f"Line {n} of what happened." for n in range(12)))
    grown = summary.bounding_box()["height"]
    assert grown > 2 * empty, (empty, grown)
    assert summary.evaluate("t => t.scrollHeight <= t.clientHeight + 1"), "all of it shows"


def test_an_editor_writes_a_whole_case_in_the_folded_form(browser, live_server, screenshot):
    base = live_server.url
    UserFactory(username="eddie", role="editor")
    Organisation.objects.create(name="Example Cloud", slug="example-cloud")
    CaseFactory(public_id="IL-1015")
    editor = sign_in(browser, base, "eddie")
    editor.goto(f"{base}/admin/cases/case/add/")
    assert editor.input_value("#id_public_id") == "IL-1016"
    editor.locator("#id_org").locator("xpath=following-sibling::span[1]").click()
    editor.keyboard.type("Example")
    editor.locator(".select2-results__option", has_text="Example Cloud").click()
    editor.fill("#id_date", "2025-03-01")
    editor.fill("#id_title_en", "Queue backlog stalled deploys")
    editor.fill("#id_title_ko", "큐 적체로 배포가 멈췄다")
    editor.fill("#id_summary_en", "A queue filled up.")
    editor.fill("#id_summary_ko", "큐가 가득 찼다.")

    section(editor, "Cause and impact")
    editor.fill("#id_impact_users_en", "Every team deploying")
    editor.fill("#id_detected_after", "3h 15m")
    editor.fill("#id_resolved_after", "PT45M")

    links = section(editor, "Links and provenance")
    assert links.locator("input[type=url]").count() == 1  # the script keeps one empty input
    links.locator("input[type=url]").nth(0).fill("https://example.org/docs/queues")
    links.get_by_role("button", name="Add a link").click()
    links.locator("input[type=url]").nth(1).fill("https://example.org/docs/deploys")
    links.get_by_role("button", name="Add a link").click()
    links.locator("input[type=url]").nth(2).fill("https://example.org/docs/oops")
    links.get_by_role("button", name="Remove").nth(2).click()

    sources = section(editor, "Sources")
    sources.get_by_role("button", name="Add another Source").click()
    editor.fill("#id_sources-0-url", "https://status.example-cloud.com/incidents/1")
    editor.fill("#id_sources-0-kind", "status-page")
    screenshot(editor, "admin-case-form-filled")
    editor.click("input[name=_continue]")
    editor.wait_for_selector(".messagelist .success")

    case = Case.objects.for_exchange().get(public_id="IL-1016")
    exchange = case_to_exchange(case)
    assert exchange["timeline"] == {"detected_after": "PT3H15M", "resolved_after": "PT45M"}
    assert exchange["docs"] == [
        "https://example.org/docs/queues",
        "https://example.org/docs/deploys",
    ]
    assert [s["url"] for s in exchange["sources"]] == [
        "https://status.example-cloud.com/incidents/1"
    ]
    assert case.impact_users_en == "Every team deploying"
    section(editor, "Cause and impact")
    assert editor.input_value("#id_detected_after") == "3h 15m"
    assert editor.input_value("#id_resolved_after") == "45m"


def test_a_bad_link_is_named_beside_it_and_its_section_stays_open(browser, live_server, screenshot):
    base = live_server.url
    UserFactory(username="eddie", role="editor")
    case = CaseFactory(
        public_id="IL-0800",
        status=Case.Status.DRAFT,
        published_at=None,
        created_by=UserFactory(username="eddie"),
    )
    editor = sign_in(browser, base, "eddie")
    editor.goto(f"{base}/admin/cases/case/{case.pk}/change/")
    links = section(editor, "Links and provenance")
    links.locator("input[type=url]").nth(0).fill("https://example.org/fine")
    links.get_by_role("button", name="Add a link").click()
    links.locator("input[type=url]").nth(1).fill("javascript:alert(1)")
    editor.click("input[name=_continue]")
    editor.wait_for_selector(".errornote")
    bad = editor.locator("input[aria-invalid=true]")
    assert bad.input_value() == "javascript:alert(1)" and bad.is_visible()
    beside = editor.locator(".url-list-item", has=bad).inner_text()
    assert "only http and https links are allowed" in beside
    editor.locator(".field-docs").scroll_into_view_if_needed()
    screenshot(editor, "admin-case-form-bad-link")


def test_the_case_page_fits_a_1366_pixel_screen(browser, live_server, full_case, screenshot):
    editor = sign_in(browser, live_server.url, "eddie", viewport=LAPTOP)
    editor.goto(f"{live_server.url}/admin/cases/case/{full_case.pk}/change/")
    editor.evaluate(OPEN_EVERY_SECTION)
    screenshot(editor, "admin-case-form-1366")
    assert editor.evaluate(PAGE_OVERFLOW) <= 0
    table = editor.locator("#sources-group .wrapper")
    assert table.evaluate("t => t.scrollWidth - t.clientWidth") <= 0, "no scrolling inside"


@pytest.mark.parametrize("page_name", ["add", "change"])
def test_the_form_works_on_a_phone(browser, live_server, full_case, screenshot, page_name):
    editor = sign_in(browser, live_server.url, "eddie", viewport=PHONE)
    address = {"add": "add/", "change": f"{full_case.pk}/change/"}[page_name]
    editor.goto(f"{live_server.url}/admin/cases/case/{address}")
    editor.evaluate(OPEN_EVERY_SECTION)
    screenshot(editor, f"admin-case-form-{page_name}-phone")
    assert editor.evaluate(PAGE_OVERFLOW) <= 0
    english, korean = (
        editor.locator(f"#id_summary_{lang}").bounding_box() for lang in ["en", "ko"]
    )
    assert korean["y"] >= english["y"] + english["height"], "the languages stack"
    for name in ("_save", "_continue"):
        box = editor.locator(f"input[name={name}]").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], name


def test_the_side_by_side_languages_stay_side_by_side_on_a_desktop(browser, live_server):
    UserFactory(username="eddie", role="editor")
    editor = sign_in(browser, live_server.url, "eddie")
    editor.goto(f"{live_server.url}/admin/cases/case/add/")
    english, korean = (
        editor.locator(f"#id_summary_{lang}").bounding_box() for lang in ("en", "ko")
    )
    assert english["y"] == korean["y"] and english["x"] + english["width"] < korean["x"]


# --- leaving with unsaved changes -------------------------------------------------------


def dialogs_of(page):
    seen = []

    def answer(dialog):
        seen.append(dialog.type)
        dialog.accept()

    page.on("dialog", answer)
    return seen


def test_leaving_with_unsaved_changes_asks_first(browser, live_server, full_case):
    base = live_server.url
    editor = sign_in(browser, base, "eddie")
    seen = dialogs_of(editor)
    change = f"{base}/admin/cases/case/{full_case.pk}/change/"

    editor.goto(change)
    editor.click(".breadcrumbs a >> nth=0")  # nothing changed: leaves without asking
    editor.wait_for_url(f"{base}/admin/")
    assert seen == []

    editor.goto(change)
    editor.click("#id_title_en")
    editor.keyboard.type(" (edited)")
    editor.click(".breadcrumbs a >> nth=0")
    editor.wait_for_url(f"{base}/admin/")
    assert seen == ["beforeunload"]

    editor.goto(change)
    editor.click("#id_title_en")
    editor.keyboard.type(" (saved)")
    editor.click("input[name=_continue]")
    editor.wait_for_selector(".messagelist .success")
    assert seen == ["beforeunload"], "saving does not ask"
    full_case.refresh_from_db()
    assert full_case.title_en.endswith(" (saved)")


@pytest.mark.parametrize("row_change", ["add a row", "delete a row", "remove a link"])
def test_rows_and_links_added_or_removed_count_as_changes(
    browser, live_server, full_case, row_change
):
    base = live_server.url
    editor = sign_in(browser, base, "eddie")
    seen = dialogs_of(editor)
    editor.goto(f"{base}/admin/cases/case/{full_case.pk}/change/")
    if row_change == "add a row":
        section(editor, "Sources").get_by_role("button", name="Add another Source").click()
    elif row_change == "delete a row":
        section(editor, "Sources").locator("input[name=sources-0-DELETE]").check()
    else:
        links = section(editor, "Links and provenance")
        for _ in range(3):  # the two links and the empty input: one empty input stays
            links.get_by_role("button", name="Remove").first.click()
        assert [i.input_value() for i in links.locator("input[type=url]").all()] == [""]
    editor.click(".breadcrumbs a >> nth=0")
    editor.wait_for_url(f"{base}/admin/")
    assert seen == ["beforeunload"]
    assert Source.objects.filter(case=full_case).count() == 3
