"""The API as a reader and another site's script meet it: its docs page, and reading it
across origins with an ETag."""

import http.server
import threading

import pytest

from tests.browser.conftest import PHONE

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_docs_page_lists_the_endpoints_on_a_phone(browser, bundled_site, screenshot, language):
    context = browser.new_context(viewport=PHONE, is_mobile=True)
    page = context.new_page()
    page.goto(f"{bundled_site}/api/v1/docs")
    assert page.url.endswith("/en/api/")  # the docs address leads to the page
    page.goto(f"{bundled_site}/{language}/api/")
    assert page.locator(".api-operation").count() >= 7
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    screenshot(page, f"api-docs-{language}-phone")
    page.locator("a[href='#list_cases']").first.click()
    assert page.locator("#list_cases").is_visible()
    context.close()


@pytest.fixture
def other_site():
    """A page of another origin on this machine (Chromium lets only loopback pages reach
    loopback), with no policy of ours: what a mirror's web page would be."""

    class Blank(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<!doctype html><title>mirror</title>")

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Blank)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_another_sites_script_reads_the_api_and_revalidates(browser, bundled_site, other_site):
    context = browser.new_context()
    page = context.new_page()
    page.goto(other_site)
    result = page.evaluate(
        """async (base) => {
            const first = await fetch(base + "/api/v1/cases/IL-0585");
            const body = await first.json();
            const etag = first.headers.get("ETag");
            const again = await fetch(base + "/api/v1/cases/IL-0585",
                                      {headers: {"If-None-Match": etag}, cache: "no-store"});
            return {status: first.status, id: body.id, etag, again: again.status};
        }""",
        bundled_site,
    )
    assert result["status"] == 200 and result["id"] == "IL-0585"
    assert result["etag"]  # exposed to the script
    assert result["again"] == 304
    context.close()
