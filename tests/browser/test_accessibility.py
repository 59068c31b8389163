"""axe-core (the accessibility engine, from the axe-playwright-python package) finds no
violation, of any impact, on the public pages and the admin's sign-in."""

import pytest
from axe_playwright_python.sync_playwright import Axe

from tests.browser.conftest import PHONE, SCREENSHOTS

pytestmark = pytest.mark.django_db(transaction=True)

AXE = Axe()


def violations(page):
    results = AXE.run(page)
    return results.violations_count, results.generate_report()


PAGES = {
    "list-en": "/en/cases/",
    "list-ko": "/ko/cases/",
    "list-searched": "/en/cases/?q=checkpoint&org=hugging-face",
    "case-en": "/en/cases/IL-0585/",
    "case-ko": "/ko/cases/IL-0585/",
    "graph": "/en/graph/?tab=component",
    "admin-login": "/admin/login/",
}


@pytest.mark.parametrize("width", ["desktop", "phone"])
@pytest.mark.parametrize("name", PAGES)
def test_no_accessibility_violations(browser, bundled_site, name, width):
    options = {"viewport": PHONE, "is_mobile": True} if width == "phone" else {}
    context = browser.new_context(locale="en-US", **options)
    page = context.new_page()
    page.goto(bundled_site + PAGES[name])
    if name == "graph":  # drawn, its tools shown
        page.wait_for_function("() => document.getElementById('graph-canvas').dataset.ready > 0")
    count, report = violations(page)
    context.close()
    assert count == 0, report


def test_the_keyboard_reaches_the_bibtex_block_and_scrolls_it(page, bundled_site, screenshot):
    page.goto(f"{bundled_site}/en/cases/IL-0585/")
    for _ in range(200):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.classList.contains('bibtex')"):
            break
    else:
        pytest.fail("Tab never reached the BibTeX block")
    bibtex = page.get_by_role("region", name="BibTeX entry")
    assert "@misc{" in bibtex.inner_text()
    for _ in range(5):  # its long lines scroll sideways from the keyboard
        page.keyboard.press("ArrowRight")
    # Chromium scrolls smoothly, after the key press returns: wait for it (up to 10 s).
    page.wait_for_function("() => document.querySelector('.bibtex').scrollLeft > 0")
    assert bibtex.evaluate("element => element.scrollLeft") > 0
    screenshot(page, "case-en-bibtex-focused", full_page=False)


def test_the_favicon_is_served(page, bundled_site):
    response = page.request.get(f"{bundled_site}/favicon.ico")  # follows the redirect
    assert response.ok and response.headers["content-type"].startswith("image/svg+xml")


# The labels of the nodes drawn on the canvas at the default zoom: their smallest size on
# the screen, and how many pairs of them overlap (by more than 2 pixels each way).
LABELS_ON_SCREEN = """() => {
  const cy = window.incidentGraph, z = cy.zoom(), pan = cy.pan();
  const W = cy.width(), H = cy.height();
  const boxes = [];
  let minFont = 99;
  cy.nodes().forEach(n => {
    const b = n.boundingBox({includeNodes: false, includeEdges: false, includeLabels: true});
    const r = {x1: b.x1*z+pan.x, x2: b.x2*z+pan.x, y1: b.y1*z+pan.y, y2: b.y2*z+pan.y};
    if (r.x2 < 0 || r.x1 > W || r.y2 < 0 || r.y1 > H) return;  // off screen
    boxes.push(r);
    minFont = Math.min(minFont, parseFloat(n.style('font-size')) * z);
  });
  let overlaps = 0;
  for (let i = 0; i < boxes.length; i++) for (let j = i+1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    const w = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
    const h = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
    if (w > 2 && h > 2) overlaps++;
  }
  return {zoom: z, visible: boxes.length, minFont: minFont, overlaps: overlaps};
}"""


@pytest.mark.parametrize("width", ["desktop", "phone"])
@pytest.mark.parametrize("tab", ["component", "case"])
def test_graph_labels_are_readable_at_the_default_zoom(browser, bundled_site, tab, width):
    options = {"viewport": PHONE, "is_mobile": True} if width == "phone" else {}
    context = browser.new_context(**options)
    page = context.new_page()
    page.goto(f"{bundled_site}/en/graph/?tab={tab}")
    page.wait_for_function("() => document.getElementById('graph-canvas').dataset.ready > 0")
    labels = page.evaluate(LABELS_ON_SCREEN)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#graph-canvas").screenshot(path=SCREENSHOTS / f"graph-{tab}-{width}.png")
    context.close()
    assert labels["minFont"] >= 11, labels
    assert labels["visible"] >= 8, labels
    # The layout is the same for everyone (static/js/graph.js): a few labels may touch, not most.
    assert labels["overlaps"] <= labels["visible"] / 3, labels
