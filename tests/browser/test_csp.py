"""The Content Security Policy blocks nothing the site and its admin need, in a real browser."""

import pytest

from cases.models import Case, Term
from tests.browser.conftest import DESKTOP
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

# Added before any page script runs (Playwright's init scripts are not subject to the CSP).
RECORD_VIOLATIONS = """
window.cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.cspViolations.push(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}`);
});
"""


@pytest.fixture
def watched(browser):
    """A page that records CSP violations, from the browser's events and its console."""
    context = browser.new_context(viewport=DESKTOP, locale="en-US")
    context.add_init_script(RECORD_VIOLATIONS)
    page = context.new_page()
    page.set_default_timeout(10_000)
    console = []
    page.on("console", lambda message: console.append(message.text))

    def violations():
        seen = page.evaluate("window.cspViolations")
        return seen + [text for text in console if "Content Security Policy" in text]

    page.violations = violations
    yield page
    context.close()


def visit(page, url):
    response = page.goto(url)
    assert "default-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_load_state("networkidle")
    assert page.violations() == [], url


def test_public_pages_break_no_rule(watched, bundled_site):
    for path in ["/en/cases/", "/ko/cases/IL-0585/", "/en/no-such-page/", "/ko/api/"]:
        visit(watched, f"{bundled_site}{path}")
    # The graph page's scripts run (cytoscape draws) and its one <style> rule is allowed.
    visit(watched, f"{bundled_site}/en/graph/?tab=component")
    # A function: Playwright would eval() an expression, which the policy refuses.
    watched.wait_for_function("() => document.getElementById('graph-canvas').dataset.ready > 0")
    assert watched.violations() == []


def test_the_admin_works_under_the_policy(watched, bundled_site):
    base = bundled_site
    UserFactory(username="root", is_superuser=True)
    watched.goto(f"{base}/admin/login/")
    watched.fill("#id_username", "root")
    watched.fill("#id_password", "pw")
    watched.click("input[type=submit]")
    watched.wait_for_url(f"{base}/admin/")
    assert watched.locator("#my-queues").is_visible()
    assert watched.violations() == []

    case = Case.objects.get(public_id="IL-0585")
    term = Term.objects.first()
    for path in [
        "/admin/cases/case/",
        "/admin/cases/case/add/",
        f"/admin/cases/case/{case.pk}/change/",
        f"/admin/cases/case/{case.pk}/versions/",
        f"/admin/cases/term/{term.pk}/change/",
        "/admin/auth/user/add/",
    ]:
        visit(watched, f"{base}{path}")

    # The workflow panel is styled by editorial.css, no longer by inline styles.
    watched.goto(f"{base}/admin/cases/case/{case.pk}/change/")
    padding = watched.locator(".workflow-panel").evaluate("e => getComputedStyle(e).paddingLeft")
    assert padding == "16px"
    # The admin's own scripts run: the date field gets its shortcuts, and an autocomplete
    # (select2) opens and lists organisations.
    watched.goto(f"{base}/admin/cases/case/add/")
    watched.wait_for_selector("#id_date + .datetimeshortcuts")
    watched.locator("#id_org").locator("xpath=following-sibling::span[1]").click()
    watched.wait_for_selector(".select2-results__option")
    assert watched.violations() == []
