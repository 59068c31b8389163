"""Signing in to the admin as an editor or a reviewer, each in a browser context of their own,
with the page recording what the content security policy refused."""

from tests.browser.conftest import DESKTOP

RECORD_VIOLATIONS = """
window.cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.cspViolations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""


def sign_in(browser, base, username, *, viewport=DESKTOP, locale="en-US", javascript=True):
    """A page of a new browser context, signed in to the admin as `username` (password "pw",
    as UserFactory gives)."""
    context = browser.new_context(viewport=viewport, locale=locale, java_script_enabled=javascript)
    context.add_init_script(RECORD_VIOLATIONS)
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.console_messages = []
    page.on("console", lambda message: page.console_messages.append(message.text))
    page.goto(f"{base}/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", "pw")
    page.click("input[type=submit]")
    page.wait_for_url(f"{base}/admin/")
    return page


def csp_reports(page):
    """What the policy refused on the page so far, by event or by console message."""
    seen = page.evaluate("window.cspViolations") or []
    return seen + [text for text in page.console_messages if "Content Security Policy" in text]
